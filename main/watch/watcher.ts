// The project folders watcher: composes the parts, each with one job, and runs them
// on one worker loop, one step at a time, so no two steps race:
//   event-intake.ts        chokidar, the event queue, bursts -> rescans
//   folder-scan.ts         listing a project folder or the root again
//   stability-gate.ts      candidates, the stability window, the no-follow open, staging
//   attach.ts              attaching, duplicates, renames and moves, the "replaced" path
//   deletes.ts             pending unlinks, held deletes, the mass-delete guard
//   arrivals-reconcile.ts  folders vs projects, deletions and moves made elsewhere, arrivals
//   folder-status.ts       the lists, counts and the status answer
//   inbox-intake.ts        the inbox folder's files, through a gate of their own, to the core's photo inbox
//   watch-store.ts         every query on the watch_* tables
//   worker-loop.ts         the loop and its timers
//   watcher-options.ts     what a watcher is given
// This file owns the root (missing, emptied, replaced), routes events to the parts
// and decides what the next step is. Every window, age and due time is read on the
// injected clock. docs/project-folders.md explains the behaviour; sync-lessons.md "Files" why.
import type fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { type Clock, systemClock } from '../engine/clock.ts';
import type { RecordChangeEvent } from '../engine/changes/change-feed.ts';
import { AGENT_FOLDER, ProjectFolders } from './project-folders.ts';
import type { FolderStatus } from '../../shared/schemas/folder.ts';
import { EventIntake, locate, type WatchEvent } from './event-intake.ts';
import { FolderScan } from './folder-scan.ts';
import type { StabilityGate } from './stability-gate.ts';
import type { Attacher } from './attach.ts';
import type { Deletes } from './deletes.ts';
import { wireFileParts } from './file-parts.ts';
import { ArrivalsReconcile } from './arrivals-reconcile.ts';
import { filesOpenForWriting, OpenFileCheck } from './open-files.ts';
import { FolderReport, folderStatus, type WatchCounts } from './folder-status.ts';
import { WatchStore } from './watch-store.ts';
import { InboxIntake, type InboxSink } from './inbox-intake.ts';
import { systemTimers, WorkerLoop } from './worker-loop.ts';
import type { FolderWatcherOptions } from './watcher-options.ts';

export type { FolderWatcherOptions } from './watcher-options.ts';

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
  private readonly inbox: InboxIntake | null;

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
      // The inbox folder is listed in the status as the foreign ones are; its files are the inbox intake's.
      foreignFolders: options.inbox ? new Map([...foreignFolders, [options.inbox.folder, options.inbox.reason]]) : foreignFolders,
    });
    this.inbox = options.inbox
      ? new InboxIntake({
          root,
          folder: options.inbox.folder,
          clock,
          windowMs: this.windowMs,
          fileRoot: engine.store.fileRoot,
          maxUploadBytes: engine.files.maxUploadBytes,
          log: options.log,
          wake,
        })
      : null;
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

  /**
   * The inbox folder's files go to `sink` from now on (everything in the folder is
   * looked at first); null when this watcher has no inbox folder. Returns the disconnect.
   */
  connectInbox(sink: InboxSink): { folder: string; whyWaiting: (name: string) => string | null; disconnect: () => void } | null {
    const inbox = this.inbox;
    if (!inbox) return null;
    return { folder: inbox.dir, whyWaiting: (name) => inbox.whyWaiting(name), disconnect: inbox.connect(sink) };
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
      (this.inbox?.size ?? 0) === 0 &&
      !this.inbox?.scanWanted &&
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
    for (const gate of [this.gate, this.inbox]) {
      const candidateDue = gate?.nextDueAt();
      if (candidateDue !== undefined) times.push(candidateDue);
    }
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
      // The root's loose names include the inbox folder: listed with it (made again if it went).
      if (this.inbox) this.inbox.scanWanted = true;
      return true;
    }
    if (this.inbox?.scanWanted) {
      await this.inbox.scan();
      return true;
    }
    const event = this.intake.take();
    if (event) {
      await this.handleEvent(event);
      return true;
    }
    if (await this.gate.checkDue()) return true;
    if (await this.inbox?.checkDue()) return true;
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
    this.inbox?.clear();
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
    const where = locate(this.root, this.folders, event.path, this.foreignFolders, this.inbox?.folder);
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
      if (where.kind === 'inbox') {
        this.inbox?.gone(where.name);
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
      case 'inbox':
        // A folder in the inbox folder is not sorted; its files are not looked into.
        if (event.type !== 'addDir') await this.inbox?.consider(where.name, event.path, event.stat);
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
