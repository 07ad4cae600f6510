// The stability gate and staging: a file in a project folder becomes a candidate;
// once its size and mtime have not changed for the window (on the injected clock)
// it is opened without following a link, checked by fstat to be the very file that
// became stable, copied into the engine's staging while hashed, checked again, and
// handed on to be attached. Links and devices are refused, never read. The due files
// are checked and staged several at once (a bounded pool: each touches only its own
// file and temp file); attaching stays one at a time, in due order, on the worker loop.
import fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../engine/clock.ts';
import { discardTempFile, FileTooLargeError, receiveBuffer, receiveToTempFile, type ReceivedFile } from '../engine/files/blob-store.ts';
import { isRealFolder } from './project-folders.ts';
import { errorCode, lstatOrNull } from './file-stat.ts';
import { lockFileNamesFor, nameKey } from './folder-names.ts';
import { isOnlineOnlyListing } from './online-only.ts';
import { Queue, toSlash } from './event-intake.ts';
import type { FolderReport, WaitingFile } from './folder-status.ts';

export interface Candidate {
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

const sameCandidateFile = (candidate: Pick<Candidate, 'size' | 'mtimeMs' | 'dev' | 'ino'>, stat: fs.Stats) =>
  candidate.size === stat.size && candidate.mtimeMs === stat.mtimeMs && candidate.dev === stat.dev && candidate.ino === String(stat.ino);

/**
 * How a stable file is opened: never through a link (O_NOFOLLOW: a link swapped in
 * since the last lstat fails the open), and never blocking (O_NONBLOCK: a pipe swapped
 * in would otherwise stall the worker loop until someone writes to it). Windows has
 * neither flag; there the fstat check after the open is what catches a swap.
 */
const OPEN_FOR_STAGING = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);
/** What an O_NOFOLLOW open of a link fails with: ELOOP (Linux, macOS), EMLINK (FreeBSD). */
const isLinkRefusal = (error: unknown) => errorCode(error) === 'ELOOP' || errorCode(error) === 'EMLINK';

/** How many due candidates are checked and staged at once (each its own file and temp file). */
export const STAGING_POOL = 12;
/**
 * At most this many due candidates are taken in one step of the worker loop, so events,
 * rescans and reconciles get their turn between steps during a large drop.
 */
const STAGED_PER_STEP = 64;

/**
 * A stable file up to this size is staged read whole, then written with one write:
 * for a small file the streams (read, hash, write, each with its events) cost more
 * than its bytes (issue 30: a 1,000-file drop). At most the pool's files are held at once.
 */
const STAGED_WHOLE_BYTES = 1024 * 1024;

/** The first `size` bytes of the open file (fewer when it has shrunk meanwhile). */
async function readWhole(handle: FileHandle, size: number): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(bytes, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return bytes.subarray(0, filled);
}

/** A stable file copied into staging, checked, waiting for its turn to be attached. */
interface Staged {
  file: string;
  candidate: Candidate;
  received: StagedFile;
}

/** A stable file's staged copy, and what the watcher learnt of it while it had the file open. */
export interface StagedFile extends ReceivedFile {
  /** It is SolarDesk's own "Online only" listing (online-only.ts), perhaps renamed: never attached. */
  isOnlineOnlyListing: boolean;
}

/** What the gate hands on, and asks of, the rest of the watcher. */
export interface GateHooks {
  /**
   * A regular file appeared or changed: true when it needs no gate (unchanged since it
   * was attached, or a rename paired by inode and applied).
   */
  settled(projectId: number, folder: string, name: string, file: string, stat: fs.Stats): Promise<boolean>;
  /**
   * A stable file, staged: attach it, or decide on it and keep it for the step's
   * batch (attach.ts attachBatched). Its staged copy stays until `flush` has run.
   */
  attach(candidate: Candidate, received: StagedFile, stat: fs.Stats): Promise<void>;
  /** The step's files are handed over: whatever was kept for a batch is written now. */
  flush(): Promise<void>;
  /** The file's folder is no longer a real folder: the folders are checked again. */
  folderChanged(): void;
}

export interface StabilityGateOptions {
  /** A file is complete once its size and mtime have not changed for this long. */
  windowMs: number;
  clock: Clock;
  /** The engine's file root: staging happens in its temp folder, so a staged file is adopted as a blob by a rename. */
  fileRoot: string;
  maxUploadBytes: number;
  /** How many due candidates are checked and staged at once (default STAGING_POOL). */
  stagingPool?: number;
  report: FolderReport;
  hooks: GateHooks;
}

export class StabilityGate {
  /** Files waiting to become stable, by path. */
  readonly candidates = new Map<string, Candidate>();
  private readonly due = new Queue<{ path: string; at: number; generation: number }>();
  private generation = 0;

  constructor(private readonly options: StabilityGateOptions) {}

  private now(): number {
    return this.options.clock.now().getTime();
  }

  get size(): number {
    return this.candidates.size;
  }

  /** The file is no longer waiting (attached, moved, gone, or written by the watcher itself). */
  forget(file: string): void {
    this.candidates.delete(file);
  }

  /** Everything waiting is forgotten (the disk went away; the rescan on its return looks afresh). */
  clear(): void {
    this.candidates.clear();
    this.due.clear();
  }

  /** When the next candidate is due a look, on the clock; undefined when none waits. */
  nextDueAt(): number | undefined {
    return this.due.peek()?.at;
  }

  /** The waiting files, for the status. */
  *waiting(root: string): Iterable<WaitingFile> {
    for (const [file, candidate] of this.candidates) {
      yield { path: toSlash(path.relative(root, file)), projectId: candidate.projectId, note: candidate.note, size: candidate.size };
    }
  }

  /** A file appeared or changed: nothing to do, a rename (the hooks say), or a candidate for the gate. */
  async consider(projectId: number, folder: string, name: string, file: string, known: fs.Stats | null): Promise<void> {
    const stat = known ?? (await lstatOrNull(file));
    if (!stat) return;
    const { report } = this.options;
    if (!stat.isFile()) {
      // A file waiting to become stable that is now a link (mv -T) stops waiting: its target is never read.
      this.candidates.delete(file);
      await report.refuseFile(`${folder}/${name}`, file, stat.isSymbolicLink());
      return;
    }
    report.refusedFiles.delete(`${folder}/${name}`);
    report.problems.delete(`${folder}/${name}`);
    if (await this.options.hooks.settled(projectId, folder, name, file, stat)) return;
    const existing = this.candidates.get(file);
    if (existing && sameCandidateFile(existing, stat)) return;
    this.add(file, { projectId, folder, name, size: stat.size, mtimeMs: stat.mtimeMs, dev: stat.dev, ino: String(stat.ino), since: this.now(), generation: 0, note: null });
  }

  /**
   * Looks at the candidates whose time has come, up to STAGED_PER_STEP of them: their
   * checks (lstat, the no-follow open, fstat) and staging (the copy into the engine's
   * temp folder, hashed) run STAGING_POOL at once, since each touches only its own file
   * and its own temp file; attaching stays one at a time, in due order, as each staged
   * file's turn comes (the ones before it attached first). False when none is due yet.
   */
  async checkDue(): Promise<boolean> {
    const due = this.takeDue(STAGED_PER_STEP);
    if (due.length === 0) return false;
    // Each look settles to a value: one that fails while an earlier turn is awaited is no unhandled rejection.
    const looks: Array<Promise<{ staged: Staged | null } | { error: unknown }>> = [];
    const stagedCopies: string[] = [];
    const folders = new StepFolders();
    const pool = this.options.stagingPool ?? STAGING_POOL;
    let started = 0;
    // Looks run at most `pool` ahead of the file being attached: staging further ahead
    // would only queue more fs work in front of the attaching's own (libuv's pool is small).
    const startUpTo = (turn: number): void => {
      for (; started < due.length && started < turn + pool; started++) {
        const { file, candidate } = due[started]!;
        looks.push(this.check(file, candidate, folders).then((staged) => ({ staged }), (error: unknown) => ({ error })));
      }
    };
    let firstError: unknown = null;
    for (let turn = 0; turn < due.length; turn++) {
      startUpTo(turn);
      const look = await looks[turn]!;
      if ('error' in look) {
        // As with one look at a time: the error goes to the loop (said, then a pause), after the rest are attached.
        firstError ??= look.error;
        continue;
      }
      const { staged } = look;
      if (!staged) continue;
      await this.attachStaged(staged);
      stagedCopies.push(staged.received.tempPath);
    }
    // New files among them are created together, in one write (issue 30); their staged copies are adopted by it.
    await this.options.hooks.flush();
    // The staged copies left are removed off the attaching's path, but within the step.
    await Promise.all(stagedCopies.map((tempPath) => discardTempFile(tempPath)));
    if (firstError) throw firstError;
    return true;
  }

  /** The due candidates, in due order, up to `limit`; a due entry a newer look replaced is dropped. */
  private takeDue(limit: number): Array<{ file: string; candidate: Candidate }> {
    const now = this.now();
    const taken: Array<{ file: string; candidate: Candidate }> = [];
    for (let head = this.due.peek(); head && head.at <= now && taken.length < limit; head = this.due.peek()) {
      this.due.shift();
      const candidate = this.candidates.get(head.path);
      if (candidate && candidate.generation === head.generation) taken.push({ file: head.path, candidate });
    }
    return taken;
  }

  private add(file: string, candidate: Candidate): void {
    candidate.generation = ++this.generation;
    this.candidates.set(file, candidate);
    this.due.push({ path: file, at: this.now() + this.options.windowMs, generation: candidate.generation });
  }

  /**
   * One due candidate's look: the checks, and the staging once it is stable. Returns
   * the staged file when there is one to attach; anything else (waiting again, gone,
   * refused) is settled here, for this candidate's own path only.
   */
  private async check(file: string, candidate: Candidate, folders: StepFolders): Promise<Staged | null> {
    const label = `${candidate.folder}/${candidate.name}`;
    const { report, hooks, windowMs } = this.options;
    // Its folder must still be a real one: through a folder swapped for a link, the same name is a file elsewhere.
    // Looked at once per step for all of the step's files in it (StepFolders.isReal says why that is enough).
    if (!(await folders.isReal(path.dirname(file)))) {
      this.candidates.delete(file);
      hooks.folderChanged();
      return null;
    }
    const stat = await lstatOrNull(file);
    if (!stat) {
      this.candidates.delete(file);
      return null;
    }
    if (!stat.isFile()) {
      this.candidates.delete(file);
      await report.refuseFile(label, file, stat.isSymbolicLink());
      return null;
    }
    const now = this.now();
    if (!sameCandidateFile(candidate, stat)) {
      this.add(file, { ...candidate, size: stat.size, mtimeMs: stat.mtimeMs, dev: stat.dev, ino: String(stat.ino), since: now, note: 'still being written' });
      return null;
    }
    if (now - candidate.since < windowMs) {
      this.candidates.set(file, candidate);
      this.due.push({ path: file, at: candidate.since + windowMs, generation: candidate.generation });
      return null;
    }
    if (await this.waitForEditingSession(file, candidate, folders)) return null;
    // Stable. It must open (Windows refuses while another program writes it), without
    // following a link, and be the very file that became stable: a name can be pointed
    // elsewhere between the lstat above and the open (mv -T of a link over it).
    let handle: FileHandle;
    try {
      handle = await fsp.open(file, OPEN_FOR_STAGING);
    } catch (error) {
      if (isLinkRefusal(error)) {
        this.candidates.delete(file);
        await report.refuseFile(label, file, true);
      } else if (errorCode(error) === 'ENOENT') this.candidates.delete(file);
      else this.add(file, { ...candidate, since: candidate.since, note: `cannot be opened yet (${errorCode(error) ?? (error as Error).message})` });
      return null;
    }
    try {
      const opened = await handle.stat();
      if (!opened.isFile() || !sameCandidateFile(candidate, opened)) {
        this.add(file, { ...candidate, size: opened.size, mtimeMs: opened.mtimeMs, dev: opened.dev, ino: String(opened.ino), since: this.now(), note: 'replaced by another file as it was opened' });
        return null;
      }
      return await this.stage(file, candidate, handle);
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
  private async waitForEditingSession(file: string, candidate: Candidate, folders: StepFolders): Promise<boolean> {
    const dir = path.dirname(file);
    const names = await folders.namesIn(dir);
    for (const lock of lockFileNamesFor(candidate.name)) {
      const present = names ? names.has(nameKey(lock)) : (await lstatOrNull(path.join(dir, lock))) !== null;
      if (!present) continue;
      this.add(file, { ...candidate, since: this.now(), note: `open in an editing program (${lock} is beside it); taken once it is closed` });
      return true;
    }
    return false;
  }

  /**
   * Copies the stable file, from the descriptor checked to be it, into staging
   * (hashing it), and checks it did not change meanwhile and still has its name.
   * Returns the staged copy, for its turn to be attached; null when there is none
   * (the file waits again, is gone, refused or too large).
   */
  private async stage(file: string, candidate: Candidate, handle: FileHandle): Promise<Staged | null> {
    const label = `${candidate.folder}/${candidate.name}`;
    const { report, fileRoot, maxUploadBytes } = this.options;
    let received: ReceivedFile | null = null;
    // A small file's bytes, read whole: its first line is then looked at in them.
    let whole: Buffer | null = null;
    try {
      try {
        if (candidate.size <= Math.min(STAGED_WHOLE_BYTES, maxUploadBytes)) {
          whole = await readWhole(handle, candidate.size);
          received = await receiveBuffer(fileRoot, whole, 'watch');
        } else received = await receiveToTempFile(fileRoot, handle.createReadStream({ start: 0, autoClose: false }), maxUploadBytes, 'watch');
      } catch (error) {
        if (error instanceof FileTooLargeError) {
          this.candidates.delete(file);
          report.problems.set(label, { projectId: candidate.projectId, reason: `too large to attach: the limit is ${error.limitBytes} bytes` });
          return null;
        }
        this.add(file, { ...candidate, note: `could not be read: ${(error as Error).message}` });
        return null;
      }
      // While the file is open: its first line says whether it is SolarDesk's own listing
      // (read only when the first bytes, seen while staging, start as one does).
      const isListing = await isOnlineOnlyListing(handle, received.size, whole ?? received.head);
      // Re-checked after the copy: the bytes staged must be those of the stable file (the
      // descriptor copied from is still that file, unchanged). That the name is still that
      // file (the mapping records its size, mtime and inode) is looked at when its turn to
      // be attached comes (attachStaged): the later moment, so once is enough.
      const copied = await handle.stat();
      if (!sameCandidateFile(candidate, copied) || received.size !== candidate.size) {
        await discardTempFile(received.tempPath);
        this.add(file, { ...candidate, size: copied.size, mtimeMs: copied.mtimeMs, dev: copied.dev, ino: String(copied.ino), since: this.now(), note: 'changed while being copied' });
        return null;
      }
      const staged = { file, candidate, received: { ...received, isOnlineOnlyListing: isListing } };
      received = null; // its turn to be attached owns it now
      return staged;
    } catch (error) {
      report.problems.set(label, { projectId: candidate.projectId, reason: (error as Error).message });
      report.note(`could not attach ${label}: ${(error as Error).message}`);
      return null;
    } finally {
      if (received) await discardTempFile(received.tempPath);
    }
  }

  /**
   * A staged file's turn: attached, unless a newer look at its name replaced or
   * dropped it while it waited its turn (then the staged copy is just discarded).
   * One at a time, in due order: attaching is where the store and the folders change.
   * The caller discards the staged copy after (unless the attach adopted it).
   */
  private async attachStaged({ file, candidate, received }: Staged): Promise<void> {
    const label = `${candidate.folder}/${candidate.name}`;
    const { report } = this.options;
    try {
      if (this.candidates.get(file) !== candidate) return;
      // Looked at once more: while it waited its turn (the attaching of those due before
      // it), the name may have been written again; then it starts over, as a file that
      // changed while being copied does.
      const now = await lstatOrNull(file);
      if (!now || !now.isFile() || !sameCandidateFile(candidate, now)) {
        if (now?.isFile()) this.add(file, { ...candidate, size: now.size, mtimeMs: now.mtimeMs, dev: now.dev, ino: String(now.ino), since: this.now(), note: 'changed while waiting to be attached' });
        else if (now) {
          this.candidates.delete(file);
          await report.refuseFile(label, file, now.isSymbolicLink());
        } else this.candidates.delete(file);
        return;
      }
      this.candidates.delete(file);
      report.current = { path: label, note: 'attaching' };
      await this.options.hooks.attach(candidate, received, now);
    } catch (error) {
      report.problems.set(label, { projectId: candidate.projectId, reason: (error as Error).message });
      report.note(`could not attach ${label}: ${(error as Error).message}`);
    } finally {
      report.current = null;
    }
  }
}

/**
 * How long one look at a folder (is it still a real one?) serves the step's other
 * files in it: a step is short (STAGED_PER_STEP files), but one attach can be slow.
 */
const FOLDER_LOOK_REUSE_MS = 250;

/**
 * What one step looks at once per folder its due files are in, not once per file.
 *
 * Whether the folder is still a real one (isRealFolder: an lstat), looked at by the
 * first file of the step in it before any of them is opened, and taken as the answer
 * for the step's other files in it for FOLDER_LOOK_REUSE_MS (real time) at most. That
 * guards as much as a look per file did: a look only ever says what the folder was a
 * moment before an open (a link swapped in just after it is the same race either way),
 * and what is opened must still be the very file (device, inode, size, mtime) the
 * candidate saw a whole window earlier, or it waits again: a file of that name behind a
 * link swapped in since is another file, so it is never read, and the next look refuses
 * the folder.
 *
 * The names in the folder, read once for the step: an editing program's lock files
 * are looked up in them, where an lstat a lock-file name made three or four failing
 * calls a file (issue 30: a 1,000-file drop). Keyed as the disk compares names
 * (nameKey), as lstat would find them on a case-insensitive disk. Null for a folder
 * that cannot be listed: its files are then looked up one by one.
 */
class StepFolders {
  private readonly looks = new Map<string, { at: number; isReal: Promise<boolean> }>();
  private readonly listings = new Map<string, Promise<ReadonlySet<string> | null>>();

  isReal(dir: string): Promise<boolean> {
    const now = performance.now();
    let look = this.looks.get(dir);
    if (!look || now - look.at > FOLDER_LOOK_REUSE_MS) {
      look = { at: now, isReal: isRealFolder(dir) };
      this.looks.set(dir, look);
    }
    return look.isReal;
  }

  namesIn(dir: string): Promise<ReadonlySet<string> | null> {
    let listing = this.listings.get(dir);
    if (!listing) {
      listing = fsp.readdir(dir).then(
        (names) => new Set(names.map(nameKey)),
        () => null,
      );
      this.listings.set(dir, listing);
    }
    return listing;
  }
}
