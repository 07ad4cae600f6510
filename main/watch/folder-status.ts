// What the folder watcher tells: the lists of files left alone, refused or failed,
// the guards that tripped, the last things it did in words, its counts, and the
// status answer built from them (GET .../sync/folder/, shape in shared/schemas/folder.ts).
// Every part of the watcher reports here; none keeps a list of its own for the status.
import fsp from 'node:fs/promises';
import type { FolderFileStatus, FolderStatus } from '../../shared/schemas/folder.ts';
import type { FolderOutbox } from './folder-outbox.ts';
import type { FolderUpload } from './watch-store.ts';

/** How many entries each list keeps (the counts go on past it). */
export const LIST_CAP = 500;
/** How many lines `recent` and `guards` keep. */
export const RECENT_CAP = 50;

/** A bounded map for what status lists: the oldest entries go first. */
export class CappedMap<V> extends Map<string, V> {
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

export const newWatchCounts = () => ({ attached: 0, replaced: 0, deduplicated: 0, renamed: 0, moved: 0, held: 0, confirmed: 0, downloaded: 0, trashed: 0, rescans: 0, overflows: 0 });
export type WatchCounts = ReturnType<typeof newWatchCounts>;

export type MassDeleteGuard = FolderStatus['guards'][number];

/**
 * What the watcher did that a person's timeline shows (the core's activity log,
 * issue 32), told as it happens beside the words of `note`: the core is handed these,
 * never the lines, so nothing is read back from sentences.
 */
export type FolderActivity =
  | { kind: 'attached'; projectId: number; fileId: number; name: string }
  | { kind: 'replaced'; projectId: number; fileId: number; name: string; isConflict: boolean }
  | { kind: 'renamed'; projectId: number; fileId: number; from: string; to: string; isMove: boolean }
  | { kind: 'delete_held'; projectId: number; fileId: number; name: string; holdId: number; isGuarded: boolean }
  | { kind: 'written'; projectId: number; fileId: number; name: string };

/** What the status says of a file whose new contents from elsewhere wait until a program lets go of it (issue 35). */
export const NEWER_VERSION_WAITING = 'Newer version from the office: open it when you close yours';

export class FolderReport {
  /** Files that could not be attached (too large, unreadable) and folders that could not be updated, by "folder/name". */
  readonly problems = new CappedMap<{ projectId: number | null; reason: string }>();
  /** Files whose new contents made elsewhere wait because a program has the folder copy open, by "folder/name". */
  readonly newerWaiting = new CappedMap<{ projectId: number; fileId: number }>();
  readonly ignored = new CappedMap<string>();
  readonly outside = new CappedMap<string>();
  /** Files refused (links, devices), by "folder/name". */
  readonly refusedFiles = new CappedMap<string>();
  /** Those refused before the last full rescan: listed again, but not said again in `recent` every ten minutes. */
  private refusedBeforeRescan = new Set<string>();
  /** Project folders refused (links, files), by "folder/", as of the last reconcile. */
  refusedFolders = new Map<string, string>();
  readonly guards: MassDeleteGuard[] = [];
  readonly recent: string[] = [];
  readonly uploadProgress = new Map<number, { sent: number; total: number }>();
  readonly counts: WatchCounts = newWatchCounts();
  /** What the worker loop is doing to one file right now (copying, attaching, writing an arrival). */
  current: { path: string; note: string } | null = null;

  constructor(
    private readonly log: (line: string) => void = () => {},
    /** What a person's timeline shows (the core's activity log); a failing listener never stops the watcher. */
    private readonly onActivity: (activity: FolderActivity) => void = () => {},
  ) {}

  /** Tells the timeline what just happened. */
  activity(activity: FolderActivity): void {
    try {
      this.onActivity(activity);
    } catch (error) {
      this.log(`folders: the activity log could not take an entry: ${(error as Error).message}`);
    }
  }

  note(line: string): void {
    // A log line's own timestamp, for people reading it: the real time, not the injected clock.
    this.recent.push(`${new Date().toISOString()} ${line}`);
    if (this.recent.length > RECENT_CAP) this.recent.shift();
    this.log(`folders: ${line}`);
  }

  /** Links and devices in a project folder are listed as refused, with why; what a link points to is never read. */
  async refuseFile(label: string, file: string, isLink: boolean): Promise<void> {
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

  /** A full rescan lists everything afresh; refusals it finds again are not said again. */
  startFullRescan(): void {
    this.counts.rescans++;
    this.ignored.clear();
    this.outside.clear();
    this.refusedBeforeRescan = new Set(this.refusedFiles.keys());
    this.refusedFiles.clear();
  }

  /** A folder just became a project's: what the root scan said of it and its files ("not a project's folder") no longer holds. */
  forgetOutsideIn(folder: string | null): void {
    if (folder === null) return;
    for (const key of [...this.outside.keys()]) if (key === folder || key.startsWith(`${folder}/`)) this.outside.delete(key);
    for (const key of [...this.ignored.keys()]) if (key.startsWith(`${folder}/`)) this.ignored.delete(key);
  }

  /** Records a guard that tripped, unless the same scope tripped within the last minute. Returns whether it is new. */
  recordGuard(guard: Omit<MassDeleteGuard, 'at'>, now: number): boolean {
    if (this.guards.some((known) => known.scope === guard.scope && Date.parse(known.at) > now - 60_000)) return false;
    this.guards.push({ ...guard, at: new Date(now).toISOString() });
    if (this.guards.length > RECENT_CAP) this.guards.shift();
    this.note(`mass-delete guard: ${guard.scope} lost ${guard.lost} of ${guard.total} files at once; every deletion is held, none is confirmed automatically`);
    return true;
  }
}

/** A file waiting out its stability window, as the status lists it. */
export interface WaitingFile {
  path: string;
  projectId: number;
  note: string | null;
  size: number;
}

/** What the status needs from the other parts, at the moment it is asked. */
export interface StatusSources {
  root: string;
  state: FolderStatus['state'];
  detail: string | null;
  confirmDeletes: boolean;
  stabilityWindowMs: number;
  projectFolders: number;
  lastRescanAt: number | null;
  nextRescanAt: number;
  waiting: Iterable<WaitingFile>;
  downloadProblems: Iterable<[number, { reason: string }]>;
  outbox: FolderOutbox;
  /** Files from the folders still waiting to reach the remote (WatchStore.folderUploads over the outbox's creates). */
  folderUploads: (limit: number) => Promise<FolderUpload[]>;
  attachedFiles: () => Promise<number>;
  /** Read last, after the awaits above, as the watcher's own answer has always been. */
  quiet: () => boolean;
}

export async function folderStatus(report: FolderReport, sources: StatusSources): Promise<FolderStatus> {
  const files: FolderFileStatus[] = [];
  for (const waiting of sources.waiting) {
    if (files.length >= LIST_CAP) break;
    files.push({
      path: waiting.path,
      project_id: waiting.projectId,
      file_id: null,
      state: 'waiting',
      reason: waiting.note
        ? `Waiting: ${waiting.note}.`
        : `Waiting until it has not changed for ${sources.stabilityWindowMs / 1000} s, so a file still being written is never attached half-done.`,
      bytes_total: waiting.size,
    });
  }
  if (report.current) files.push({ path: report.current.path, project_id: null, file_id: null, state: 'attaching', reason: `Now ${report.current.note}.` });
  for (const [label, waiting] of report.newerWaiting) {
    files.push({
      path: label,
      project_id: waiting.projectId,
      file_id: waiting.fileId,
      state: 'waiting',
      reason: `${NEWER_VERSION_WAITING}. It is open in a program here, so it is not written over; a save of yours meanwhile becomes a conflict to settle on the Sync screen, not an upload over it.`,
    });
  }
  for (const [label, problem] of report.problems) files.push({ path: label, project_id: problem.projectId, file_id: null, state: 'failed', reason: problem.reason });
  const outgoing = await sources.folderUploads(LIST_CAP);
  for (const row of outgoing) {
    const progress = report.uploadProgress.get(row.record_id);
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
  const held = await sources.outbox.listHeldFileDeletes(LIST_CAP);
  for (const row of held) {
    files.push({ path: '', project_id: null, file_id: row.record_id, state: 'delete_held', reason: `${row.last_error ?? 'Held.'} (sync/pending/${row.id}/)` });
  }
  for (const [id, problem] of sources.downloadProblems) {
    files.push({ path: '', project_id: null, file_id: id, state: 'downloading', reason: `Waiting to be written into its folder: ${problem.reason}` });
  }
  const attached = await sources.attachedFiles();
  const byState: Record<string, number> = {};
  for (const file of files) byState[file.state] = (byState[file.state] ?? 0) + 1;
  return {
    enabled: true,
    root: sources.root,
    state: sources.state,
    detail: sources.detail,
    quiet: sources.quiet(),
    confirm_deletes: sources.confirmDeletes,
    stability_window_ms: sources.stabilityWindowMs,
    project_folders: sources.projectFolders,
    attached_files: attached,
    last_rescan_at: sources.lastRescanAt === null ? null : new Date(sources.lastRescanAt).toISOString(),
    next_rescan_at: sources.nextRescanAt ? new Date(sources.nextRescanAt).toISOString() : null,
    files,
    ignored: [...report.ignored].map(([file, reason]) => ({ path: file, reason })),
    outside: [...report.outside].map(([file, reason]) => ({ path: file, reason })),
    refused: [...report.refusedFolders, ...report.refusedFiles].map(([file, reason]) => ({ path: file, reason })),
    guards: [...report.guards],
    recent: [...report.recent],
    counts: {
      ...report.counts,
      ...byState,
      ignored: report.ignored.size + report.ignored.overflow,
      outside: report.outside.size + report.outside.overflow,
      refused: report.refusedFolders.size + report.refusedFiles.size + report.refusedFiles.overflow,
    },
  };
}
