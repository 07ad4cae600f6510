// Attaching what the stability gate staged: a touched file is recorded, the same
// bytes whose old name just went are a move, the same contents twice in one project
// are one file, an edited file takes the "replaced" path, anything else becomes a new
// private file of the folder's project. Renames and moves are paired here too: by
// inode, size and mtime at once, or by sha256 once staged; the title and project
// follow and nothing is uploaded again.
import type fs from 'node:fs';
import path from 'node:path';
import type { EngineContext } from '../engine/context.ts';
import type { WatchFileRow } from './watch-tables.ts';
import { actorInOrg } from '../engine/auth/actor.ts';
import type { ReceivedFile } from '../engine/files/blob-store.ts';
import { type AfterInsert, type NewFileRecord, replaceFileContents, storeNewFile, storeNewFiles, updateFile } from '../engine/files/file-service.ts';
import { byUser } from '../engine/changes/change-feed.ts';
import { contentTypeFor } from '../engine/files/file-types.ts';
import type { Clock } from '../engine/clock.ts';
import type { ProjectFolders } from './project-folders.ts';
import type { FolderOutbox } from './folder-outbox.ts';
import type { FolderReport } from './folder-status.ts';
import type { Candidate, StagedFile } from './stability-gate.ts';
import { lstatOrNull } from './file-stat.ts';
import { type Deletes, fileKey, type PendingUnlink } from './deletes.ts';
import type { FileMapping, WatchStore } from './watch-store.ts';

/** The file is the one recorded: same size, mtime and inode. */
export const sameStat = (row: Pick<WatchFileRow, 'size' | 'mtime_ms' | 'ino'>, stat: fs.Stats) =>
  row.size === stat.size && row.mtime_ms === stat.mtimeMs && row.ino === String(stat.ino);

/** Why the earlier version of a file edited in place is held. */
const replacedReason = (label: string) =>
  `Replaced: ${label} was changed in the project folder and attached as a new file. Delete removes the earlier file for good (everywhere it is synced); Restore brings it back as a separate file.`;

export interface AttachOptions {
  root: string;
  engine: EngineContext;
  store: WatchStore;
  folders: Pick<ProjectFolders, 'folderOf' | 'projectOfFolderNow'>;
  outbox: FolderOutbox;
  report: FolderReport;
  deletes: Deletes;
  clock: Clock;
  orgId: number;
  userId: number;
  /** The stability gate: a moved file stops waiting there, and a move whose file is gone is considered afresh. */
  gate: {
    forget(file: string): void;
    consider(projectId: number, folder: string, name: string, file: string, known: fs.Stats | null): Promise<void>;
  };
}

/** A new file decided on and waiting for its batch's write (Attacher.attachBatched). */
interface BatchedNew {
  candidate: Candidate;
  received: ReceivedFile;
  mapping: Omit<FileMapping, 'file_id'>;
}

/** At most this many new files in one write: the gate hands over at most 64 a step anyway. */
const BATCH_LIMIT = 64;

export class Attacher {
  /** New files decided on, in order, whose one write has not run yet (flushBatch). */
  private batch: BatchedNew[] = [];

  constructor(private readonly options: AttachOptions) {}

  private now(): number {
    return this.options.clock.now().getTime();
  }

  /**
   * Before the gate: a regular file that appeared or changed. True when nothing is
   * left to do: it is the file recorded (unchanged), or a rename paired by inode (applied).
   */
  async settled(projectId: number, folder: string, name: string, file: string, stat: fs.Stats): Promise<boolean> {
    const row = await this.options.store.fileRow(projectId, name);
    this.options.deletes.present(projectId, name); // it is there
    if (row && sameStat(row, stat)) {
      this.options.gate.forget(file);
      return true;
    }
    const renamedFrom = await this.pairByInode(stat, projectId, name);
    if (renamedFrom) {
      await this.applyMove(renamedFrom, projectId, folder, name, stat);
      return true;
    }
    return false;
  }

  /** A mapped file whose old name is gone and that has the same inode, size and mtime: renamed or moved, not new. */
  private async pairByInode(stat: fs.Stats, projectId: number, name: string): Promise<PendingUnlink | null> {
    const here = fileKey(projectId, name);
    for (const [key, pending] of this.options.deletes.unlinks) {
      if (key !== here && sameStat(pending.row, stat)) return pending;
    }
    for (const row of await this.options.store.filesWithInode(String(stat.ino))) {
      if (fileKey(row.project_id, row.name) === here || !sameStat(row, stat)) continue;
      const folder = this.options.folders.folderOf(row.project_id);
      if (folder === null) continue;
      if (await lstatOrNull(path.join(this.options.root, folder, row.name))) continue; // a hard link: both names exist
      return { row, folder, at: this.now() };
    }
    return null;
  }

  /**
   * A stable file, staged, as one of several handed over together (issue 30): the
   * decisions are made now, in order, as attach() makes them; a file that is simply
   * new joins the batch, whose files one tracked write creates (flushBatch). Anything
   * else (a touch, an edit, a move, the same contents as a file of the project or of
   * the batch) first writes the batch, then is done as attach() does it, so the
   * writes keep the order of the decisions. The caller keeps the staged copy until
   * flushBatch has run.
   */
  async attachBatched(candidate: Candidate, received: StagedFile, stat: fs.Stats): Promise<void> {
    const projectId = await this.options.folders.projectOfFolderNow(candidate.folder);
    if (projectId !== null && (await this.isSimplyNew(projectId, candidate, received))) {
      this.batch.push({ candidate, received, mapping: { project_id: projectId, name: candidate.name, file_hash: received.sha256, size: stat.size, mtime_ms: stat.mtimeMs, ino: String(stat.ino) } });
      if (this.batch.length >= BATCH_LIMIT) await this.flushBatch();
      return;
    }
    await this.flushBatch();
    await this.attach(candidate, received, stat);
  }

  /** No mapping of its name, no move to pair, no file of the project (or of the batch) with its contents, and not the "Online only" list. */
  private async isSimplyNew(projectId: number, candidate: Candidate, received: StagedFile): Promise<boolean> {
    const { store } = this.options;
    if (this.batch.some((queued) => queued.mapping.project_id === projectId && (queued.received.sha256 === received.sha256 || queued.candidate.name === candidate.name))) return false;
    if (await store.fileRow(projectId, candidate.name)) return false;
    for (const pending of this.options.deletes.unlinks.values()) if (pending.row.file_hash === received.sha256) return false;
    if ((await store.fileWithContents(this.options.orgId, projectId, received.sha256)) !== null) return false;
    return !received.isOnlineOnlyListing;
  }

  /**
   * Creates the batch's files in one tracked write, each with its mapping, in the
   * order they were decided on. A kill before the commit leaves none of them: their
   * names are unmapped, and the next rescan attaches them again. A failure is each
   * file's problem, as a failed attach() is.
   */
  async flushBatch(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0) return;
    const { store, report } = this.options;
    let ids: number[];
    try {
      ids = await storeNewFiles(
        this.options.engine,
        batch.map(({ candidate, received, mapping }) => ({
          received,
          record: this.recordOf(candidate, received, mapping.project_id),
          afterInsert: (trx, id) => store.upsertMapping(trx, { ...mapping, file_id: id, is_dropped: 1 }),
        })),
      );
    } catch (error) {
      for (const { candidate } of batch) {
        const label = `${candidate.folder}/${candidate.name}`;
        report.problems.set(label, { projectId: candidate.projectId, reason: (error as Error).message });
        report.note(`could not attach ${label}: ${(error as Error).message}`);
      }
      return;
    }
    batch.forEach(({ candidate, mapping }, index) => this.attached(candidate, ids[index]!, mapping.project_id));
  }

  /** A stable file, staged: recorded, paired, recognised or attached. */
  async attach(candidate: Candidate, received: StagedFile, stat: fs.Stats): Promise<void> {
    const { store, report } = this.options;
    const label = `${candidate.folder}/${candidate.name}`;
    // The store, not the cache: a re-key may have moved the folder's project since the event.
    const projectId = await this.options.folders.projectOfFolderNow(candidate.folder);
    if (projectId === null) return;
    // SolarDesk's "Online only" list under another name (renamed or copied): never uploaded.
    if (received.isOnlineOnlyListing) {
      if (!report.ignored.has(label)) report.note(`${label}: a copy of SolarDesk's "Online only" list; not attached`);
      report.ignored.set(label, `a copy of SolarDesk's list of the files on the remote only (renamed?): never attached`);
      return;
    }
    const row = await store.fileRow(projectId, candidate.name);
    const mapping = { project_id: projectId, name: candidate.name, file_hash: received.sha256, size: stat.size, mtime_ms: stat.mtimeMs, ino: String(stat.ino) };
    if (row && row.file_hash === received.sha256) {
      // Touched, not changed.
      await store.updateMapping(mapping);
      return;
    }
    if (row && (await this.replaceEditedFile(row, candidate, received, mapping))) return;
    // The same bytes whose old name went away a moment ago: a move across disks, or a rename that changed the inode.
    if (!row) {
      for (const pending of this.options.deletes.unlinks.values()) {
        if (pending.row.file_hash === received.sha256) {
          await this.applyMove(pending, projectId, candidate.folder, candidate.name, stat);
          return;
        }
      }
    }
    // The same contents dropped twice into one project are one file.
    const same = await store.fileWithContents(this.options.orgId, projectId, received.sha256);
    if (same !== null) {
      await store.transaction(async (trx) => {
        // Mapped to a file made before (maybe in the app): not one attached from this drop.
        await store.upsertMapping(trx, { ...mapping, file_id: same, is_dropped: 0 });
        await this.options.outbox.releaseHeldDelete(trx, same);
      });
      if (row && row.file_id !== same) await this.options.deletes.retire(row, replacedReason(label));
      report.counts.deduplicated++;
      report.note(`${label}: same contents as file ${same} of this project; recognised, not attached twice`);
      return;
    }
    if (row) await this.attachReplacement(candidate, received, mapping, row);
    else await this.attachNew(candidate, received, mapping);
  }

  /**
   * An edit in place (issue 14): a mapped name whose stable contents changed. The
   * mapped private file keeps its id and takes the new contents in one engine write
   * (the engine keeps the earlier ones as a version; sync sends the change as one
   * upload), then the mapping records the new hash and stat. A crash between the two
   * finds the name changed again at the next rescan, and the engine takes the same
   * bytes again as no change. False when the mapped file is gone: then it is new.
   */
  private async replaceEditedFile(row: WatchFileRow, candidate: Candidate, received: ReceivedFile, mapping: Omit<FileMapping, 'file_id'>): Promise<boolean> {
    const { store, report, engine, outbox } = this.options;
    const current = await store.privateFile(row.file_id);
    if (!current) return false;
    const label = `${candidate.folder}/${candidate.name}`;
    // The file took other contents elsewhere since this copy was made (pulled while the agent was
    // stopped, or waiting while a program had it open): both sides changed. Sync holds the edit as a
    // conflict; the other side's bytes are fetched first, so the version they become downloads here.
    const conflict =
      current.file_hash !== null &&
      current.file_hash !== row.file_hash &&
      current.file_hash !== received.sha256 &&
      (await outbox.recordContentsConflict(row.file_id, { folderBase: row.file_hash, before: current.file_hash, local: received.sha256 }));
    if (conflict && engine.fetchMissingBlob) {
      await engine.fetchMissingBlob(current, { requestClass: 'background' }).catch((error: Error) => {
        report.note(`${label}: the other side's contents could not be fetched yet (${error.message}); the Versions list fetches them on demand`);
      });
    }
    await replaceFileContents(engine, { orgId: this.options.orgId, fileId: row.file_id, received, by: byUser(this.options.userId), fileName: candidate.name });
    await store.updateMapping(mapping);
    report.counts.replaced++;
    report.activity({ kind: 'replaced', projectId: mapping.project_id, fileId: row.file_id, name: candidate.name, isConflict: conflict });
    report.note(
      conflict
        ? `${label}: edited here while the file got new contents elsewhere; both are kept (the other side's as a version) and the conflict waits on the Sync screen: choose which is the file's contents`
        : `${label}: edited in place; private file ${row.file_id} has the new contents (the earlier ones are kept as a version)`,
    );
    return true;
  }

  private async attachNew(candidate: Candidate, received: ReceivedFile, mapping: Omit<FileMapping, 'file_id'>): Promise<void> {
    const fileId = await this.createFile(received, this.recordOf(candidate, received, mapping.project_id), async (trx, id) => {
      await this.options.store.upsertMapping(trx, { ...mapping, file_id: id, is_dropped: 1 });
    });
    this.attached(candidate, fileId, mapping.project_id);
  }

  /**
   * The "replaced" path: a mapped file edited in place (same name, new contents).
   * Today its new contents become a new private file mapped to the name, and the
   * earlier file's deletion is held ("Replaced: ..."), unless another name still shows it.
   */
  private async attachReplacement(candidate: Candidate, received: ReceivedFile, mapping: Omit<FileMapping, 'file_id'>, earlier: WatchFileRow): Promise<void> {
    const label = `${candidate.folder}/${candidate.name}`;
    let replacedHold: number | null = null;
    const fileId = await this.createFile(received, this.recordOf(candidate, received, mapping.project_id), async (trx, id) => {
      await this.options.store.upsertMapping(trx, { ...mapping, file_id: id, is_dropped: 1 });
      if (earlier.file_id !== id) replacedHold = await this.options.deletes.holdIfUnreferenced(trx, earlier.file_id, replacedReason(label));
    });
    this.attached(candidate, fileId, mapping.project_id);
    if (replacedHold !== null) {
      this.options.report.activity({ kind: 'delete_held', projectId: earlier.project_id, fileId: earlier.file_id, name: earlier.name, holdId: replacedHold, isGuarded: false });
      await this.options.deletes.afterHold(replacedHold, false);
    }
  }

  private recordOf(candidate: Candidate, received: ReceivedFile, projectId: number): NewFileRecord {
    return {
      orgId: this.options.orgId,
      userId: this.options.userId,
      projectId,
      title: candidate.name,
      fileName: candidate.name,
      mimeType: contentTypeFor(candidate.name, received.head),
    };
  }

  private attached(candidate: Candidate, fileId: number, projectId: number): void {
    this.options.report.counts.attached++;
    this.options.report.activity({ kind: 'attached', projectId, fileId, name: candidate.name });
    this.options.report.note(`${candidate.folder}/${candidate.name}: attached as private file ${fileId} of project ${projectId}`);
  }

  /** The engine's own file creation, as an upload through the API makes it (its cost does not grow with the project: issue 18). */
  private createFile(received: ReceivedFile, record: NewFileRecord, afterInsert: AfterInsert): Promise<number> {
    return storeNewFile(this.options.engine, received, record, afterInsert);
  }

  /** A rename or a move: the private file's title and project follow; nothing is uploaded again. */
  async applyMove(from: PendingUnlink, projectId: number, folder: string, name: string, stat: fs.Stats): Promise<void> {
    const { store, report, engine } = this.options;
    const { row } = from;
    const target = path.join(this.options.root, folder, name);
    this.options.deletes.unlinks.delete(fileKey(row.project_id, row.name));
    this.options.gate.forget(target);
    const file = await store.privateFile(row.file_id);
    if (!file) {
      await store.deleteMapping(store.db, row.project_id, row.name);
      await this.options.gate.consider(projectId, folder, name, target, stat);
      return;
    }
    const patch: { title?: string; project?: string } = {};
    if (name !== row.name) patch.title = name;
    if (projectId !== row.project_id && file.project_id !== projectId) patch.project = String(projectId);
    if (patch.title !== undefined || patch.project !== undefined) {
      const user = await store.user(this.options.userId);
      await updateFile(engine, await actorInOrg(engine, user, this.options.orgId), file, patch);
    }
    const displaced = await store.fileRow(projectId, name);
    await store.transaction(async (trx) => {
      await store.deleteMapping(trx, row.project_id, row.name);
      await store.upsertMapping(trx, { project_id: projectId, name, file_id: row.file_id, file_hash: row.file_hash, size: stat.size, mtime_ms: stat.mtimeMs, ino: String(stat.ino), is_dropped: row.is_dropped });
    });
    if (displaced && displaced.file_id !== row.file_id) await this.options.deletes.retire(displaced, replacedReason(`${folder}/${name}`));
    const moved = projectId !== row.project_id;
    if (moved) report.counts.moved++;
    else report.counts.renamed++;
    report.activity({ kind: 'renamed', projectId, fileId: row.file_id, from: `${from.folder}/${row.name}`, to: `${folder}/${name}`, isMove: moved });
    report.note(`${from.folder}/${row.name} -> ${folder}/${name}: ${moved ? `moved to project ${projectId}` : 'renamed'}; the title follows, nothing is uploaded again`);
  }
}
