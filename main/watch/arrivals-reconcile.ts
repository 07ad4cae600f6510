// Reconciling the folders with the store: project folders made and renamed
// (project-folders.ts), private files deleted elsewhere leaving the folder for the
// trash, files moved to another project elsewhere following into its folder, and
// arrivals: private files a folder does not show yet, their bytes fetched off the
// worker loop (content on demand) and then written in (arrivals.ts), a failed
// download retried after DOWNLOAD_RETRY_MS on the injected clock.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { type Clock, todayIso } from '../engine/clock.ts';
import type { EngineContext } from '../engine/context.ts';
import { blobPath } from '../engine/files/blob-store.ts';
import { isRealFolder, type ProjectFolders } from './project-folders.ts';
import { lockFileNamesFor, nameKey } from './folder-names.ts';
import { headOfFile, nameWithExtension } from './file-extension.ts';
import type { FolderOutbox } from './folder-outbox.ts';
import { agentEvictedDir, agentTempDir, HELD_EVICTED_DAYS, moveToTrash, placeArrival, purgeHeldEvicted } from './arrivals.ts';
import type { OpenFileCheck } from './open-files.ts';
import { type FolderReport, NEWER_VERSION_WAITING } from './folder-status.ts';
import { Queue } from './event-intake.ts';
import type { StabilityGate } from './stability-gate.ts';
import { lstatOrNull } from './file-stat.ts';
import { sameStat } from './attach.ts';
import type { KeptFilter, WatchStore } from './watch-store.ts';
import { ONLINE_ONLY_FILE_NAME, type OnlineOnlyEntry, updateOnlineOnly } from './online-only.ts';

/** A download that failed is tried again after this long. */
export const DOWNLOAD_RETRY_MS = 30_000;
/** Rows looked at per reconcile, so one pass stays short; the next picks up the rest. */
const DELETIONS_PER_PASS = 500;
const MOVES_PER_PASS = 200;
const NEW_CONTENTS_PER_PASS = 100;
const ARRIVALS_PER_PASS = 200;
const EVICTIONS_PER_PASS = 200;
/** The "Online only" lists are looked at again at least this often when nothing asked. */
const ONLINE_ONLY_INTERVAL_MS = 60_000;

/**
 * Files on demand (issue 15): which files' contents are kept on this computer. The
 * agent's contents policy (main/sync/contents-policy.ts), handed in by the composer;
 * without one (the embedded store) every file is kept.
 */
export interface ContentsKeeping {
  /** `projects` null: every project's files. `files`: single files kept besides (fetched on demand). */
  kept(): Promise<{ projects: ReadonlyMap<number, unknown> | null; files: ReadonlySet<number> }>;
}

export interface ArrivalsReconcileOptions {
  root: string;
  engine: Pick<EngineContext, 'store' | 'fetchMissingBlob'>;
  store: WatchStore;
  folders: ProjectFolders;
  outbox: FolderOutbox;
  report: FolderReport;
  clock: Clock;
  orgId: number;
  /** Folders are checked against the projects, and arrivals looked for, at least this often. */
  reconcileIntervalMs: number;
  gate: Pick<StabilityGate, 'consider' | 'forget'>;
  /** A project folder found again (or made anew): it is listed again. */
  rescanProject: (projectId: number) => void;
  /** Bytes arrived: the worker loop should place them. */
  wake: () => void;
  /** Files on demand: what is kept here (absent: everything). */
  contents?: ContentsKeeping;
  /** A folder copy this part removes (an eviction) is expected: no unlink of it may become a held delete. */
  expectRemoval?: (projectId: number, name: string) => void;
  /** Which files programs hold open for writing, listed once per pass (open-files.ts; a test may stand in for /proc). */
  openFiles: () => OpenFileCheck;
  closed: () => boolean;
}

export class ArrivalsReconcile {
  /** When the next reconcile is due, on the clock (0: none planned yet). */
  dueAt = 0;
  /** Someone asked (a change, a sync cycle): not quiet until it ran. */
  requested = false;
  private readonly toFetch = new Queue<number>();
  private readonly fetching = new Set<number>();
  private readonly ready = new Queue<number>();
  readonly downloadProblems = new Map<number, { reason: string; retryAt: number }>();
  private fetchLoopRunning = false;
  /** Per project folder, the text its "Online only" list was last made from ('' none); unknown projects are looked at once. */
  private readonly onlineOnlyListed = new Map<number, string>();
  private onlineOnlyDueAt = 0;
  private fetchDone: Promise<void> = Promise.resolve();
  /** The day the eviction holding area was last pruned ('' not yet). */
  private heldEvictedPurgedOn = '';

  constructor(private readonly options: ArrivalsReconcileOptions) {}

  /** A person pressed Retry on a download that failed: it is tried at the next pass instead of after its wait. False when none failed. */
  retryNow(fileId: number): boolean {
    const problem = this.downloadProblems.get(fileId);
    if (!problem) return false;
    problem.retryAt = 0;
    return true;
  }

  private now(): number {
    return this.options.clock.now().getTime();
  }

  /** Something may have changed in the store: reconcile in a moment (the caller wakes the loop). */
  request(): void {
    this.requested = true;
    const at = this.now() + 200;
    if (this.dueAt === 0 || this.dueAt > at) this.dueAt = at;
  }

  isDue(now = this.now()): boolean {
    return this.dueAt !== 0 && now >= this.dueAt;
  }

  /** Nothing being fetched or waiting to be written. */
  get idle(): boolean {
    return this.toFetch.length === 0 && this.fetching.size === 0 && this.ready.length === 0;
  }

  /** The disk went away: fetched bytes wait for the next reconcile. */
  dropReady(): void {
    this.ready.clear();
  }

  /** Downloads under way end. */
  async finish(): Promise<void> {
    await this.fetchDone;
  }

  async reconcile(): Promise<void> {
    const { folders, report, root } = this.options;
    this.dueAt = this.now() + this.options.reconcileIntervalMs;
    const wasRequested = this.requested;
    this.requested = false;
    const changes = await folders.reconcile();
    for (const { projectId, folder } of changes.created) {
      report.note(`folder "${folder}" made for project ${projectId}`);
      // A folder taken over (it was there before its project reached this store: the first sync
      // after a sign-in) may already hold files: looked at now, like a folder found again.
      this.options.rescanProject(projectId);
    }
    for (const { from, to } of changes.renamed) report.note(`folder "${from}" renamed to "${to}"`);
    for (const { projectId, folder } of [...changes.adopted, ...changes.lost]) {
      report.note(`folder of project ${projectId} is now "${folders.folderOf(projectId)}" (was "${folder}")`);
      this.options.rescanProject(projectId);
    }
    for (const { projectId } of [...changes.created, ...changes.adopted, ...changes.lost]) report.forgetOutsideIn(folders.folderOf(projectId));
    for (const { folder, reason } of changes.problems) report.problems.set(`${folder}/`, { projectId: null, reason: `the folder could not be updated: ${reason}` });
    const refusedBefore = report.refusedFolders;
    report.refusedFolders = new Map(changes.refused.map(({ projectId, folder, reason }) => [`${folder}/`, `The folder of project ${projectId} is refused: ${reason}.`]));
    for (const { projectId, folder } of changes.refused) {
      report.outside.delete(folder);
      // Said once when it happens, not on every pass.
      if (!refusedBefore.has(`${folder}/`)) report.note(`folder "${folder}" of project ${projectId} is not a real folder (a link?): refused, nothing read from it or written into it`);
    }
    await this.followDeletionsElsewhere();
    await this.followMovesElsewhere();
    await this.followContentsChangedElsewhere();
    const kept = await this.keptFilter();
    await this.queueArrivals(kept);
    if (this.options.contents) {
      if (kept) await this.evictNotKept(kept);
      if (todayIso(this.options.clock) !== this.heldEvictedPurgedOn) {
        this.heldEvictedPurgedOn = todayIso(this.options.clock);
        const purged = await purgeHeldEvicted(root, this.options.clock);
        if (purged > 0) report.note(`removed ${purged} day${purged === 1 ? '' : 's'} of copies held in ${path.relative(root, agentEvictedDir(root))} for more than ${HELD_EVICTED_DAYS} days`);
      }
      // The lists change with the store, a pin or an open (each requests a pass) or the folders; else once a minute, not every pass.
      const foldersChanged = changes.created.length + changes.adopted.length + changes.lost.length + changes.renamed.length > 0;
      if (wasRequested || foldersChanged || this.now() >= this.onlineOnlyDueAt) {
        this.onlineOnlyDueAt = this.now() + ONLINE_ONLY_INTERVAL_MS;
        await this.listOnlineOnly(kept);
      }
    }
  }

  /** What files on demand keeps here, as the store's queries take it; undefined: everything. */
  private async keptFilter(): Promise<KeptFilter | undefined> {
    if (!this.options.contents) return undefined;
    const kept = await this.options.contents.kept();
    if (kept.projects === null) return undefined;
    return { projectIds: [...kept.projects.keys()], fileIds: [...kept.files] };
  }

  /**
   * Files on demand: folder copies of files no longer kept here (the project was
   * unpinned, its role or recent open lapsed) leave the folder, but only a copy
   * identical to the synced one: the mapping's hash is the record's, nothing of the
   * file waits in the outbox (no change, no hold), the copy on disk is the one mapped
   * (size, mtime, inode) and no editing program has it open. The mapping goes first
   * and the deletes part is told, so the removal never becomes a held or remote delete.
   * The copy is set aside under .solardesk/tmp/ and looked at again there: one written
   * in between is put back, mapped, for the gate to take as an edit.
   */
  private async evictNotKept(kept: KeptFilter): Promise<void> {
    const { store, folders, report, root, outbox, clock } = this.options;
    const rows = await store.mappingsToEvict({ kept, withQueuedChange: (fileIds) => outbox.filesWithQueuedChange(fileIds), limit: EVICTIONS_PER_PASS });
    if (rows.length === 0) return;
    const openFiles = this.options.openFiles();
    const remoteHashes = await outbox.remoteFileHashes(rows.map((row) => row.file_id));
    for (const row of rows) {
      if (this.options.closed()) return;
      // Only bytes the remote is known to hold (the merge base, last read from the remote, names them) leave this computer.
      if (remoteHashes.get(row.file_id) !== row.file_hash) continue;
      const folder = folders.folderOf(row.project_id);
      if (folder === null || !(await isRealFolder(path.join(root, folder)))) continue;
      const file = path.join(root, folder, row.name);
      const stat = await lstatOrNull(file);
      if (!stat || !sameStat(row, stat)) continue;
      if (await this.isInUse(folder, row.name, stat, openFiles)) continue;
      await store.deleteMapping(store.db, row.project_id, row.name);
      this.options.expectRemoval?.(row.project_id, row.name);
      this.options.gate.forget(file);
      let held: string;
      try {
        // Held for HELD_EVICTED_DAYS, never unlinked: a program that wrote to it after all still finds its bytes there.
        held = await moveToTrash(root, file, folder, clock, agentEvictedDir(root));
      } catch (error) {
        // Gone or locked meanwhile: mapped again as it was; the next pass looks again.
        await store.upsertMapping(store.db, row);
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') report.note(`${folder}/${row.name}: could not be removed to free space (${(error as Error).message})`);
        continue;
      }
      const after = await lstatOrNull(held);
      if (after && sameStat(row, after)) {
        report.note(`${folder}/${row.name}: removed from this computer (identical to the remote's copy; project not kept here: pin it to keep its files). A copy is held in ${path.relative(root, held)} for ${HELD_EVICTED_DAYS} days`);
        continue;
      }
      // Written in between: back in its place and mapped, so the gate sees an edit of this file.
      try {
        await fsp.link(held, file);
        await fsp.rm(held, { force: true });
        await store.upsertMapping(store.db, row);
      } catch {
        report.note(`${folder}/${row.name} changed while being removed; the changed copy is kept in ${path.relative(root, held)}`);
      }
    }
  }

  /**
   * Whether a program may still write to a folder copy: an editing program's lock
   * file is beside it, or some process holds it open for writing (open-files.ts; where
   * that cannot be known, it changed in the last minutes).
   */
  private async isInUse(folder: string, name: string, stat: fs.Stats, openFiles: OpenFileCheck): Promise<boolean> {
    for (const lock of lockFileNamesFor(name)) if (await lstatOrNull(path.join(this.options.root, folder, lock))) return true;
    return openFiles.mayBeWritten(path.join(this.options.root, folder, name), stat);
  }

  /**
   * Files on demand: each project folder with files kept on the remote only gets
   * ONLINE_ONLY_FILE_NAME listing them, rewritten only when the list changes, removed
   * (if SolarDesk wrote it) once it is empty. A file of that name the user made is
   * never written over: the status lists it as a problem.
   */
  private async listOnlineOnly(kept: KeptFilter | undefined): Promise<void> {
    const { store, folders, report, root, outbox, orgId } = this.options;
    const rows = kept ? await store.filesOnlineOnly({ orgId, kept, withQueuedDelete: (fileIds) => outbox.filesWithQueuedDelete(fileIds) }) : [];
    const byProject = new Map<number, OnlineOnlyEntry[]>();
    for (const row of rows) byProject.set(row.project_id, [...(byProject.get(row.project_id) ?? []), row]);
    const projects = new Set([...byProject.keys(), ...folders.projectIds().filter((id) => this.onlineOnlyListed.get(id) !== '')]);
    for (const projectId of projects) {
      if (this.options.closed()) return;
      const entries = byProject.get(projectId) ?? [];
      const signature = entries.length === 0 ? '' : JSON.stringify(entries);
      if (this.onlineOnlyListed.get(projectId) === signature) continue;
      const folder = folders.folderOf(projectId);
      if (folder === null || !(await isRealFolder(path.join(root, folder)))) continue;
      const label = `${folder}/${ONLINE_ONLY_FILE_NAME}`;
      try {
        const { outcome, notesKeptIn } = await updateOnlineOnly(root, path.join(root, folder), entries);
        if (notesKeptIn) report.note(`${label}: text typed into it was moved to "${folder}/${notesKeptIn}" before the list changed (the list keeps no text of yours)`);
        if (outcome === 'not_ours') {
          report.problems.set(label, { projectId, reason: `a file of this name that SolarDesk did not write is here, so the list of the files kept on the remote only is not written (rename that file to get the list)` });
        } else {
          report.problems.delete(label);
          if (outcome === 'written') report.note(`${label}: lists ${entries.length} file${entries.length === 1 ? '' : 's'} kept on the remote only`);
        }
        this.onlineOnlyListed.set(projectId, signature);
      } catch (error) {
        report.problems.set(label, { projectId, reason: `the list of the files kept on the remote only could not be written: ${(error as Error).message}` });
      }
    }
  }

  /**
   * New contents of a mapped file made elsewhere (on the remote, pulled by sync; or
   * in the app): a folder copy unchanged since it was mapped takes them, written
   * into .solardesk/tmp/ and renamed over it (so it is never half-written), and its
   * mapping follows. A copy changed here meanwhile is left alone: the stability
   * gate takes it as an edit in place (attach.ts makes that a contents conflict). A
   * copy a program has open (a lock file beside it, or open for writing) is never
   * written over: the new contents wait, fetched, and the status says so, until the
   * program lets go. The bytes are fetched here if missing (on the worker loop:
   * such changes are rare, unlike arrivals).
   */
  private async followContentsChangedElsewhere(): Promise<void> {
    const { store, folders, report, root, engine } = this.options;
    const rows = await store.mappingsWithNewContents(NEW_CONTENTS_PER_PASS);
    const stillWaiting = new Set<string>();
    const openFiles = this.options.openFiles();
    for (const row of rows) {
      const folder = folders.folderOf(row.project_id);
      if (folder === null || !(await isRealFolder(path.join(root, folder)))) continue;
      const target = path.join(root, folder, row.name);
      const stat = await lstatOrNull(target);
      if (!stat || !sameStat(row, stat)) continue;
      const file = await store.privateFile(row.file_id);
      if (!file?.file_hash) continue;
      const problem = this.downloadProblems.get(row.file_id);
      if (problem && problem.retryAt > this.now()) continue;
      const blob = blobPath(engine.store.fileRoot, file.file_hash);
      const temp = path.join(agentTempDir(root), `contents-${row.file_id}-${file.file_hash.slice(0, 16)}`);
      const label = `${folder}/${row.name}`;
      try {
        if (!fs.existsSync(blob)) {
          if (!engine.fetchMissingBlob) continue;
          await engine.fetchMissingBlob(file, { requestClass: 'background' });
        }
        if (await this.isInUse(folder, row.name, stat, openFiles)) {
          stillWaiting.add(label);
          if (!report.newerWaiting.has(label)) report.note(`${label}: ${NEWER_VERSION_WAITING} (private file ${row.file_id})`);
          report.newerWaiting.set(label, { projectId: row.project_id, fileId: row.file_id });
          continue;
        }
        await fsp.mkdir(agentTempDir(root), { recursive: true });
        await fsp.copyFile(blob, temp);
        // Changed here, or opened, while the bytes came: the edit made here is the one to keep.
        const before = await lstatOrNull(target);
        if (!before || !sameStat(row, before) || (await this.isInUse(folder, row.name, before, this.options.openFiles()))) continue;
        await fsp.rename(temp, target);
        const placed = await fsp.lstat(target);
        await store.updateMapping({ project_id: row.project_id, name: row.name, file_hash: file.file_hash, size: placed.size, mtime_ms: placed.mtimeMs, ino: String(placed.ino) });
        this.options.gate.forget(target);
        this.downloadProblems.delete(row.file_id);
        report.note(`${label}: new contents of private file ${row.file_id} made elsewhere, written into the folder`);
        report.activity({ kind: 'written', projectId: row.project_id, fileId: row.file_id, name: row.name });
      } catch (error) {
        // Tried again after a while, not at every reconcile; the status lists it as waiting for its bytes.
        this.downloadProblems.set(row.file_id, { reason: `new contents: ${(error as Error).message}`, retryAt: this.now() + DOWNLOAD_RETRY_MS });
      } finally {
        await fsp.rm(temp, { force: true });
      }
    }
    // Written in, taken as an edit (a conflict), or gone: no longer waiting.
    if (rows.length < NEW_CONTENTS_PER_PASS) for (const label of [...report.newerWaiting.keys()]) if (!stillWaiting.has(label)) report.newerWaiting.delete(label);
  }

  /** A private file deleted elsewhere (the remote, the app): its unchanged copy leaves the folder for .solardesk/trash/. */
  private async followDeletionsElsewhere(): Promise<void> {
    const { store, folders, report, root } = this.options;
    for (const row of await store.mappingsOfDeletedFiles(DELETIONS_PER_PASS)) {
      const folder = folders.folderOf(row.project_id);
      await store.deleteMapping(store.db, row.project_id, row.name);
      if (folder === null) continue;
      const file = path.join(root, folder, row.name);
      const stat = await lstatOrNull(file);
      if (!stat) continue;
      if (sameStat(row, stat)) {
        const kept = await moveToTrash(root, file, folder, this.options.clock);
        report.counts.trashed++;
        report.note(`${folder}/${row.name} was deleted elsewhere; the local copy is kept in ${path.relative(root, kept)}`);
      } else {
        // Changed here since: a new file to attach, not one to remove.
        await this.options.gate.consider(row.project_id, folder, row.name, file, stat);
      }
    }
  }

  /** A private file moved to another project elsewhere: its copy moves to that project's folder. */
  private async followMovesElsewhere(): Promise<void> {
    const { store, folders, report, root } = this.options;
    for (const row of await store.mappingsOfMovedFiles(MOVES_PER_PASS)) {
      const fromFolder = folders.folderOf(row.project_id);
      const toFolder = row.now_project === null ? null : folders.folderOf(row.now_project);
      if (fromFolder === null || toFolder === null || row.now_project === null) continue;
      const nowProject = row.now_project;
      const source = path.join(root, fromFolder, row.name);
      const stat = await lstatOrNull(source);
      if (!stat || !sameStat(row, stat)) continue;
      const claimed = new Set((await store.namesInProject(nowProject)).map(nameKey));
      const placed = await placeArrival(root, path.join(root, toFolder), row.name, source, row.file_hash, (key) => claimed.has(key));
      await fsp.rm(source, { force: true });
      await store.transaction(async (trx) => {
        await store.deleteMapping(trx, row.project_id, row.name);
        await store.upsertMapping(trx, { project_id: nowProject, name: placed.name, file_id: row.file_id, file_hash: row.file_hash, size: placed.size, mtime_ms: placed.mtimeMs, ino: placed.ino, is_dropped: row.is_dropped });
      });
      report.note(`${fromFolder}/${row.name} moved to "${toFolder}" (its project changed elsewhere)`);
    }
  }

  /** Private files of a project with a folder that the folder does not show yet (attached remotely or in the app). */
  private async queueArrivals(kept: KeptFilter | undefined): Promise<void> {
    const ids = await this.options.store.filesToArrive({
      orgId: this.options.orgId,
      refusedProjectIds: this.options.folders.refusedProjectIds(),
      withQueuedDelete: (fileIds) => this.options.outbox.filesWithQueuedDelete(fileIds),
      limit: ARRIVALS_PER_PASS,
      ...(kept ? { kept } : {}),
    });
    const now = this.now();
    for (const id of ids) {
      if (this.fetching.has(id)) continue;
      const problem = this.downloadProblems.get(id);
      if (problem && problem.retryAt > now) continue;
      this.fetching.add(id);
      this.toFetch.push(id);
    }
    if (this.toFetch.length > 0 && !this.fetchLoopRunning) this.fetchDone = this.fetchLoop();
  }

  /** Brings missing bytes down (content on demand) off the worker loop, then hands the file to it. */
  private async fetchLoop(): Promise<void> {
    if (this.fetchLoopRunning) return;
    this.fetchLoopRunning = true;
    const { engine, store } = this.options;
    try {
      for (let id = this.toFetch.shift(); id !== undefined && !this.options.closed(); id = this.toFetch.shift()) {
        try {
          const file = await store.privateFile(id);
          if (!file?.file_hash) {
            this.fetching.delete(id);
            continue;
          }
          if (!fs.existsSync(blobPath(engine.store.fileRoot, file.file_hash))) {
            if (!engine.fetchMissingBlob) throw new Error('its contents are not on this machine');
            // Prefetch for a kept project: background work, paced behind what a user asked for.
            await engine.fetchMissingBlob(file, { requestClass: 'background' });
          }
          this.downloadProblems.delete(id);
          this.ready.push(id);
          this.options.wake();
        } catch (error) {
          this.fetching.delete(id);
          this.downloadProblems.set(id, { reason: (error as { body?: { detail?: string } }).body?.detail ?? (error as Error).message, retryAt: this.now() + DOWNLOAD_RETRY_MS });
        }
      }
    } finally {
      this.fetchLoopRunning = false;
    }
  }

  /** Writes the next fetched file into its folder. False when none waits. */
  async placeNext(): Promise<boolean> {
    const id = this.ready.shift();
    if (id === undefined) return false;
    await this.place(id);
    return true;
  }

  private async place(id: number): Promise<void> {
    const { store, folders, report, root, engine } = this.options;
    this.fetching.delete(id);
    const file = await store.privateFile(id);
    if (!file?.file_hash || file.project_id === null) return;
    const projectId = file.project_id;
    const folder = folders.folderOf(projectId);
    if (folder === null) return;
    if (await store.isFileMapped(store.db, id)) return;
    const claimed = new Set((await store.namesInProject(projectId)).map(nameKey));
    report.current = { path: `${folder}/${file.title}`, note: 'writing into the folder' };
    try {
      const blob = blobPath(engine.store.fileRoot, file.file_hash);
      const placed = await placeArrival(
        root,
        path.join(root, folder),
        await nameWithExtension(file.title, file.file_name, file.mime_type, () => headOfFile(blob), `file-${file.id}`),
        blob,
        file.file_hash,
        (key) => claimed.has(key),
      );
      await store.upsertMapping(store.db, { project_id: projectId, name: placed.name, file_id: id, file_hash: file.file_hash, size: placed.size, mtime_ms: placed.mtimeMs, ino: placed.ino });
      this.options.gate.forget(path.join(root, folder, placed.name));
      report.counts.downloaded++;
      if (!placed.wasThere) report.activity({ kind: 'written', projectId, fileId: id, name: placed.name });
      report.note(`${folder}/${placed.name}: ${placed.wasThere ? 'already there' : 'written'} for private file ${id}`);
    } catch (error) {
      this.downloadProblems.set(id, { reason: (error as Error).message, retryAt: this.now() + DOWNLOAD_RETRY_MS });
    } finally {
      report.current = null;
    }
  }
}
