// The project folders watcher: chokidar on the folder root (project folders and the
// files directly in them), a stability gate, content-addressed staging into the
// engine, renames and moves paired by inode or hash, held deletes with a mass-delete
// guard, downloads of files attached elsewhere, and rescans (at start, when events
// overflow, periodically with jitter). Everything that changes the store or the
// folders runs on one worker loop, one step at a time, so no two steps race.
// docs/project-folders.md explains the behaviour; sync-lessons.md "Files" why.
import fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import chokidar, { type FSWatcher } from 'chokidar';
import type { Kysely } from 'kysely';
import type { Database, WatchFileRow } from '../engine/store/tables.ts';
import type { EngineContext } from '../engine/context.ts';
import { type Clock, nowIso, systemClock } from '../engine/clock.ts';
import { actorInOrg } from '../engine/auth/actor.ts';
import { adoptBlob, blobPath, discardTempFile, FileTooLargeError, receiveToTempFile, type ReceivedFile } from '../engine/files/blob-store.ts';
import { type AfterInsert, insertFileRow, type NewFileRecord, replaceFileContents, storeNewFile, updateFile } from '../engine/files/file-service.ts';
import { writeTracked } from '../engine/changes/tracked-write.ts';
import { byUser, type RecordChangeEvent } from '../engine/changes/change-feed.ts';
import { contentTypeFor } from '../engine/files/file-types.ts';
import { AGENT_FOLDER, isRealFolder, ProjectFolders } from './project-folders.ts';
import { ignoreReason, lockFileNamesFor, nameKey } from './folder-names.ts';
import { headOfFile, nameWithExtension } from './file-extension.ts';
import type { FolderOutbox } from './folder-outbox.ts';
import { agentTempDir, moveToTrash, placeArrival } from './arrivals.ts';
import type { FolderFileStatus, FolderStatus } from '../../shared/schemas/folder.ts';

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
  /** What decides every window, age and due time here (default: the system clock); the agent passes the engine's. */
  clock?: Clock;
  /**
   * Folders directly under the root that belong to another workspace (the embedded
   * store's "On this computer" under a synced root), by name, with why: never a
   * project's, never looked into, reported once as outside with that reason.
   */
  foreignFolders?: ReadonlyMap<string, string>;
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

interface Candidate {
  projectId: number;
  folder: string;
  name: string;
  size: number;
  mtimeMs: number;
  /** Which file this is (lstat): what is read must be this very file, not whatever the name points to by then. */
  dev: number;
  ino: string;
  /** When this size and mtime were first seen. */
  since: number;
  generation: number;
  note: string | null;
}

interface PendingUnlink {
  row: WatchFileRow;
  folder: string;
  at: number;
}

/** `probe`: something happened to this name (a directory watcher's raw event); a stat says what. */
type WatchEvent = { type: 'probe' | 'addDir' | 'unlinkDir'; path: string };

type Location =
  | { kind: 'root' }
  | { kind: 'agent' }
  | { kind: 'file'; projectId: number; folder: string; name: string }
  | { kind: 'ignored'; rel: string; reason: string }
  | { kind: 'outside'; rel: string; reason: string }
  | { kind: 'top'; name: string };

const LIST_CAP = 500;
const RECENT_CAP = 50;
const DOWNLOAD_RETRY_MS = 30_000;

/** A FIFO of work items with an index head, so taking from the front costs nothing. */
class Queue<T> {
  private items: T[] = [];
  private head = 0;
  push(item: T): void {
    this.items.push(item);
  }
  peek(): T | undefined {
    return this.items[this.head];
  }
  shift(): T | undefined {
    const item = this.items[this.head];
    if (item === undefined) return undefined;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
  get length(): number {
    return this.items.length - this.head;
  }
  clear(): void {
    this.items = [];
    this.head = 0;
  }
  retain(keep: (item: T) => boolean): void {
    this.items = this.items.slice(this.head).filter(keep);
    this.head = 0;
  }
}

/** A bounded map for what status lists: the oldest entries go first. */
class CappedMap<V> extends Map<string, V> {
  overflow = 0;
  override set(key: string, value: V): this {
    if (!this.has(key) && this.size >= LIST_CAP) {
      const oldest = this.keys().next().value;
      if (oldest !== undefined) this.delete(oldest);
      this.overflow++;
    }
    return super.set(key, value);
  }
}

const fileKey = (projectId: number, name: string) => `${projectId}\0${name}`;
const sameStat = (row: Pick<WatchFileRow, 'size' | 'mtime_ms' | 'ino'>, stat: fs.Stats) =>
  row.size === stat.size && row.mtime_ms === stat.mtimeMs && row.ino === String(stat.ino);
const sameCandidateFile = (candidate: Pick<Candidate, 'size' | 'mtimeMs' | 'dev' | 'ino'>, stat: fs.Stats) =>
  candidate.size === stat.size && candidate.mtimeMs === stat.mtimeMs && candidate.dev === stat.dev && candidate.ino === String(stat.ino);
const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;
const toSlash = (rel: string) => rel.split(path.sep).join('/');

/**
 * How a stable file is opened: never through a link (O_NOFOLLOW: a link swapped in
 * since the last lstat fails the open), and never blocking (O_NONBLOCK: a pipe swapped
 * in would otherwise stall the worker loop until someone writes to it). Windows has
 * neither flag; there the fstat check after the open is what catches a swap.
 */
const OPEN_FOR_STAGING = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);
/** What an O_NOFOLLOW open of a link fails with: ELOOP (Linux, macOS), EMLINK (FreeBSD). */
const isLinkRefusal = (error: unknown) => errorCode(error) === 'ELOOP' || errorCode(error) === 'EMLINK';

/** A name's own stat, never its link's target's: everything in the folders is looked at this way. */
async function lstatOrNull(file: string): Promise<fs.Stats | null> {
  try {
    return await fsp.lstat(file);
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return null;
    throw error;
  }
}

export class FolderWatcher {
  readonly root: string;
  private readonly db: Kysely<Database>;
  private readonly folders: ProjectFolders;
  private readonly windowMs: number;
  private readonly pairWindowMs: number;
  private readonly rescanIntervalMs: number;
  private readonly reconcileIntervalMs: number;
  private readonly burstThreshold: number;
  private readonly massDelete: { minFiles: number; fraction: number };
  private readonly log: (line: string) => void;
  private readonly clock: Clock;
  private readonly foreignFolders: ReadonlyMap<string, string>;

  private state: FolderStatus['state'] = 'starting';
  private detail: string | null = null;
  private chokidar: FSWatcher | null = null;
  private closed = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeResolve: (() => void) | null = null;
  private wokenWhileBusy = false;
  private fetchDone: Promise<void> = Promise.resolve();
  /** The root's inode: a root removed and made again (a remount) needs new watchers. */
  private rootIno: number | null = null;

  private readonly events = new Queue<WatchEvent>();
  /** Paths with a probe queued: a file being written fires an event per write, one probe is enough. */
  private readonly queuedProbes = new Set<string>();
  private readonly eventsPerFolder = new Map<string, number>();
  private readonly overflowed = new Set<string>();
  private overflowedAll = false;
  private readonly rescanFolders = new Set<number>();
  private fullRescanWanted = false;
  private rootScanWanted = false;
  private reconcileDueAt = 0;
  private nextRootCheckAt = 0;
  private nextRescanAt = 0;
  private lastRescanAt: number | null = null;

  private readonly candidates = new Map<string, Candidate>();
  private readonly due = new Queue<{ path: string; at: number; generation: number }>();
  private generation = 0;
  private current: { path: string; note: string } | null = null;
  private stepping = false;
  private reconcileRequested = false;
  /** Ends the subscription to the engine's change feed that start() makes. */
  private stopHearingChanges: () => void = () => {};
  private readonly unlinks = new Map<string, PendingUnlink>();
  private readonly recentLosses: Array<{ projectId: number; at: number }> = [];

  private readonly toFetch = new Queue<number>();
  private readonly fetching = new Set<number>();
  private readonly ready = new Queue<number>();
  private readonly downloadProblems = new Map<number, { reason: string; retryAt: number }>();
  private fetchLoopRunning = false;

  private readonly problems = new CappedMap<{ projectId: number | null; reason: string }>();
  private readonly ignored = new CappedMap<string>();
  private readonly outside = new CappedMap<string>();
  /** Files refused (links, devices), by "folder/name". */
  private readonly refusedFiles = new CappedMap<string>();
  /** Those refused before the last full rescan: listed again, but not said again in `recent` every ten minutes. */
  private refusedBeforeRescan = new Set<string>();
  /** Project folders refused (links, files), by "folder/", as of the last reconcile. */
  private refusedFolders = new Map<string, string>();
  private readonly guards: FolderStatus['guards'] = [];
  private readonly recent: string[] = [];
  private readonly uploadProgress = new Map<number, { sent: number; total: number }>();
  readonly counts = { attached: 0, replaced: 0, deduplicated: 0, renamed: 0, moved: 0, held: 0, confirmed: 0, downloaded: 0, trashed: 0, rescans: 0, overflows: 0 };

  constructor(private readonly options: FolderWatcherOptions) {
    this.root = path.resolve(options.root);
    this.db = options.engine.db;
    this.folders = new ProjectFolders(this.db, this.root, options.orgId);
    this.windowMs = options.stabilityWindowMs ?? 2000;
    this.pairWindowMs = options.pairWindowMs ?? this.windowMs + 3000;
    this.rescanIntervalMs = options.rescanIntervalMs ?? 10 * 60_000;
    this.reconcileIntervalMs = options.reconcileIntervalMs ?? 5000;
    this.burstThreshold = options.burstThreshold ?? 1000;
    this.massDelete = options.massDelete ?? { minFiles: 5, fraction: 0.5 };
    this.log = options.log ?? (() => {});
    this.clock = options.clock ?? systemClock;
    this.foreignFolders = options.foreignFolders ?? new Map();
  }

  /** Milliseconds on the injected clock: stability and pairing windows, rescans, retries are all measured on it. */
  private now(): number {
    return this.clock.now().getTime();
  }

  async start(): Promise<void> {
    this.stopHearingChanges = this.options.engine.changes.subscribe((changes) => {
      if (changes.some(changeFoldersFollow)) this.requestReconcile();
    });
    await this.folders.load();
    await this.options.outbox.dropStaleHolds();
    this.loopDone = this.loop();
  }

  async close(): Promise<void> {
    this.stopHearingChanges();
    this.closed = true;
    this.wake();
    await this.loopDone;
    await this.fetchDone;
    await this.stopChokidar();
    this.state = 'stopped';
  }

  /** Something may have changed in the store (a sync cycle ended, a local write): check folders and arrivals soon. */
  requestReconcile(): void {
    this.reconcileRequested = true;
    const at = this.now() + 200;
    if (this.reconcileDueAt === 0 || this.reconcileDueAt > at) this.reconcileDueAt = at;
    this.wake();
  }

  /** Rescan everything now (tests, and the user's "rescan" button). */
  requestRescan(): void {
    this.fullRescanWanted = true;
    this.wake();
  }

  /** Progress of a private file going up (main/sync/push.ts), by local file id; null when done. */
  reportUploadProgress(fileId: number, progress: { sent: number; total: number } | null): void {
    if (progress) this.uploadProgress.set(fileId, progress);
    else this.uploadProgress.delete(fileId);
  }

  /** True when nothing is queued, stabilising, pending or being written (tests and the benchmark poll it). */
  isQuiet(): boolean {
    return (
      this.state === 'watching' &&
      this.lastRescanAt !== null &&
      !this.stepping &&
      !this.reconcileRequested &&
      this.events.length === 0 &&
      this.candidates.size === 0 &&
      this.unlinks.size === 0 &&
      this.rescanFolders.size === 0 &&
      !this.fullRescanWanted &&
      !this.rootScanWanted &&
      this.toFetch.length === 0 &&
      this.fetching.size === 0 &&
      this.ready.length === 0 &&
      this.current === null
    );
  }

  private note(line: string): void {
    // A log line's own timestamp, for people reading it: the real time, not the injected clock.
    this.recent.push(`${new Date().toISOString()} ${line}`);
    if (this.recent.length > RECENT_CAP) this.recent.shift();
    this.log(`folders: ${line}`);
  }

  // ---- the worker loop ------------------------------------------------------

  private wake(): void {
    clearTimeout(this.wakeTimer);
    const resolve = this.wakeResolve;
    this.wakeResolve = null;
    // Woken while working: the next idle returns at once instead of missing it.
    if (resolve) resolve();
    else this.wokenWhileBusy = true;
  }

  private idle(ms: number): Promise<void> {
    if (this.wokenWhileBusy) {
      this.wokenWhileBusy = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.wakeResolve = resolve;
      this.wakeTimer = setTimeout(() => this.wake(), Math.max(10, ms));
    });
  }

  private async loop(): Promise<void> {
    while (!this.closed) {
      let worked = false;
      this.stepping = true;
      try {
        worked = await this.step();
      } catch (error) {
        this.note(`error: ${(error as Error).message}`);
        // A pause, not an idle: an error that repeats must not spin.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      } finally {
        this.stepping = false;
      }
      if (!worked && !this.closed) await this.idle(this.nextDueInMs());
      else if (worked) await new Promise((resolve) => setImmediate(resolve)); // let I/O callbacks (chokidar) in
    }
  }

  private nextDueInMs(): number {
    const now = this.now();
    const times = [this.nextRootCheckAt, this.nextRescanAt];
    if (this.reconcileDueAt) times.push(this.reconcileDueAt);
    const head = this.due.peek();
    if (head) times.push(head.at);
    const firstUnlink = this.unlinks.values().next().value;
    if (firstUnlink) times.push(firstUnlink.at + this.pairWindowMs);
    return Math.max(10, Math.min(...times) - now);
  }

  private async step(): Promise<boolean> {
    const now = this.now();
    if (now >= this.nextRootCheckAt) {
      this.nextRootCheckAt = now + 1000;
      if (await this.checkRoot()) return true;
    }
    if (this.state !== 'watching') return false;
    if (this.reconcileDueAt && now >= this.reconcileDueAt) {
      await this.reconcile();
      return true;
    }
    if (this.fullRescanWanted || now >= this.nextRescanAt) {
      await this.beginFullRescan();
      return true;
    }
    const folder = this.rescanFolders.values().next();
    if (!folder.done) {
      this.rescanFolders.delete(folder.value);
      await this.rescanProject(folder.value);
      return true;
    }
    if (this.rootScanWanted) {
      this.rootScanWanted = false;
      await this.scanRoot();
      return true;
    }
    const event = this.events.shift();
    if (event) {
      this.countDown(event.path);
      this.queuedProbes.delete(event.path);
      await this.handleEvent(event);
      return true;
    }
    const head = this.due.peek();
    if (head && head.at <= now) {
      this.due.shift();
      const candidate = this.candidates.get(head.path);
      if (candidate && candidate.generation === head.generation) await this.checkCandidate(head.path, candidate);
      return true;
    }
    const firstUnlink = this.unlinks.values().next().value;
    if (firstUnlink && firstUnlink.at + this.pairWindowMs <= now) {
      await this.processUnlinks();
      return true;
    }
    const arrival = this.ready.shift();
    if (arrival !== undefined) {
      await this.placeArrivalOf(arrival);
      return true;
    }
    return false;
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
    if (this.state === 'watching') this.note(`the folder root ${this.root} was replaced; watching it afresh`);
    this.rootIno = stat.ino;
    this.state = 'watching';
    this.detail = null;
    await fsp.mkdir(path.join(this.root, AGENT_FOLDER), { recursive: true });
    await this.startChokidar();
    this.note(`watching ${this.root}`);
    this.fullRescanWanted = true;
    return true;
  }

  /** An empty root while files were attached from it is a missing drive or a bad mount, never "delete everything". */
  private async rootLooksEmptied(): Promise<string | null> {
    const entries = (await fsp.readdir(this.root).catch(() => [] as string[])).filter((name) => !name.startsWith('.'));
    if (entries.length > 0) return null;
    const attached = await this.db.selectFrom('watch_files').select((builder) => builder.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    if (Number(attached.count) === 0) return null;
    return `The folder root ${this.root} is empty, but ${attached.count} files were attached from it (a drive not connected, a share not mounted?). Nothing is deleted; watching resumes when its folders are back.`;
  }

  private async pauseFor(state: 'root_missing' | 'root_empty', detail: string): Promise<void> {
    this.state = state;
    this.detail = detail;
    await this.stopChokidar();
    // What was queued described a disk that is gone; the rescan on its return looks afresh.
    this.events.clear();
    this.eventsPerFolder.clear();
    this.candidates.clear();
    this.due.clear();
    this.unlinks.clear();
    this.ready.clear();
    this.note(detail);
  }

  private async startChokidar(): Promise<void> {
    await this.stopChokidar();
    const watcher = chokidar.watch(this.root, {
      depth: 1,
      ignoreInitial: true,
      followSymlinks: false,
      ignorePermissionErrors: true,
      ignored: (file: string, stats?: fs.Stats) => {
        const rel = path.relative(this.root, file);
        // Our own temp and trash folder, and dot-folders at the root, are nobody's business.
        if (rel !== '' && rel.split(path.sep)[0]!.startsWith('.')) return true;
        // Another workspace's folders: its own watcher's business, not one event of theirs queued here.
        if (rel.includes(path.sep) && this.foreignFolders.has(rel.split(path.sep)[0]!)) return true;
        // Files are seen through their folder's watcher (the raw events below), not one
        // fs.watch each: 100,000 files would need 100,000 inotify watches (past the
        // default limit of many systems) and some 5 KB of memory apiece.
        return stats !== undefined && !stats.isDirectory();
      },
    });
    watcher.on('addDir', (dir: string) => this.enqueue({ type: 'addDir', path: dir }));
    watcher.on('unlinkDir', (dir: string) => this.enqueue({ type: 'unlinkDir', path: dir }));
    watcher.on('raw', (_event, name: string | null, details) => {
      const dir = (details as { watchedPath?: string } | undefined)?.watchedPath;
      if (!dir) return;
      if (name) {
        this.enqueue({ type: 'probe', path: path.resolve(dir, name) });
        return;
      }
      // A platform that did not say which name changed: look at the whole folder.
      const projectId = this.folders.projectOfFolder(this.topFolderOf(dir));
      if (projectId !== null) this.rescanFolders.add(projectId);
      else this.rootScanWanted = true;
      this.wake();
    });
    watcher.on('error', (error) => this.note(`watcher error: ${(error as Error).message}`));
    this.chokidar = watcher;
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  }

  private async stopChokidar(): Promise<void> {
    const watcher = this.chokidar;
    this.chokidar = null;
    await watcher?.close();
  }

  // ---- events and bursts --------------------------------------------------

  private topFolderOf(file: string): string {
    return path.relative(this.root, file).split(path.sep)[0] ?? '';
  }

  private enqueue(event: WatchEvent): void {
    if (this.closed || this.state !== 'watching') return;
    const folder = this.topFolderOf(event.path);
    if (this.overflowedAll || this.overflowed.has(folder)) return;
    if (event.type === 'probe') {
      if (this.queuedProbes.has(event.path)) return;
      this.queuedProbes.add(event.path);
    }
    const count = (this.eventsPerFolder.get(folder) ?? 0) + 1;
    this.eventsPerFolder.set(folder, count);
    this.events.push(event);
    if (this.events.length > this.burstThreshold * 4) {
      // A storm across the whole root: forget the queue, rescan everything.
      this.overflowedAll = true;
      this.events.clear();
      this.queuedProbes.clear();
      this.eventsPerFolder.clear();
      this.fullRescanWanted = true;
      this.counts.overflows++;
      this.note(`${this.burstThreshold * 4} events queued: dropped them and rescanning everything`);
    } else if (count > this.burstThreshold) {
      this.overflowed.add(folder);
      this.events.retain((queued) => this.topFolderOf(queued.path) !== folder);
      for (const queued of this.queuedProbes) if (this.topFolderOf(queued) === folder) this.queuedProbes.delete(queued);
      this.eventsPerFolder.delete(folder);
      const projectId = this.folders.projectOfFolder(folder);
      if (projectId !== null) this.rescanFolders.add(projectId);
      else this.rootScanWanted = true;
      this.counts.overflows++;
      this.note(`more than ${this.burstThreshold} events for ${folder}: dropped them and rescanning it`);
    }
    this.wake();
  }

  private rescanFolderSoon(folder: string): void {
    const rescan = () => {
      if (this.closed) return;
      const projectId = this.folders.projectOfFolder(folder);
      if (projectId !== null) this.rescanFolders.add(projectId);
      else this.rootScanWanted = true;
      this.wake();
    };
    rescan();
    setTimeout(rescan, 300).unref();
  }

  private countDown(file: string): void {
    const folder = this.topFolderOf(file);
    const count = (this.eventsPerFolder.get(folder) ?? 1) - 1;
    if (count <= 0) this.eventsPerFolder.delete(folder);
    else this.eventsPerFolder.set(folder, count);
  }

  private locate(file: string): Location {
    const rel = path.relative(this.root, file);
    if (rel === '') return { kind: 'root' };
    const parts = rel.split(path.sep);
    if (parts[0] === AGENT_FOLDER) return { kind: 'agent' };
    const name = parts[parts.length - 1]!;
    const relSlash = toSlash(rel);
    const ignored = ignoreReason(name) ?? (parts[0]!.startsWith('.') ? 'inside a hidden folder' : null);
    if (ignored) return { kind: 'ignored', rel: relSlash, reason: ignored };
    if (parts.length === 1) return { kind: 'top', name };
    const foreign = this.foreignFolders.get(parts[0]!);
    if (foreign !== undefined) return { kind: 'outside', rel: `${toSlash(parts[0]!)}/`, reason: foreign };
    const projectId = this.folders.projectOfFolder(parts[0]!);
    if (projectId === null) return { kind: 'outside', rel: relSlash, reason: `in "${parts[0]}", which is not a project's folder: not attached` };
    if (parts.length > 2) return { kind: 'outside', rel: relSlash, reason: 'in a subfolder of a project folder: only files directly in it are attached' };
    return { kind: 'file', projectId, folder: parts[0]!, name };
  }

  private async handleEvent(watched: WatchEvent): Promise<void> {
    let event: { type: 'add' | 'unlink' | 'addDir' | 'unlinkDir'; path: string; stat: fs.Stats | null };
    if (watched.type === 'probe') {
      const stat = await fsp.lstat(watched.path).catch(() => null);
      event = { path: watched.path, stat, type: stat === null ? 'unlink' : stat.isDirectory() ? 'addDir' : 'add' };
    } else event = { path: watched.path, stat: null, type: watched.type };
    const where = this.locate(event.path);
    if (event.type === 'unlink' || event.type === 'unlinkDir') {
      if (where.kind === 'ignored') this.ignored.delete(where.rel);
      if (where.kind === 'outside') this.outside.delete(where.rel);
      if (where.kind === 'top') {
        this.outside.delete(where.name);
        // A project folder (or all of them) went: the root check and the reconcile see what it means.
        this.nextRootCheckAt = 0;
        this.requestReconcile();
        return;
      }
      if (where.kind === 'file') {
        this.outside.delete(`${where.folder}/${where.name}/`);
        this.refusedFiles.delete(`${where.folder}/${where.name}`);
        await this.fileGone(where.projectId, where.folder, where.name, event.path);
      }
      return;
    }
    switch (where.kind) {
      case 'ignored':
        this.ignored.set(where.rel, where.reason);
        return;
      case 'outside':
        this.outside.set(event.type === 'addDir' ? `${where.rel}/` : where.rel, where.reason);
        return;
      case 'top':
        if (event.type === 'addDir') {
          // A new folder (a project's, one renamed by someone, or another): files written into it
          // before its watcher started are found by looking, now and once the watcher surely runs.
          this.requestReconcile();
          this.rescanFolderSoon(where.name);
        } else {
          // Perhaps a project folder replaced by a link or a file: the reconcile says so, and refuses it.
          this.requestReconcile();
          if (!this.refusedFolders.has(`${where.name}/`)) this.outside.set(where.name, 'directly in the folder root, not in a project folder: not attached');
        }
        return;
      case 'file':
        if (event.type === 'addDir') {
          this.outside.set(`${where.folder}/${where.name}/`, 'a subfolder of a project folder: its files are not attached');
          return;
        }
        await this.considerFile(where.projectId, where.folder, where.name, event.path, event.stat);
        return;
      default:
        return;
    }
  }

  // ---- new and changed files ----------------------------------------------

  private async fileRow(projectId: number, name: string): Promise<WatchFileRow | undefined> {
    return this.db.selectFrom('watch_files').selectAll().where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst();
  }

  /** A file appeared or changed: nothing to do, a rename (same inode), or a candidate for the stability gate. */
  private async considerFile(projectId: number, folder: string, name: string, file: string, known: fs.Stats | null): Promise<void> {
    const stat = known ?? (await lstatOrNull(file));
    if (!stat) return;
    if (!stat.isFile()) {
      // A file waiting to become stable that is now a link (mv -T) stops waiting: its target is never read.
      this.candidates.delete(file);
      await this.refuseFile(`${folder}/${name}`, file, stat.isSymbolicLink());
      return;
    }
    this.refusedFiles.delete(`${folder}/${name}`);
    this.problems.delete(`${folder}/${name}`);
    const row = await this.fileRow(projectId, name);
    this.unlinks.delete(fileKey(projectId, name)); // it is there
    if (row && sameStat(row, stat)) {
      this.candidates.delete(file);
      return;
    }
    const renamedFrom = await this.pairByInode(stat, projectId, name);
    if (renamedFrom) {
      await this.applyMove(renamedFrom, projectId, folder, name, stat);
      return;
    }
    const existing = this.candidates.get(file);
    if (existing && sameCandidateFile(existing, stat)) return;
    this.addCandidate(file, { projectId, folder, name, size: stat.size, mtimeMs: stat.mtimeMs, dev: stat.dev, ino: String(stat.ino), since: this.now(), generation: 0, note: null });
  }

  /** Links and devices in a project folder are listed as refused, with why; what a link points to is never read. */
  private async refuseFile(label: string, file: string, isLink: boolean): Promise<void> {
    const known = this.refusedFiles.has(label) || this.refusedBeforeRescan.has(label);
    const target = isLink ? await fsp.readlink(file).catch(() => null) : null;
    this.refusedFiles.set(
      label,
      isLink
        ? `a link${target ? ` to ${target}` : ''}: links are not followed, so it is not attached and what it points to is not read. Put the file itself in the folder to attach it.`
        : 'not a regular file (a device, a pipe or a socket): not attached.',
    );
    if (!known) this.note(`${label} refused: ${isLink ? 'a link, not followed' : 'not a regular file'}`);
  }

  private addCandidate(file: string, candidate: Candidate): void {
    candidate.generation = ++this.generation;
    this.candidates.set(file, candidate);
    this.due.push({ path: file, at: this.now() + this.windowMs, generation: candidate.generation });
  }

  /** A mapped file whose old name is gone and that has the same inode, size and mtime: renamed or moved, not new. */
  private async pairByInode(stat: fs.Stats, projectId: number, name: string): Promise<PendingUnlink | null> {
    const ino = String(stat.ino);
    const here = fileKey(projectId, name);
    for (const [key, pending] of this.unlinks) {
      if (key !== here && sameStat(pending.row, stat)) return pending;
    }
    const rows = await this.db.selectFrom('watch_files').selectAll().where('ino', '=', ino).execute();
    for (const row of rows) {
      if (fileKey(row.project_id, row.name) === here || !sameStat(row, stat)) continue;
      const folder = this.folders.folderOf(row.project_id);
      if (folder === null) continue;
      if (await lstatOrNull(path.join(this.root, folder, row.name))) continue; // a hard link: both names exist
      return { row, folder, at: this.now() };
    }
    return null;
  }

  private async checkCandidate(file: string, candidate: Candidate): Promise<void> {
    const label = `${candidate.folder}/${candidate.name}`;
    // Its folder must still be a real one: through a folder swapped for a link, the same name is a file elsewhere.
    if (!(await isRealFolder(path.dirname(file)))) {
      this.candidates.delete(file);
      this.requestReconcile();
      return;
    }
    const stat = await lstatOrNull(file);
    if (!stat) {
      this.candidates.delete(file);
      return;
    }
    if (!stat.isFile()) {
      this.candidates.delete(file);
      await this.refuseFile(label, file, stat.isSymbolicLink());
      return;
    }
    const now = this.now();
    if (!sameCandidateFile(candidate, stat)) {
      this.addCandidate(file, { ...candidate, size: stat.size, mtimeMs: stat.mtimeMs, dev: stat.dev, ino: String(stat.ino), since: now, note: 'still being written' });
      return;
    }
    if (now - candidate.since < this.windowMs) {
      this.candidates.set(file, candidate);
      this.due.push({ path: file, at: candidate.since + this.windowMs, generation: candidate.generation });
      return;
    }
    if (await this.waitForEditingSession(file, candidate)) return;
    // Stable. It must open (Windows refuses while another program writes it), without
    // following a link, and be the very file that became stable: a name can be pointed
    // elsewhere between the lstat above and the open (mv -T of a link over it).
    let handle: FileHandle;
    try {
      handle = await fsp.open(file, OPEN_FOR_STAGING);
    } catch (error) {
      if (isLinkRefusal(error)) {
        this.candidates.delete(file);
        await this.refuseFile(label, file, true);
      } else if (errorCode(error) === 'ENOENT') this.candidates.delete(file);
      else this.addCandidate(file, { ...candidate, since: candidate.since, note: `cannot be opened yet (${errorCode(error) ?? (error as Error).message})` });
      return;
    }
    try {
      const opened = await handle.stat();
      if (!opened.isFile() || !sameCandidateFile(candidate, opened)) {
        this.addCandidate(file, { ...candidate, size: opened.size, mtimeMs: opened.mtimeMs, dev: opened.dev, ino: String(opened.ino), since: this.now(), note: 'replaced by another file as it was opened' });
        return;
      }
      if (!(await isRealFolder(path.dirname(file)))) {
        this.candidates.delete(file);
        this.requestReconcile();
        return;
      }
      await this.stage(file, candidate, handle);
    } finally {
      await handle.close();
    }
  }

  /**
   * An editing program holds the file open (its lock file is beside it): every save
   * would be a version, so the file waits, and its window starts again each time it
   * is looked at, until the program lets go. Then it is taken once, a window later:
   * one replace, one version, one upload for the whole session. Returns true while it waits.
   */
  private async waitForEditingSession(file: string, candidate: Candidate): Promise<boolean> {
    const dir = path.dirname(file);
    for (const lock of lockFileNamesFor(candidate.name)) {
      if (!(await lstatOrNull(path.join(dir, lock)))) continue;
      this.addCandidate(file, { ...candidate, since: this.now(), note: `open in an editing program (${lock} is beside it); taken once it is closed` });
      return true;
    }
    return false;
  }

  /**
   * Copies the stable file, from the descriptor checked to be it, into staging
   * (hashing it), checks it did not change meanwhile and still has its name, and attaches it.
   */
  private async stage(file: string, candidate: Candidate, handle: FileHandle): Promise<void> {
    const label = `${candidate.folder}/${candidate.name}`;
    this.current = { path: label, note: 'copying into staging' };
    let received: ReceivedFile | null = null;
    try {
      try {
        received = await receiveToTempFile(
          this.options.engine.store.fileRoot,
          handle.createReadStream({ start: 0, autoClose: false }),
          this.options.engine.files.maxUploadBytes,
          'watch',
        );
      } catch (error) {
        if (error instanceof FileTooLargeError) {
          this.candidates.delete(file);
          this.problems.set(label, { projectId: candidate.projectId, reason: `too large to attach: the limit is ${error.limitBytes} bytes` });
          return;
        }
        this.addCandidate(file, { ...candidate, note: `could not be read: ${(error as Error).message}` });
        return;
      }
      // Re-checked after the copy: the bytes staged must be those of the stable file, and
      // the name must still be that file (the mapping records its size, mtime and inode).
      const copied = await handle.stat();
      const after = await lstatOrNull(file);
      if (!after || !sameCandidateFile(candidate, copied) || !after.isFile() || !sameCandidateFile(candidate, after) || received.size !== candidate.size) {
        if (after?.isFile()) this.addCandidate(file, { ...candidate, size: after.size, mtimeMs: after.mtimeMs, dev: after.dev, ino: String(after.ino), since: this.now(), note: 'changed while being copied' });
        else if (after) {
          this.candidates.delete(file);
          await this.refuseFile(label, file, after.isSymbolicLink());
        } else this.candidates.delete(file);
        return;
      }
      this.candidates.delete(file);
      this.current = { path: label, note: 'attaching' };
      await this.attach(candidate, received, after);
    } catch (error) {
      this.problems.set(label, { projectId: candidate.projectId, reason: (error as Error).message });
      this.note(`could not attach ${label}: ${(error as Error).message}`);
    } finally {
      this.current = null;
      if (received) await discardTempFile(received.tempPath);
    }
  }

  private async attach(candidate: Candidate, received: ReceivedFile, stat: fs.Stats): Promise<void> {
    const label = `${candidate.folder}/${candidate.name}`;
    // The store, not the cache: a re-key may have moved the folder's project since the event.
    const projectId = await this.folders.projectOfFolderNow(candidate.folder);
    if (projectId === null) return;
    const row = await this.fileRow(projectId, candidate.name);
    const mapping = { project_id: projectId, name: candidate.name, file_hash: received.sha256, size: stat.size, mtime_ms: stat.mtimeMs, ino: String(stat.ino) };
    if (row && row.file_hash === received.sha256) {
      // Touched, not changed.
      await this.db.updateTable('watch_files').set(mapping).where('project_id', '=', projectId).where('name', '=', candidate.name).execute();
      return;
    }
    if (row && (await this.replaceEditedFile(row, candidate, received, mapping))) return;
    // The same bytes whose old name went away a moment ago: a move across disks, or a rename that changed the inode.
    if (!row) {
      for (const pending of this.unlinks.values()) {
        if (pending.row.file_hash === received.sha256) {
          await this.applyMove(pending, projectId, candidate.folder, candidate.name, stat);
          return;
        }
      }
    }
    // The same contents dropped twice into one project are one file.
    const same = await this.db
      .selectFrom('private_files')
      .select('id')
      .where('org_id', '=', this.options.orgId)
      .where('project_id', '=', projectId)
      .where('file_hash', '=', received.sha256)
      .orderBy('id')
      .executeTakeFirst();
    if (same) {
      await this.db.transaction().execute(async (trx) => {
        await trx.insertInto('watch_files').values({ ...mapping, file_id: same.id }).onConflict((conflict) => conflict.columns(['project_id', 'name']).doUpdateSet({ ...mapping, file_id: same.id })).execute();
        await this.options.outbox.releaseHeldDelete(trx, same.id);
      });
      if (row && row.file_id !== same.id) await this.retire(row, label, 'replaced');
      this.counts.deduplicated++;
      this.note(`${label}: same contents as file ${same.id} of this project; recognised, not attached twice`);
      return;
    }
    let replacedHold: number | null = null;
    const fileId = await this.createFile(
      received,
      {
        orgId: this.options.orgId,
        userId: this.options.userId,
        projectId,
        title: candidate.name,
        fileName: candidate.name,
        mimeType: contentTypeFor(candidate.name, received.head),
      },
      async (trx, id) => {
        await trx.insertInto('watch_files').values({ ...mapping, file_id: id }).onConflict((conflict) => conflict.columns(['project_id', 'name']).doUpdateSet({ ...mapping, file_id: id })).execute();
        if (row && row.file_id !== id) replacedHold = await this.holdIfUnreferenced(trx, row.file_id, this.reasonFor('replaced', label));
      },
    );
    this.counts.attached++;
    this.note(`${label}: attached as private file ${fileId} of project ${projectId}`);
    if (replacedHold !== null) await this.afterHold(replacedHold, false);
  }

  /**
   * An edit in place (issue 14): a mapped name whose stable contents changed. The
   * mapped private file keeps its id and takes the new contents in one engine write
   * (the engine keeps the earlier ones as a version; sync sends the change as one
   * upload), then the mapping records the new hash and stat. A crash between the two
   * finds the name changed again at the next rescan, and the engine takes the same
   * bytes again as no change. False when the mapped file is gone: then it is new.
   */
  private async replaceEditedFile(row: WatchFileRow, candidate: Candidate, received: ReceivedFile, mapping: Omit<WatchFileRow, 'file_id'>): Promise<boolean> {
    const file = await this.db.selectFrom('private_files').select('id').where('id', '=', row.file_id).executeTakeFirst();
    if (!file) return false;
    await replaceFileContents(this.options.engine, { orgId: this.options.orgId, fileId: row.file_id, received, by: byUser(this.options.userId), fileName: candidate.name });
    await this.db.updateTable('watch_files').set(mapping).where('project_id', '=', mapping.project_id).where('name', '=', mapping.name).execute();
    this.counts.replaced++;
    this.note(`${candidate.folder}/${candidate.name}: edited in place; private file ${row.file_id} has the new contents (the earlier ones are kept as a version)`);
    return true;
  }

  /**
   * The engine's storeNewFile, minus the snapshot of the project before and after:
   * that snapshot lists every file of the project with a signed link each, so a drop
   * of 1,000 files into one folder would cost O(n²). Only webhooks read it, and the
   * agent's replica delivers none; an engine that does gets storeNewFile itself.
   */
  private async createFile(received: ReceivedFile, record: NewFileRecord, afterInsert: AfterInsert): Promise<number> {
    const context = this.options.engine;
    if (context.webhookWorker) return storeNewFile(context, received, record, afterInsert);
    return adoptBlob(context, received, () =>
      writeTracked(context, { orgId: record.orgId, by: byUser(record.userId) }, async (trx, track) => {
        const id = await insertFileRow(trx, context, received, record);
        await track.privateFile(id, { created: true });
        await afterInsert(trx, id);
        return id;
      }),
    );
  }

  /** A rename or a move: the private file's title and project follow; nothing is uploaded again. */
  private async applyMove(from: PendingUnlink, projectId: number, folder: string, name: string, stat: fs.Stats): Promise<void> {
    const { row } = from;
    const target = path.join(this.root, folder, name);
    this.unlinks.delete(fileKey(row.project_id, row.name));
    this.candidates.delete(target);
    const file = await this.db.selectFrom('private_files').selectAll().where('id', '=', row.file_id).executeTakeFirst();
    if (!file) {
      await this.db.deleteFrom('watch_files').where('project_id', '=', row.project_id).where('name', '=', row.name).execute();
      await this.considerFile(projectId, folder, name, target, stat);
      return;
    }
    const patch: { title?: string; project?: string } = {};
    if (name !== row.name) patch.title = name;
    if (projectId !== row.project_id && file.project_id !== projectId) patch.project = String(projectId);
    if (patch.title !== undefined || patch.project !== undefined) {
      const user = await this.db.selectFrom('users').selectAll().where('id', '=', this.options.userId).executeTakeFirstOrThrow();
      await updateFile(this.options.engine, await actorInOrg(this.options.engine, user, this.options.orgId), file, patch);
    }
    const displaced = await this.fileRow(projectId, name);
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('watch_files').where('project_id', '=', row.project_id).where('name', '=', row.name).execute();
      const mapping = { project_id: projectId, name, file_id: row.file_id, file_hash: row.file_hash, size: stat.size, mtime_ms: stat.mtimeMs, ino: String(stat.ino) };
      await trx.insertInto('watch_files').values(mapping).onConflict((conflict) => conflict.columns(['project_id', 'name']).doUpdateSet(mapping)).execute();
    });
    if (displaced && displaced.file_id !== row.file_id) await this.retire(displaced, `${folder}/${name}`, 'replaced');
    const moved = projectId !== row.project_id;
    if (moved) this.counts.moved++;
    else this.counts.renamed++;
    this.note(`${from.folder}/${row.name} -> ${folder}/${name}: ${moved ? `moved to project ${projectId}` : 'renamed'}; the title follows, nothing is uploaded again`);
  }

  // ---- deletes ------------------------------------------------------------

  private async fileGone(projectId: number, folder: string, name: string, file: string): Promise<void> {
    this.candidates.delete(file);
    this.problems.delete(`${folder}/${name}`);
    const row = await this.fileRow(projectId, name);
    if (row && !this.unlinks.has(fileKey(projectId, name))) this.unlinks.set(fileKey(projectId, name), { row, folder, at: this.now() });
  }

  private reasonFor(kind: 'deleted' | 'replaced' | 'guarded', label: string, guard?: { scope: string; lost: number; total: number }): string {
    switch (kind) {
      case 'deleted':
        return `Deleted in the project folder (${label}). Confirm to delete it everywhere, or restore it to put it back in the folder.`;
      case 'replaced':
        return `Replaced: ${label} was changed in the project folder and attached as a new file. Confirm to delete the earlier version everywhere, or restore it (it comes back as a separate file).`;
      case 'guarded':
        return `Held by the mass-delete guard: ${guard!.scope} lost ${guard!.lost} of its ${guard!.total} files at once (a missing drive, a bad mount, or a mistake?). ${label} stays on the remote; confirm to delete it everywhere, or restore it.`;
    }
  }

  /** Holds the deletion of a private file that no other path in the folders still shows. Returns the hold's outbox id, or null. */
  private async holdIfUnreferenced(db: Kysely<Database>, fileId: number, reason: string): Promise<number | null> {
    const other = await db.selectFrom('watch_files').select('name').where('file_id', '=', fileId).executeTakeFirst();
    if (other) return null;
    const file = await db.selectFrom('private_files').select('id').where('id', '=', fileId).executeTakeFirst();
    if (!file) return null;
    return this.options.outbox.holdDelete(db, fileId, reason, nowIso(this.clock));
  }

  private async retire(row: WatchFileRow, label: string, kind: 'deleted' | 'replaced'): Promise<void> {
    const hold = await this.holdIfUnreferenced(this.db, row.file_id, this.reasonFor(kind, label));
    if (hold !== null) await this.afterHold(hold, false);
  }

  private async afterHold(outboxId: number, guarded: boolean): Promise<void> {
    this.counts.held++;
    this.options.onDeleteHeld?.();
    if (!this.options.confirmDeletes || guarded) return;
    const { fileId } = await this.options.outbox.confirmHeldDelete(outboxId, byUser(this.options.userId));
    this.counts.confirmed++;
    this.note(`deletion of file ${fileId} confirmed (--confirm-deletes)`);
  }

  /** Unlinks that found no add to pair with within the window: deletions, held; many at once trip the guard. */
  private async processUnlinks(): Promise<void> {
    const suspicious = await this.rootLooksEmptied();
    if (suspicious) {
      await this.pauseFor('root_empty', suspicious);
      return;
    }
    const now = this.now();
    const due: PendingUnlink[] = [];
    for (const [key, pending] of this.unlinks) {
      if (pending.at + this.pairWindowMs > now) continue;
      this.unlinks.delete(key);
      // Still gone, from the folder the project has now (it may have been renamed meanwhile)?
      const folder = this.folders.folderOf(pending.row.project_id);
      const row = await this.fileRow(pending.row.project_id, pending.row.name);
      if (!row || row.file_id !== pending.row.file_id || folder === null) continue;
      if (await lstatOrNull(path.join(this.root, folder, row.name))) continue;
      due.push({ ...pending, row, folder });
    }
    if (due.length === 0) return;
    while (this.recentLosses.length && this.recentLosses[0]!.at < now - 60_000) this.recentLosses.shift();
    const pendingByProject = new Map<number, number>();
    for (const pending of [...due, ...this.unlinks.values()]) pendingByProject.set(pending.row.project_id, (pendingByProject.get(pending.row.project_id) ?? 0) + 1);
    const recentByProject = new Map<number, number>();
    for (const loss of this.recentLosses) recentByProject.set(loss.projectId, (recentByProject.get(loss.projectId) ?? 0) + 1);
    const totalRow = await this.db.selectFrom('watch_files').select((builder) => builder.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    const lostAll = [...pendingByProject.values()].reduce((sum, n) => sum + n, 0) + this.recentLosses.length;
    const totalAll = Number(totalRow.count) + this.recentLosses.length;
    const trips = (lost: number, total: number) => lost > this.massDelete.minFiles && lost > total * this.massDelete.fraction;
    const rootGuard = trips(lostAll, totalAll) ? { scope: 'the folder root', lost: lostAll, total: totalAll } : null;
    const projectGuards = new Map<number, { scope: string; lost: number; total: number }>();
    for (const [projectId, pendingCount] of pendingByProject) {
      const mapped = await this.db.selectFrom('watch_files').select((builder) => builder.fn.countAll<number>().as('count')).where('project_id', '=', projectId).executeTakeFirstOrThrow();
      const recent = recentByProject.get(projectId) ?? 0;
      const lost = pendingCount + recent;
      const total = Number(mapped.count) + recent;
      if (trips(lost, total)) projectGuards.set(projectId, { scope: `"${this.folders.folderOf(projectId) ?? projectId}"`, lost, total });
    }
    for (const guard of [rootGuard, ...projectGuards.values()]) {
      if (!guard || this.guards.some((known) => known.scope === guard.scope && Date.parse(known.at) > now - 60_000)) continue;
      this.guards.push({ ...guard, at: new Date(now).toISOString() });
      if (this.guards.length > RECENT_CAP) this.guards.shift();
      this.note(`mass-delete guard: ${guard.scope} lost ${guard.lost} of ${guard.total} files at once; every deletion is held, none is confirmed automatically`);
    }
    for (const pending of due) {
      const label = `${pending.folder}/${pending.row.name}`;
      const guard = rootGuard ?? projectGuards.get(pending.row.project_id) ?? null;
      const hold = await this.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('watch_files').where('project_id', '=', pending.row.project_id).where('name', '=', pending.row.name).execute();
        return this.holdIfUnreferenced(trx, pending.row.file_id, guard ? this.reasonFor('guarded', label, guard) : this.reasonFor('deleted', label));
      });
      this.recentLosses.push({ projectId: pending.row.project_id, at: now });
      if (hold !== null) {
        this.note(`${label} deleted in the folder: deletion held${guard ? ' by the mass-delete guard' : ''}`);
        await this.afterHold(hold, guard !== null);
      }
    }
  }

  // ---- rescans --------------------------------------------------------------

  private async beginFullRescan(): Promise<void> {
    this.fullRescanWanted = false;
    this.overflowedAll = false;
    this.overflowed.clear();
    this.lastRescanAt = this.now();
    this.nextRescanAt = this.lastRescanAt + this.rescanIntervalMs * (0.8 + Math.random() * 0.4);
    this.counts.rescans++;
    this.ignored.clear();
    this.outside.clear();
    this.refusedBeforeRescan = new Set(this.refusedFiles.keys());
    this.refusedFiles.clear();
    await this.reconcile();
    for (const projectId of this.folders.projectIds()) this.rescanFolders.add(projectId);
    this.rootScanWanted = true;
  }

  /** Compares a project folder with what is recorded: missing files become unlinks, new and changed ones candidates. */
  private async rescanProject(projectId: number): Promise<void> {
    const folder = this.folders.folderOf(projectId);
    if (folder === null) return;
    this.overflowed.delete(folder);
    const dir = path.join(this.root, folder);
    if (!(await isRealFolder(dir))) {
      // Gone, or swapped for a link since the last reconcile: never listed through the link.
      this.requestReconcile();
      return;
    }
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (errorCode(error) === 'ENOENT') this.requestReconcile();
      return;
    }
    const rows = new Map((await this.db.selectFrom('watch_files').selectAll().where('project_id', '=', projectId).execute()).map((row) => [row.name, row]));
    const present = new Set(entries.map((entry) => entry.name));
    const now = this.now();
    for (const row of rows.values()) {
      const key = fileKey(projectId, row.name);
      if (!present.has(row.name) && !this.unlinks.has(key)) this.unlinks.set(key, { row, folder, at: now });
    }
    for (const entry of entries) {
      const rel = `${folder}/${entry.name}`;
      const reason = ignoreReason(entry.name);
      if (reason) {
        this.ignored.set(rel, reason);
        continue;
      }
      if (entry.isDirectory()) {
        this.outside.set(`${rel}/`, 'a subfolder of a project folder: its files are not attached');
        continue;
      }
      if (!entry.isFile()) {
        await this.refuseFile(rel, path.join(dir, entry.name), entry.isSymbolicLink());
        continue;
      }
      const file = path.join(dir, entry.name);
      const stat = await lstatOrNull(file);
      if (!stat) continue;
      const row = rows.get(entry.name);
      if (row && sameStat(row, stat)) {
        this.unlinks.delete(fileKey(projectId, entry.name));
        continue;
      }
      await this.considerFile(projectId, folder, entry.name, file, stat);
    }
  }

  /** Files directly in the root and in folders that are no project's: reported, never attached. */
  private async scanRoot(): Promise<void> {
    const entries = await fsp.readdir(this.root, { withFileTypes: true }).catch(() => [] as fs.Dirent[]);
    for (const entry of entries) {
      if (entry.name.startsWith('.') || this.refusedFolders.has(`${entry.name}/`)) continue;
      if (!entry.isDirectory()) {
        const reason = ignoreReason(entry.name);
        if (reason) this.ignored.set(entry.name, reason);
        else this.outside.set(entry.name, 'directly in the folder root, not in a project folder: not attached');
        continue;
      }
      if (this.folders.projectOfFolder(entry.name) !== null) continue;
      const foreign = this.foreignFolders.get(entry.name);
      if (foreign !== undefined) {
        this.outside.set(`${entry.name}/`, foreign);
        continue;
      }
      const inside = await fsp.readdir(path.join(this.root, entry.name)).catch(() => [] as string[]);
      if (inside.length === 0) this.outside.set(`${entry.name}/`, 'a folder that is not a project\'s folder');
      for (const name of inside.slice(0, LIST_CAP)) {
        const reason = ignoreReason(name);
        if (reason) this.ignored.set(`${entry.name}/${name}`, reason);
        else this.outside.set(`${entry.name}/${name}`, `in "${entry.name}", which is not a project's folder: not attached`);
      }
    }
  }

  // ---- folders, deletions and moves made elsewhere, arrivals ----------------

  private async reconcile(): Promise<void> {
    this.reconcileDueAt = this.now() + this.reconcileIntervalMs;
    this.reconcileRequested = false;
    const changes = await this.folders.reconcile();
    for (const { projectId, folder } of changes.created) {
      this.note(`folder "${folder}" made for project ${projectId}`);
      // A folder taken over (it was there before its project reached this store: the first sync
      // after a sign-in) may already hold files: looked at now, like a folder found again.
      this.rescanFolders.add(projectId);
    }
    for (const { from, to } of changes.renamed) this.note(`folder "${from}" renamed to "${to}"`);
    for (const { projectId, folder } of [...changes.adopted, ...changes.lost]) {
      this.note(`folder of project ${projectId} is now "${this.folders.folderOf(projectId)}" (was "${folder}")`);
      this.rescanFolders.add(projectId);
    }
    for (const { projectId } of [...changes.created, ...changes.adopted, ...changes.lost]) this.forgetOutsideIn(this.folders.folderOf(projectId));
    for (const { folder, reason } of changes.problems) this.problems.set(`${folder}/`, { projectId: null, reason: `the folder could not be updated: ${reason}` });
    const refusedBefore = this.refusedFolders;
    this.refusedFolders = new Map(changes.refused.map(({ projectId, folder, reason }) => [`${folder}/`, `The folder of project ${projectId} is refused: ${reason}.`]));
    for (const { projectId, folder } of changes.refused) {
      this.outside.delete(folder);
      // Said once when it happens, not on every pass.
      if (!refusedBefore.has(`${folder}/`)) this.note(`folder "${folder}" of project ${projectId} is not a real folder (a link?): refused, nothing read from it or written into it`);
    }
    await this.followDeletionsElsewhere();
    await this.followMovesElsewhere();
    await this.followContentsChangedElsewhere();
    await this.queueArrivals();
  }

  /** A folder just became a project's: what the root scan said of it and its files ("not a project's folder") no longer holds. */
  private forgetOutsideIn(folder: string | null): void {
    if (folder === null) return;
    for (const key of [...this.outside.keys()]) if (key === folder || key.startsWith(`${folder}/`)) this.outside.delete(key);
    for (const key of [...this.ignored.keys()]) if (key.startsWith(`${folder}/`)) this.ignored.delete(key);
  }

  /**
   * New contents of a mapped file made elsewhere (on the remote, pulled by sync; or
   * in the app): a folder copy unchanged since it was mapped takes them, written
   * into .solardesk/tmp/ and renamed over it (so it is never half-written), and its
   * mapping follows. A copy changed here meanwhile is left alone: the stability
   * gate takes it as an edit in place. The bytes are fetched here if missing (on
   * the worker loop: such changes are rare, unlike arrivals).
   */
  private async followContentsChangedElsewhere(): Promise<void> {
    const rows = await this.db
      .selectFrom('watch_files')
      .innerJoin('private_files', 'private_files.id', 'watch_files.file_id')
      .selectAll('watch_files')
      .where('private_files.file_hash', 'is not', null)
      .whereRef('private_files.file_hash', '!=', 'watch_files.file_hash')
      .limit(100)
      .execute();
    for (const row of rows) {
      const folder = this.folders.folderOf(row.project_id);
      if (folder === null || !(await isRealFolder(path.join(this.root, folder)))) continue;
      const label = `${folder}/${row.name}`;
      const target = path.join(this.root, folder, row.name);
      const stat = await lstatOrNull(target);
      if (!stat || !sameStat(row, stat)) continue;
      const file = await this.db.selectFrom('private_files').selectAll().where('id', '=', row.file_id).executeTakeFirst();
      if (!file?.file_hash) continue;
      const blob = blobPath(this.options.engine.store.fileRoot, file.file_hash);
      const temp = path.join(agentTempDir(this.root), `contents-${row.file_id}-${file.file_hash.slice(0, 16)}`);
      const problem = this.downloadProblems.get(row.file_id);
      if (problem && problem.retryAt > this.now()) continue;
      try {
        if (!fs.existsSync(blob)) {
          if (!this.options.engine.fetchMissingBlob) continue;
          await this.options.engine.fetchMissingBlob(file);
        }
        await fsp.mkdir(agentTempDir(this.root), { recursive: true });
        await fsp.copyFile(blob, temp);
        // Changed here while the bytes came: the edit made here is the one to keep.
        const before = await lstatOrNull(target);
        if (!before || !sameStat(row, before)) continue;
        await fsp.rename(temp, target);
        const placed = await fsp.lstat(target);
        await this.db
          .updateTable('watch_files')
          .set({ file_hash: file.file_hash, size: placed.size, mtime_ms: placed.mtimeMs, ino: String(placed.ino) })
          .where('project_id', '=', row.project_id)
          .where('name', '=', row.name)
          .execute();
        this.candidates.delete(target);
        this.downloadProblems.delete(row.file_id);
        this.note(`${label}: new contents of private file ${row.file_id} made elsewhere, written into the folder`);
      } catch (error) {
        // Tried again after a while, not at every reconcile; the status lists it as waiting for its bytes.
        this.downloadProblems.set(row.file_id, { reason: `new contents: ${(error as Error).message}`, retryAt: this.now() + DOWNLOAD_RETRY_MS });
      } finally {
        await fsp.rm(temp, { force: true });
      }
    }
  }

  /** A private file deleted elsewhere (the remote, the app): its unchanged copy leaves the folder for .solardesk/trash/. */
  private async followDeletionsElsewhere(): Promise<void> {
    const rows = await this.db
      .selectFrom('watch_files')
      .selectAll()
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('private_files').select('id').whereRef('private_files.id', '=', 'watch_files.file_id'))))
      .limit(500)
      .execute();
    for (const row of rows) {
      const folder = this.folders.folderOf(row.project_id);
      await this.db.deleteFrom('watch_files').where('project_id', '=', row.project_id).where('name', '=', row.name).execute();
      if (folder === null) continue;
      const file = path.join(this.root, folder, row.name);
      const stat = await lstatOrNull(file);
      if (!stat) continue;
      if (sameStat(row, stat)) {
        const kept = await moveToTrash(this.root, file, folder, this.clock);
        this.counts.trashed++;
        this.note(`${folder}/${row.name} was deleted elsewhere; the local copy is kept in ${path.relative(this.root, kept)}`);
      } else {
        // Changed here since: a new file to attach, not one to remove.
        await this.considerFile(row.project_id, folder, row.name, file, stat);
      }
    }
  }

  /** A private file moved to another project elsewhere: its copy moves to that project's folder. */
  private async followMovesElsewhere(): Promise<void> {
    const rows = await this.db
      .selectFrom('watch_files')
      .innerJoin('private_files', 'private_files.id', 'watch_files.file_id')
      .innerJoin('watch_projects', 'watch_projects.project_id', 'private_files.project_id')
      .selectAll('watch_files')
      .select('private_files.project_id as now_project')
      .whereRef('private_files.project_id', '!=', 'watch_files.project_id')
      .limit(200)
      .execute();
    for (const row of rows) {
      const fromFolder = this.folders.folderOf(row.project_id);
      const toFolder = row.now_project === null ? null : this.folders.folderOf(row.now_project);
      if (fromFolder === null || toFolder === null || row.now_project === null) continue;
      const source = path.join(this.root, fromFolder, row.name);
      const stat = await lstatOrNull(source);
      if (!stat || !sameStat(row, stat)) continue;
      const claimed = new Set((await this.db.selectFrom('watch_files').select('name').where('project_id', '=', row.now_project).execute()).map((other) => nameKey(other.name)));
      const placed = await placeArrival(this.root, path.join(this.root, toFolder), row.name, source, row.file_hash, (key) => claimed.has(key));
      await fsp.rm(source, { force: true });
      await this.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('watch_files').where('project_id', '=', row.project_id).where('name', '=', row.name).execute();
        const mapping = { project_id: row.now_project!, name: placed.name, file_id: row.file_id, file_hash: row.file_hash, size: placed.size, mtime_ms: placed.mtimeMs, ino: placed.ino };
        await trx.insertInto('watch_files').values(mapping).onConflict((conflict) => conflict.columns(['project_id', 'name']).doUpdateSet(mapping)).execute();
      });
      this.note(`${fromFolder}/${row.name} moved to "${toFolder}" (its project changed elsewhere)`);
    }
  }

  /** Private files of a project with a folder that the folder does not show yet (attached remotely or in the app). */
  private async queueArrivals(): Promise<void> {
    const rows = await this.db
      .selectFrom('private_files')
      .innerJoin('watch_projects', 'watch_projects.project_id', 'private_files.project_id')
      .select('private_files.id')
      .where('private_files.org_id', '=', this.options.orgId)
      .where('private_files.file_hash', 'is not', null)
      // A project whose folder is refused (a link) gets nothing written: not fetched for it either.
      .$if(this.folders.refusedProjectIds().length > 0, (query) => query.where('private_files.project_id', 'not in', this.folders.refusedProjectIds()))
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('watch_files').select('file_id').whereRef('watch_files.file_id', '=', 'private_files.id'))),
      )
      // The same contents already in that folder (under another name) are not written twice.
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('watch_files')
              .select('file_id')
              .whereRef('watch_files.project_id', '=', 'private_files.project_id')
              .whereRef('watch_files.file_hash', '=', 'private_files.file_hash'),
          ),
        ),
      )
      // Deleted in the folder and held, or being deleted: not brought back.
      .where((builder) => this.options.outbox.hasNoQueuedDelete(builder))
      .orderBy('private_files.id')
      .limit(200)
      .execute();
    const now = this.now();
    for (const { id } of rows) {
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
    try {
      for (let id = this.toFetch.shift(); id !== undefined && !this.closed; id = this.toFetch.shift()) {
        try {
          const file = await this.db.selectFrom('private_files').selectAll().where('id', '=', id).executeTakeFirst();
          if (!file?.file_hash) {
            this.fetching.delete(id);
            continue;
          }
          if (!fs.existsSync(blobPath(this.options.engine.store.fileRoot, file.file_hash))) {
            if (!this.options.engine.fetchMissingBlob) throw new Error('its contents are not on this machine');
            await this.options.engine.fetchMissingBlob(file);
          }
          this.downloadProblems.delete(id);
          this.ready.push(id);
          this.wake();
        } catch (error) {
          this.fetching.delete(id);
          this.downloadProblems.set(id, { reason: (error as { body?: { detail?: string } }).body?.detail ?? (error as Error).message, retryAt: this.now() + DOWNLOAD_RETRY_MS });
        }
      }
    } finally {
      this.fetchLoopRunning = false;
    }
  }

  private async placeArrivalOf(id: number): Promise<void> {
    this.fetching.delete(id);
    const file = await this.db.selectFrom('private_files').selectAll().where('id', '=', id).executeTakeFirst();
    if (!file?.file_hash || file.project_id === null) return;
    const folder = this.folders.folderOf(file.project_id);
    if (folder === null) return;
    const mapped = await this.db.selectFrom('watch_files').select('name').where('file_id', '=', id).executeTakeFirst();
    if (mapped) return;
    const claimed = new Set((await this.db.selectFrom('watch_files').select('name').where('project_id', '=', file.project_id).execute()).map((row) => nameKey(row.name)));
    this.current = { path: `${folder}/${file.title}`, note: 'writing into the folder' };
    try {
      const blob = blobPath(this.options.engine.store.fileRoot, file.file_hash);
      const placed = await placeArrival(
        this.root,
        path.join(this.root, folder),
        await nameWithExtension(file.title, file.file_name, file.mime_type, () => headOfFile(blob), `file-${file.id}`),
        blob,
        file.file_hash,
        (key) => claimed.has(key),
      );
      const mapping = { project_id: file.project_id, name: placed.name, file_id: id, file_hash: file.file_hash, size: placed.size, mtime_ms: placed.mtimeMs, ino: placed.ino };
      await this.db.insertInto('watch_files').values(mapping).onConflict((conflict) => conflict.columns(['project_id', 'name']).doUpdateSet(mapping)).execute();
      this.candidates.delete(path.join(this.root, folder, placed.name));
      this.counts.downloaded++;
      this.note(`${folder}/${placed.name}: ${placed.wasThere ? 'already there' : 'written'} for private file ${id}`);
    } catch (error) {
      this.downloadProblems.set(id, { reason: (error as Error).message, retryAt: this.now() + DOWNLOAD_RETRY_MS });
    } finally {
      this.current = null;
    }
  }

  // ---- status -------------------------------------------------------------

  async status(): Promise<FolderStatus> {
    const files: FolderFileStatus[] = [];
    for (const [file, candidate] of this.candidates) {
      if (files.length >= LIST_CAP) break;
      files.push({
        path: toSlash(path.relative(this.root, file)),
        project_id: candidate.projectId,
        file_id: null,
        state: 'waiting',
        reason: candidate.note
          ? `Waiting: ${candidate.note}.`
          : `Waiting until it has not changed for ${this.windowMs / 1000} s, so a file still being written is never attached half-done.`,
        bytes_total: candidate.size,
      });
    }
    if (this.current) files.push({ path: this.current.path, project_id: null, file_id: null, state: 'attaching', reason: `Now ${this.current.note}.` });
    for (const [label, problem] of this.problems) files.push({ path: label, project_id: problem.projectId, file_id: null, state: 'failed', reason: problem.reason });
    const outgoing = await this.options.outbox.listFolderUploads(LIST_CAP);
    for (const row of outgoing) {
      const progress = this.uploadProgress.get(row.record_id);
      const failed = row.status === 'parked';
      files.push({
        path: `${row.folder}/${row.name}`,
        project_id: row.project_id,
        file_id: row.record_id,
        state: failed ? 'failed' : 'uploading',
        reason: failed
          ? `The remote refused it: ${row.last_error ?? 'no reason given'}.`
          : row.last_error
            ? `Uploading; retrying after a failure: ${row.last_error}`
            : progress
              ? 'Uploading.'
              : 'Attached here; waiting to be uploaded.',
        bytes_sent: progress?.sent ?? 0,
        bytes_total: progress?.total ?? row.size,
      });
    }
    const held = await this.options.outbox.listHeldFileDeletes(LIST_CAP);
    for (const row of held) {
      files.push({ path: '', project_id: null, file_id: row.record_id, state: 'delete_held', reason: `${row.last_error ?? 'Held.'} (sync/pending/${row.id}/)` });
    }
    for (const [id, problem] of this.downloadProblems) {
      files.push({ path: '', project_id: null, file_id: id, state: 'downloading', reason: `Waiting to be written into its folder: ${problem.reason}` });
    }
    const attached = await this.db.selectFrom('watch_files').select((builder) => builder.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    const byState: Record<string, number> = {};
    for (const file of files) byState[file.state] = (byState[file.state] ?? 0) + 1;
    return {
      enabled: true,
      root: this.root,
      state: this.state,
      detail: this.detail,
      quiet: this.isQuiet(),
      confirm_deletes: this.options.confirmDeletes ?? false,
      stability_window_ms: this.windowMs,
      project_folders: this.folders.size,
      attached_files: Number(attached.count),
      last_rescan_at: this.lastRescanAt === null ? null : new Date(this.lastRescanAt).toISOString(),
      next_rescan_at: this.nextRescanAt ? new Date(this.nextRescanAt).toISOString() : null,
      files,
      ignored: [...this.ignored].map(([file, reason]) => ({ path: file, reason })),
      outside: [...this.outside].map(([file, reason]) => ({ path: file, reason })),
      refused: [...this.refusedFolders, ...this.refusedFiles].map(([file, reason]) => ({ path: file, reason })),
      guards: [...this.guards],
      recent: [...this.recent],
      counts: {
        ...this.counts,
        ...byState,
        ignored: this.ignored.size + this.ignored.overflow,
        outside: this.outside.size + this.outside.overflow,
        refused: this.refusedFolders.size + this.refusedFiles.size + this.refusedFiles.overflow,
      },
    };
  }
}
