// Intake: what tells the watcher where to look. chokidar on the folder root (the
// project folders, directories only; files are seen through their folder's raw
// events), one queued probe per path, and bursts: past `burstThreshold` queued
// events for one folder (four times it for all) the queue is dropped and the folder
// (or everything) rescanned instead. Memory stays bounded by what needs attention.
// Also where rescans are asked for; folder-scan.ts does them.
import type fs from 'node:fs';
import path from 'node:path';
import chokidar, { type FSWatcher } from 'chokidar';
import { AGENT_FOLDER, type ProjectFolders } from './project-folders.ts';
import { ignoreReason } from './folder-names.ts';
import type { FolderReport } from './folder-status.ts';
import type { Timers } from './worker-loop.ts';

/** `probe`: something happened to this name (a directory watcher's raw event); a stat says what. */
export type WatchEvent = { type: 'probe' | 'addDir' | 'unlinkDir'; path: string };

/** Where a path is, for the watcher. */
export type Location =
  | { kind: 'root' }
  | { kind: 'agent' }
  | { kind: 'file'; projectId: number; folder: string; name: string }
  /** A file directly in the inbox folder (inbox-intake.ts). */
  | { kind: 'inbox'; name: string }
  | { kind: 'ignored'; rel: string; reason: string }
  | { kind: 'outside'; rel: string; reason: string }
  | { kind: 'top'; name: string };

export const toSlash = (rel: string) => rel.split(path.sep).join('/');

/** A FIFO of work items with an index head, so taking from the front costs nothing. */
export class Queue<T> {
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

/**
 * What a path under the root is: a project folder's file, the inbox folder's, something ignored or outside, a top-level name.
 * `foreignFolders`: top-level folders that are another workspace's, by name, with why (reported as outside, once, as `name/`).
 * `inboxFolder`: the top-level folder whose files go to the inbox (inbox-intake.ts), if there is one.
 */
export function locate(
  root: string,
  folders: Pick<ProjectFolders, 'projectOfFolder'>,
  file: string,
  foreignFolders: ReadonlyMap<string, string> = new Map(),
  inboxFolder: string | null = null,
): Location {
  const rel = path.relative(root, file);
  if (rel === '') return { kind: 'root' };
  const parts = rel.split(path.sep);
  if (parts[0] === AGENT_FOLDER) return { kind: 'agent' };
  const name = parts[parts.length - 1]!;
  const relSlash = toSlash(rel);
  const ignored = ignoreReason(name) ?? (parts[0]!.startsWith('.') ? 'inside a hidden folder' : null);
  if (ignored) return { kind: 'ignored', rel: relSlash, reason: ignored };
  if (parts.length === 1) return { kind: 'top', name };
  const foreign = foreignFolders.get(parts[0]!);
  if (foreign !== undefined) return { kind: 'outside', rel: `${toSlash(parts[0]!)}/`, reason: foreign };
  if (parts[0] === inboxFolder) {
    if (parts.length === 2) return { kind: 'inbox', name };
    return { kind: 'outside', rel: relSlash, reason: `in a subfolder of ${inboxFolder}: only files directly in it are sorted` };
  }
  const projectId = folders.projectOfFolder(parts[0]!);
  if (projectId === null) return { kind: 'outside', rel: relSlash, reason: `in "${parts[0]}", which is not a project's folder: not attached` };
  if (parts.length > 2) return { kind: 'outside', rel: relSlash, reason: 'in a subfolder of a project folder: only files directly in it are attached' };
  return { kind: 'file', projectId, folder: parts[0]!, name };
}

export interface EventIntakeOptions {
  root: string;
  folders: Pick<ProjectFolders, 'projectOfFolder'>;
  report: FolderReport;
  /** Past this many queued events for one folder (four times it for all), the queue is dropped and rescanned. */
  burstThreshold: number;
  /** Folders directly under the root that are another workspace's: nothing inside them is watched here. */
  foreignFolders?: ReadonlyMap<string, string>;
  timers: Timers;
  /** The watcher is closing: nothing more is taken or asked for. */
  closed: () => boolean;
  /** Events are taken only while the root is watched (not missing, not emptied). */
  watching: () => boolean;
  /** Work was queued: the worker loop should look. */
  wake: () => void;
}

export class EventIntake {
  private readonly root: string;
  private chokidar: FSWatcher | null = null;
  private readonly events = new Queue<WatchEvent>();
  /** Paths with a probe queued: a file being written fires an event per write, one probe is enough. */
  private readonly queuedProbes = new Set<string>();
  private readonly eventsPerFolder = new Map<string, number>();
  private readonly overflowed = new Set<string>();
  private overflowedAll = false;
  /** Project folders to list again. */
  readonly rescanFolders = new Set<number>();
  fullRescanWanted = false;
  rootScanWanted = false;

  constructor(private readonly options: EventIntakeOptions) {
    this.root = options.root;
  }

  get queued(): number {
    return this.events.length;
  }

  /** Nothing queued and no rescan asked for. */
  get empty(): boolean {
    return this.events.length === 0 && this.rescanFolders.size === 0 && !this.fullRescanWanted && !this.rootScanWanted;
  }

  async startChokidar(): Promise<void> {
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
        if (rel.includes(path.sep) && this.options.foreignFolders?.has(rel.split(path.sep)[0]!)) return true;
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
      this.rescanFolderOf(this.topFolderOf(dir));
      this.options.wake();
    });
    watcher.on('error', (error) => this.options.report.note(`watcher error: ${(error as Error).message}`));
    this.chokidar = watcher;
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  }

  async stopChokidar(): Promise<void> {
    const watcher = this.chokidar;
    this.chokidar = null;
    await watcher?.close();
  }

  topFolderOf(file: string): string {
    return path.relative(this.root, file).split(path.sep)[0] ?? '';
  }

  /** The folder's project folder is listed again, or the root's loose names when it is no project's. */
  private rescanFolderOf(folder: string): void {
    const projectId = this.options.folders.projectOfFolder(folder);
    if (projectId !== null) this.rescanFolders.add(projectId);
    else this.rootScanWanted = true;
  }

  enqueue(event: WatchEvent): void {
    if (this.options.closed() || !this.options.watching()) return;
    const folder = this.topFolderOf(event.path);
    if (this.overflowedAll || this.overflowed.has(folder)) return;
    if (event.type === 'probe') {
      if (this.queuedProbes.has(event.path)) return;
      this.queuedProbes.add(event.path);
    }
    const count = (this.eventsPerFolder.get(folder) ?? 0) + 1;
    this.eventsPerFolder.set(folder, count);
    this.events.push(event);
    const { burstThreshold, report } = this.options;
    if (this.events.length > burstThreshold * 4) {
      // A storm across the whole root: forget the queue, rescan everything.
      this.overflowedAll = true;
      this.events.clear();
      this.queuedProbes.clear();
      this.eventsPerFolder.clear();
      this.fullRescanWanted = true;
      report.counts.overflows++;
      report.note(`${burstThreshold * 4} events queued: dropped them and rescanning everything`);
    } else if (count > burstThreshold) {
      this.overflowed.add(folder);
      this.events.retain((queued) => this.topFolderOf(queued.path) !== folder);
      for (const queued of this.queuedProbes) if (this.topFolderOf(queued) === folder) this.queuedProbes.delete(queued);
      this.eventsPerFolder.delete(folder);
      this.rescanFolderOf(folder);
      report.counts.overflows++;
      report.note(`more than ${burstThreshold} events for ${folder}: dropped them and rescanning it`);
    }
    this.options.wake();
  }

  /** The next queued event, if any. */
  take(): WatchEvent | undefined {
    const event = this.events.shift();
    if (!event) return undefined;
    const folder = this.topFolderOf(event.path);
    const count = (this.eventsPerFolder.get(folder) ?? 1) - 1;
    if (count <= 0) this.eventsPerFolder.delete(folder);
    else this.eventsPerFolder.set(folder, count);
    this.queuedProbes.delete(event.path);
    return event;
  }

  /** The next project folder to list again, if any. */
  takeFolderRescan(): number | undefined {
    const folder = this.rescanFolders.values().next();
    if (folder.done) return undefined;
    this.rescanFolders.delete(folder.value);
    return folder.value;
  }

  /**
   * A new folder: files written into it before its watcher started are found by
   * looking, now and once more when the watcher surely runs.
   */
  rescanFolderSoon(folder: string): void {
    const rescan = () => {
      if (this.options.closed()) return;
      this.rescanFolderOf(folder);
      this.options.wake();
    };
    rescan();
    this.options.timers.after(300, rescan, true);
  }

  /** A full rescan starts: events for every folder are taken again. */
  startFullRescan(): void {
    this.fullRescanWanted = false;
    this.overflowedAll = false;
    this.overflowed.clear();
  }

  /** A folder is being listed again: its events are taken again. */
  folderRescanned(folder: string): void {
    this.overflowed.delete(folder);
  }

  /** The disk went away: what was queued described it. */
  dropQueued(): void {
    this.events.clear();
    // A probe remembered as queued would make the same path's next event a no-op after the return.
    this.queuedProbes.clear();
    this.eventsPerFolder.clear();
  }
}
