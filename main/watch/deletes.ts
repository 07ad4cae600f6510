// Deletes made in the folders: an unlink waits the pair window (on the injected
// clock) for an add it may pair with (a rename or a move, see attach.ts); alone past
// it, it is a deletion, held in sync's outbox (FolderOutbox) until the user confirms
// or restores it. A folder, or the root, that loses more than `minFiles` files and
// more than `fraction` of them within a minute trips the mass-delete guard: every
// one of those deletions is held with its reason, none confirmed automatically.
import path from 'node:path';
import { MASS_DELETE_GUARD_REASON } from '../../shared/held-deletes.ts';
import type { WatchFileRow } from './watch-tables.ts';
import { type Clock, nowIso } from '../engine/clock.ts';
import { byUser } from '../engine/changes/change-feed.ts';
import type { ProjectFolders } from './project-folders.ts';
import type { FolderOutbox } from './folder-outbox.ts';
import type { FolderReport } from './folder-status.ts';
import { lstatOrNull } from './file-stat.ts';
import type { WatchDb, WatchStore } from './watch-store.ts';

export interface PendingUnlink {
  row: WatchFileRow;
  folder: string;
  at: number;
}

/** A file of a project folder, as the pending unlinks are keyed. */
export const fileKey = (projectId: number, name: string) => `${projectId}\0${name}`;

/** The window in which losses add up for the mass-delete guard. */
const GUARD_WINDOW_MS = 60_000;

type GuardScope = { scope: string; lost: number; total: number };

export const deletedReason = (label: string) =>
  `Deleted in the project folder (${label}). Nothing is deleted until you decide: Restore puts it back in the folder; Delete removes the file for good (everywhere it is synced).`;

const guardedReason = (label: string, guard: GuardScope) =>
  `${MASS_DELETE_GUARD_REASON}: ${guard.scope} lost ${guard.lost} of its ${guard.total} files at once (a missing drive, a bad mount, or a mistake?). ${label} is kept until you decide: Restore puts it back in the folder; Delete removes the file for good (everywhere it is synced).`;

export interface DeletesOptions {
  root: string;
  store: WatchStore;
  folders: Pick<ProjectFolders, 'folderOf'>;
  outbox: FolderOutbox;
  report: FolderReport;
  clock: Clock;
  /** How long an unlink waits for the add it may pair with. */
  pairWindowMs: number;
  massDelete: { minFiles: number; fraction: number };
  /** The user a confirmed deletion is made by (the agent's own). */
  userId: number;
  /** Confirm deletions at once (not those the guard holds). */
  confirmDeletes: boolean;
  onDeleteHeld?: () => void;
  /** The file no longer waits in the stability gate. */
  forgetCandidate: (file: string) => void;
}

export class Deletes {
  /** Mapped files whose name went, waiting out the pair window, by fileKey. */
  readonly unlinks = new Map<string, PendingUnlink>();
  private readonly recentLosses: Array<{ projectId: number; at: number }> = [];

  constructor(private readonly options: DeletesOptions) {}

  private now(): number {
    return this.options.clock.now().getTime();
  }

  get size(): number {
    return this.unlinks.size;
  }

  clear(): void {
    this.unlinks.clear();
  }

  /** A mapped name went (an event): it waits for an add to pair with. */
  async fileGone(projectId: number, folder: string, name: string, file: string): Promise<void> {
    this.options.forgetCandidate(file);
    this.options.report.problems.delete(`${folder}/${name}`);
    const row = await this.options.store.fileRow(projectId, name);
    if (row && !this.unlinks.has(fileKey(projectId, name))) this.unlinks.set(fileKey(projectId, name), { row, folder, at: this.now() });
  }

  /** A mapped name missing from its folder (a rescan): it waits like an unlink, unless it already does. */
  missing(row: WatchFileRow, folder: string, at: number): void {
    const key = fileKey(row.project_id, row.name);
    if (!this.unlinks.has(key)) this.unlinks.set(key, { row, folder, at });
  }

  /** The name is there (again): nothing to delete. */
  present(projectId: number, name: string): void {
    this.unlinks.delete(fileKey(projectId, name));
  }

  /** When the first unlink's pair window ends, on the clock; undefined when none waits. */
  nextDueAt(): number | undefined {
    const first = this.unlinks.values().next().value;
    return first ? first.at + this.options.pairWindowMs : undefined;
  }

  isDue(now = this.now()): boolean {
    const at = this.nextDueAt();
    return at !== undefined && at <= now;
  }

  /** Holds the deletion of a private file that no other path in the folders still shows. Returns the hold's outbox id, or null. */
  async holdIfUnreferenced(db: WatchDb, fileId: number, reason: string): Promise<number | null> {
    const { store, outbox, clock } = this.options;
    if (await store.isFileMapped(db, fileId)) return null;
    if (!(await store.privateFileExists(db, fileId))) return null;
    return outbox.holdDelete(db, fileId, reason, nowIso(clock));
  }

  /** A mapped file that no name shows any more: its deletion is held (and confirmed with --confirm-deletes). */
  async retire(row: WatchFileRow, reason: string): Promise<void> {
    const hold = await this.holdIfUnreferenced(this.options.store.db, row.file_id, reason);
    if (hold !== null) await this.afterHold(hold, false);
  }

  async afterHold(outboxId: number, guarded: boolean): Promise<void> {
    const { report, outbox } = this.options;
    report.counts.held++;
    this.options.onDeleteHeld?.();
    if (!this.options.confirmDeletes || guarded) return;
    const { fileId } = await outbox.confirmHeldDelete(outboxId, byUser(this.options.userId));
    report.counts.confirmed++;
    report.note(`deletion of file ${fileId} confirmed (--confirm-deletes)`);
  }

  /** Unlinks that found no add to pair with within the window: deletions, held; many at once trip the guard. */
  async processDue(): Promise<void> {
    const { store, folders, report, root, pairWindowMs, massDelete } = this.options;
    const now = this.now();
    const due: PendingUnlink[] = [];
    for (const [key, pending] of this.unlinks) {
      if (pending.at + pairWindowMs > now) continue;
      this.unlinks.delete(key);
      // Still gone, from the folder the project has now (it may have been renamed meanwhile)?
      const folder = folders.folderOf(pending.row.project_id);
      const row = await store.fileRow(pending.row.project_id, pending.row.name);
      if (!row || row.file_id !== pending.row.file_id || folder === null) continue;
      if (await lstatOrNull(path.join(root, folder, row.name))) continue;
      due.push({ ...pending, row, folder });
    }
    if (due.length === 0) return;
    while (this.recentLosses.length && this.recentLosses[0]!.at < now - GUARD_WINDOW_MS) this.recentLosses.shift();
    const pendingByProject = new Map<number, number>();
    for (const pending of [...due, ...this.unlinks.values()]) pendingByProject.set(pending.row.project_id, (pendingByProject.get(pending.row.project_id) ?? 0) + 1);
    const recentByProject = new Map<number, number>();
    for (const loss of this.recentLosses) recentByProject.set(loss.projectId, (recentByProject.get(loss.projectId) ?? 0) + 1);
    const lostAll = [...pendingByProject.values()].reduce((sum, n) => sum + n, 0) + this.recentLosses.length;
    const totalAll = (await store.countFiles()) + this.recentLosses.length;
    const trips = (lost: number, total: number) => lost > massDelete.minFiles && lost > total * massDelete.fraction;
    const rootGuard = trips(lostAll, totalAll) ? { scope: 'the folder root', lost: lostAll, total: totalAll } : null;
    const projectGuards = new Map<number, GuardScope>();
    for (const [projectId, pendingCount] of pendingByProject) {
      const recent = recentByProject.get(projectId) ?? 0;
      const lost = pendingCount + recent;
      const total = (await store.countFiles(projectId)) + recent;
      if (trips(lost, total)) projectGuards.set(projectId, { scope: `"${folders.folderOf(projectId) ?? projectId}"`, lost, total });
    }
    for (const guard of [rootGuard, ...projectGuards.values()]) if (guard) report.recordGuard(guard, now);
    for (const pending of due) {
      const label = `${pending.folder}/${pending.row.name}`;
      const guard = rootGuard ?? projectGuards.get(pending.row.project_id) ?? null;
      const hold = await store.transaction(async (trx) => {
        await store.deleteMapping(trx, pending.row.project_id, pending.row.name);
        return this.holdIfUnreferenced(trx, pending.row.file_id, guard ? guardedReason(label, guard) : deletedReason(label));
      });
      this.recentLosses.push({ projectId: pending.row.project_id, at: now });
      if (hold !== null) {
        report.note(`${label} deleted in the folder: deletion held${guard ? ' by the mass-delete guard' : ''}`);
        report.activity({ kind: 'delete_held', projectId: pending.row.project_id, fileId: pending.row.file_id, name: pending.row.name, holdId: hold, isGuarded: guard !== null });
        await this.afterHold(hold, guard !== null);
      }
    }
  }
}
