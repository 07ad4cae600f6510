// The project folders watcher: composes the parts, each with one job, and runs them
// on one worker loop, one step at a time, so no two steps race:
//   event-intake.ts        chokidar, the event queue, bursts -> rescans
//   folder-scan.ts         listing a project folder or the root again
//   stability-gate.ts      candidates, the stability window, the no-follow open, staging
//   attach.ts              attaching, duplicates, renames and moves, the "replaced" path
//   deletes.ts             pending unlinks, held deletes, the mass-delete guard
//   arrivals-reconcile.ts  folders vs projects, deletions and moves made elsewhere, arrivals
//   folder-status.ts       the lists, counts and the status answer
//   watch-store.ts         every query on the watch_* tables
//   worker-loop.ts         the loop and its timers
// This file owns the root (missing, emptied, replaced), routes events to the parts
// and decides what the next step is. Every window, age and due time is read on the
// injected clock. docs/project-folders.md explains the behaviour; sync-lessons.md "Files" why.
import type fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { EngineContext } from '../engine/context.ts';
import { type Clock, systemClock } from '../engine/clock.ts';
import type { RecordChangeEvent } from '../engine/changes/change-feed.ts';
import { AGENT_FOLDER, ProjectFolders } from './project-folders.ts';
import type { FolderOutbox } from './folder-outbox.ts';
import type { FolderStatus } from '../../shared/schemas/folder.ts';
import { EventIntake, locate, type WatchEvent } from './event-intake.ts';
import { FolderScan } from './folder-scan.ts';
import type { StabilityGate } from './stability-gate.ts';
import type { Attacher } from './attach.ts';
import type { Deletes } from './deletes.ts';
import { wireFileParts } from './file-parts.ts';
import { ArrivalsReconcile, type ContentsKeeping } from './arrivals-reconcile.ts';
import { filesOpenForWriting, OpenFileCheck } from './open-files.ts';
import { type FolderActivity, FolderReport, folderStatus, type WatchCounts } from './folder-status.ts';
import { WatchStore } from './watch-store.ts';
import { systemTimers, WorkerLoop } from './worker-loop.ts';

export interface FolderWatcherOptions {
  root: string;
  engine: EngineContext;
  /** Held deletes and what waits to go out: sync's outbox, handed in by the composer. */
  outbox: FolderOutbox;
  orgId: number;
  /** The user files are attached as (the agent's own). */
  userId: number;
  /** A file is complete once its size and mtime have not changed for this long (default 2000). */
  stabilityWindowMs?: number;
  /** How long an unlink waits for the add it may pair with (a rename or move) before it counts as a delete. */
  pairWindowMs?: number;
  /** Full rescans, about this often (±20 % jitter; default 10 minutes). */
  rescanIntervalMs?: number;
  /** Folders are checked against the projects, and arrivals looked for, at least this often (default 5000). */
  reconcileIntervalMs?: number;
  /** Past this many queued events for one folder (four times it for all), the queue is dropped and rescanned (default 1000). */
  burstThreshold?: number;
  /** Confirm deletions made in the folders at once (not those the mass-delete guard holds). */
  confirmDeletes?: boolean;
  /** A folder (or the root) that lost more than `minFiles` files and more than `fraction` of them at once trips the guard. */
  massDelete?: { minFiles: number; fraction: number };
  /** A deletion made in a folder is now held for the user (the sync status counts them). */
  onDeleteHeld?: () => void;
  log?: (line: string) => void;
  /** What a person's timeline shows: the core's activity log (main/core/activity-recorder.ts). */
  onActivity?: (activity: FolderActivity) => void;
  /** What decides every window, age and due time here (default: the system clock); the agent passes the engine's. */
  clock?: Clock;
  /**
   * Folders directly under the root that belong to another workspace (the embedded
   * store's "On this computer" under a synced root), by name, with why: never a
   * project's, never looked into, reported once as outside with that reason.
   */
  foreignFolders?: ReadonlyMap<string, string>;
  /**
   * The root was claimed just now (it had no owner file): whatever the store recorded
   * of folders and files describes an earlier root (a new folder root the user chose
   * without moving the folders). It is forgotten at start, so fresh folders are made
   * and the files arrive in them, instead of every recorded file being believed
   * deleted and held. A root moved with its folders keeps its owner file and its records.
   */
  rootIsNew?: boolean;
  /** Files on demand (issue 15): which files' contents are kept here; absent: every file is written into its folder. */
  contents?: ContentsKeeping;
  /** Lists the files programs hold open for writing (default: every process's /proc/<pid>/fd; open-files.ts). */
  filesOpenForWriting?: () => Promise<Set<string> | null>;
}

/**
 * A project or file changed here (the app, the local API, this watcher): its
 * folder and arrivals follow soon. What sync brings from the remote is left to
 * the end of its cycle (the agent's requestReconcile on idle), so a pull is
 * reconciled once, not record by record.
 */
function changeFoldersFollow(change: RecordChangeEvent): boolean {
  return change.by.kind !== 'sync' && (change.model === 'project' || change.model === 'private_file');
}

// The status's shape is the API's: shared/schemas/folder.ts.
export type { FileState, FolderFileStatus, FolderStatus } from '../../shared/schemas/folder.ts';

const ROOT_CHECK_INTERVAL_MS = 1000;

export class FolderWatcher {
  readonly root: string;
  /** What it did, in numbers (tests read them). */
  readonly counts: WatchCounts;
  private readonly store: WatchStore;
  private readonly folders: ProjectFolders;
  private readonly report: FolderReport;
  private readonly loop: WorkerLoop;
  private readonly intake: EventIntake;
  private readonly scan: FolderScan;
  private readonly gate: StabilityGate;
  private readonly attacher: Attacher;
  private readonly deletes: Deletes;
  private readonly arrivals: ArrivalsReconcile;
  private readonly windowMs: number;
  private readonly rescanIntervalMs: number;
  private readonly clock: Clock;
  private readonly foreignFolders: ReadonlyMap<string, string>;

  private state: FolderStatus['state'] = 'starting';
  private detail: string | null = null;
  /** The root's inode: a root removed and made again (a remount) needs new watchers. */
  private rootIno: number | null = null;
  private nextRootCheckAt = 0;
  private nextRescanAt = 0;
  private lastRescanAt: number | null = null;
  /** Ends the subscription to the engine's change feed that start() makes. */
  private stopHearingChanges: () => void = () => {};

  constructor(private readonly options: FolderWatcherOptions) {
    const root = path.resolve(options.root);
    const { engine, outbox, orgId, userId } = options;
    const clock = options.clock ?? systemClock;
    this.root = root;
    this.clock = clock;
    const foreignFolders = (this.foreignFolders = options.foreignFolders ?? new Map());
    this.windowMs = options.stabilityWindowMs ?? 2000;
    this.rescanIntervalMs = options.rescanIntervalMs ?? 10 * 60_000;
    const store = (this.store = new WatchStore(engine.db));
    const folders = (this.folders = new ProjectFolders(engine.db, root, orgId));
    const report = (this.report = new FolderReport(options.log, options.onActivity));
    this.counts = report.counts;
    const loop = (this.loop = new WorkerLoop(
      { step: () => this.step(), nextDueInMs: () => this.nextDueInMs(), failed: (error) => report.note(`error: ${error.message}`) },
      systemTimers,
    ));
    const wake = () => loop.wake();
    const closed = () => loop.closed;
    this.intake = new EventIntake({
      root,
      folders,
      report,
      burstThreshold: options.burstThreshold ?? 1000,
      foreignFolders,
      timers: systemTimers,
      closed,
      watching: () => this.state === 'watching',
      wake,
    });
    const { gate, deletes, attacher } = wireFileParts({
      root,
      engine,
      store,
      folders,
      outbox,
      report,
      clock,
      orgId,
      userId,
      windowMs: this.windowMs,
      pairWindowMs: options.pairWindowMs ?? this.windowMs + 3000,
      massDelete: options.massDelete ?? { minFiles: 5, fraction: 0.5 },
      confirmDeletes: options.confirmDeletes ?? false,
      onDeleteHeld: options.onDeleteHeld,
      folderChanged: () => this.requestReconcile(),
    });
    this.gate = gate;
    this.deletes = deletes;
    this.attacher = attacher;
    this.arrivals = new ArrivalsReconcile({
      root,
      engine,
      store,
      folders,
      outbox,
      report,
      clock,
      orgId,
      reconcileIntervalMs: options.reconcileIntervalMs ?? 5000,
      gate,
      rescanProject: (projectId) => this.intake.rescanFolders.add(projectId),
      wake,
      closed,
      ...(options.contents ? { contents: options.contents } : {}),
      // An eviction's removal is no deletion: any unlink of it waiting to be held goes.
      expectRemoval: (projectId, name) => deletes.present(projectId, name),
      openFiles: () => new OpenFileCheck(() => this.now(), options.filesOpenForWriting ?? (async () => filesOpenForWriting(await fsp.realpath(root).catch(() => root)))),
    });
    this.scan = new FolderScan({
      root,
      store,
      folders,
      report,
      clock,
      gate,
      deletes,
      folderChanged: () => this.requestReconcile(),
      folderRescanned: (folder) => this.intake.folderRescanned(folder),
      foreignFolders,
    });
  }

  /** Milliseconds on the injected clock: stability and pairing windows, rescans, retries are all measured on it. */
  private now(): number {
    return this.clock.now().getTime();
  }

  async start(): Promise<void> {
    this.stopHearingChanges = this.options.engine.changes.subscribe((changes) => {
      if (changes.some(changeFoldersFollow)) this.requestReconcile();
    });
    if (this.options.rootIsNew) await this.store.forgetAllMappings();
    await this.folders.load();
    await this.options.outbox.dropStaleHolds();
    this.loop.start();
  }

  async close(): Promise<void> {
    this.stopHearingChanges();
    await this.loop.stop();
    await this.arrivals.finish();
    await this.intake.stopChokidar();
    this.state = 'stopped';
  }

  /** Something may have changed in the store (a sync cycle ended, a local write): check folders and arrivals soon. */
  requestReconcile(): void {
    this.arrivals.request();
    this.loop.wake();
  }

  /** Retry now a download into a folder that failed (the Sync screen's Retry); false when that file's download had not failed. */
  retryDownload(fileId: number): boolean {
    if (!this.arrivals.retryNow(fileId)) return false;
    this.requestReconcile();
    return true;
  }

  /** Rescan everything now (tests, and the user's "rescan" button). */
  requestRescan(): void {
    this.intake.fullRescanWanted = true;
    this.loop.wake();
  }

  /** Progress of a private file going up (main/sync/push.ts), by local file id; null when done. */
  reportUploadProgress(fileId: number, progress: { sent: number; total: number } | null): void {
    if (progress) this.report.uploadProgress.set(fileId, progress);
    else this.report.uploadProgress.delete(fileId);
  }

  /** True when nothing is queued, stabilising, pending or being written (tests and the benchmark poll it). */
  isQuiet(): boolean {
    return (
      this.state === 'watching' &&
      this.lastRescanAt !== null &&
      !this.loop.busy &&
      !this.arrivals.requested &&
      this.intake.empty &&
      this.gate.size === 0 &&
      this.deletes.size === 0 &&
      this.arrivals.idle &&
      this.report.current === null
    );
  }

  async status(): Promise<FolderStatus> {
    return folderStatus(this.report, {
      root: this.root,
      state: this.state,
      detail: this.detail,
      confirmDeletes: this.options.confirmDeletes ?? false,
      stabilityWindowMs: this.windowMs,
      projectFolders: this.folders.size,
      lastRescanAt: this.lastRescanAt,
      nextRescanAt: this.nextRescanAt,
      waiting: this.gate.waiting(this.root),
      downloadProblems: this.arrivals.downloadProblems,
      outbox: this.options.outbox,
      folderUploads: (limit) => this.store.folderUploads((afterId, pageSize) => this.options.outbox.listFileCreates(afterId, pageSize), limit),
      attachedFiles: () => this.store.countFiles(),
      quiet: () => this.isQuiet(),
    });
  }

  // ---- the worker loop's steps ------------------------------------------------

  private nextDueInMs(): number {
    const times = [this.nextRootCheckAt, this.nextRescanAt];
    if (this.arrivals.dueAt) times.push(this.arrivals.dueAt);
    const candidateDue = this.gate.nextDueAt();
    if (candidateDue !== undefined) times.push(candidateDue);
    const unlinkDue = this.deletes.nextDueAt();
    if (unlinkDue !== undefined) times.push(unlinkDue);
    return Math.min(...times) - this.now();
  }

  /** One thing, the most urgent first. False when nothing is due. */
  private async step(): Promise<boolean> {
    const now = this.now();
    if (now >= this.nextRootCheckAt) {
      this.nextRootCheckAt = now + ROOT_CHECK_INTERVAL_MS;
      if (await this.checkRoot()) return true;
    }
    if (this.state !== 'watching') return false;
    if (this.arrivals.isDue(now)) {
      await this.arrivals.reconcile();
      return true;
    }
    if (this.intake.fullRescanWanted || now >= this.nextRescanAt) {
      await this.beginFullRescan();
      return true;
    }
    const projectId = this.intake.takeFolderRescan();
    if (projectId !== undefined) {
      await this.scan.project(projectId);
      return true;
    }
    if (this.intake.rootScanWanted) {
      this.intake.rootScanWanted = false;
      await this.scan.root();
      return true;
    }
    const event = this.intake.take();
    if (event) {
      await this.handleEvent(event);
      return true;
    }
    if (await this.gate.checkDue()) return true;
    if (this.deletes.isDue(now)) {
      // Deletions are never held off an emptied root: that is a missing drive, not a user's delete.
      const suspicious = await this.rootLooksEmptied();
      if (suspicious) await this.pauseFor('root_empty', suspicious);
      else await this.deletes.processDue();
      return true;
    }
    return this.arrivals.placeNext();
  }

  private async beginFullRescan(): Promise<void> {
    this.intake.startFullRescan();
    this.lastRescanAt = this.now();
    this.nextRescanAt = this.lastRescanAt + this.rescanIntervalMs * (0.8 + Math.random() * 0.4);
    this.report.startFullRescan();
    await this.arrivals.reconcile();
    for (const projectId of this.folders.projectIds()) this.intake.rescanFolders.add(projectId);
    this.intake.rootScanWanted = true;
  }

  // ---- the root -----------------------------------------------------------

  /** Returns true when the state changed. A missing or emptied root stops everything but watching for its return. */
  private async checkRoot(): Promise<boolean> {
    // The root itself is followed: a root that is a link (~/SolarDesk on a data disk) is the user's choice.
    const stat = await fsp.stat(this.root).catch(() => null);
    if (!stat?.isDirectory()) {
      if (this.state === 'root_missing') return false;
      await this.pauseFor('root_missing', `The folder root ${this.root} is missing (a drive not connected, a share not mounted?). Nothing is deleted; watching resumes when it is back.`);
      return true;
    }
    const suspicious = await this.rootLooksEmptied();
    if (suspicious) {
      if (this.state === 'root_empty') return false;
      await this.pauseFor('root_empty', suspicious);
      return true;
    }
    if (this.state === 'watching' && this.rootIno === stat.ino) return false;
    if (this.state === 'watching') this.report.note(`the folder root ${this.root} was replaced; watching it afresh`);
    this.rootIno = stat.ino;
    this.state = 'watching';
    this.detail = null;
    await fsp.mkdir(path.join(this.root, AGENT_FOLDER), { recursive: true });
    await this.intake.startChokidar();
    this.report.note(`watching ${this.root}`);
    this.intake.fullRescanWanted = true;
    return true;
  }

  /** An empty root while files were attached from it is a missing drive or a bad mount, never "delete everything". */
  private async rootLooksEmptied(): Promise<string | null> {
    const entries = (await fsp.readdir(this.root).catch(() => [] as string[])).filter((name) => !name.startsWith('.'));
    if (entries.length > 0) return null;
    const attached = await this.store.countFiles();
    if (attached === 0) return null;
    return `The folder root ${this.root} is empty, but ${attached} files were attached from it (a drive not connected, a share not mounted?). Nothing is deleted; watching resumes when its folders are back.`;
  }

  private async pauseFor(state: 'root_missing' | 'root_empty', detail: string): Promise<void> {
    this.state = state;
    this.detail = detail;
    await this.intake.stopChokidar();
    // What was queued described a disk that is gone; the rescan on its return looks afresh.
    this.intake.dropQueued();
    this.gate.clear();
    this.deletes.clear();
    this.arrivals.dropReady();
    this.report.note(detail);
  }

  // ---- events -------------------------------------------------------------

  /** Routes one event to the part whose job it is. */
  private async handleEvent(watched: WatchEvent): Promise<void> {
    const { report } = this;
    let event: { type: 'add' | 'unlink' | 'addDir' | 'unlinkDir'; path: string; stat: fs.Stats | null };
    if (watched.type === 'probe') {
      const stat = await fsp.lstat(watched.path).catch(() => null);
      event = { path: watched.path, stat, type: stat === null ? 'unlink' : stat.isDirectory() ? 'addDir' : 'add' };
    } else event = { path: watched.path, stat: null, type: watched.type };
    const where = locate(this.root, this.folders, event.path, this.foreignFolders);
    if (event.type === 'unlink' || event.type === 'unlinkDir') {
      if (where.kind === 'ignored') report.ignored.delete(where.rel);
      if (where.kind === 'outside') report.outside.delete(where.rel);
      if (where.kind === 'top') {
        report.outside.delete(where.name);
        // A project folder (or all of them) went: the root check and the reconcile see what it means.
        this.nextRootCheckAt = 0;
        this.requestReconcile();
        return;
      }
      if (where.kind === 'file') {
        report.outside.delete(`${where.folder}/${where.name}/`);
        report.refusedFiles.delete(`${where.folder}/${where.name}`);
        await this.deletes.fileGone(where.projectId, where.folder, where.name, event.path);
      }
      return;
    }
    switch (where.kind) {
      case 'ignored':
        report.ignored.set(where.rel, where.reason);
        return;
      case 'outside':
        report.outside.set(event.type === 'addDir' ? `${where.rel}/` : where.rel, where.reason);
        return;
      case 'top':
        if (event.type === 'addDir') {
          // A new folder (a project's, one renamed by someone, or another): files written into it
          // before its watcher started are found by looking, now and once the watcher surely runs.
          this.requestReconcile();
          this.intake.rescanFolderSoon(where.name);
        } else {
          // Perhaps a project folder replaced by a link or a file: the reconcile says so, and refuses it.
          this.requestReconcile();
          if (!report.refusedFolders.has(`${where.name}/`)) report.outside.set(where.name, 'directly in the folder root, not in a project folder: not attached');
        }
        return;
      case 'file':
        if (event.type === 'addDir') {
          report.outside.set(`${where.folder}/${where.name}/`, 'a subfolder of a project folder: its files are not attached');
          return;
        }
        await this.gate.consider(where.projectId, where.folder, where.name, event.path, event.stat);
        return;
      default:
        return;
    }
  }
}
