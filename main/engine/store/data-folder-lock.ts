// One process per data folder. A process that opens a data folder (a server, an
// agent, the desktop app or browser mode) first takes its lock, and only then
// touches anything in it: a second process started on the same folder by mistake
// would otherwise sweep the first one's uploads in progress as crash leftovers, or
// run a second sync beside the first. See docs/store.md, "One process per data folder".
//
// The lock is SQLite's own (better-sqlite3 is here already): an exclusive
// transaction held open on a sidecar file. The OS keeps that lock for the process
// and drops it when the process ends, however it ends, so a SIGKILLed process never
// leaves a lock behind, and a recycled pid can never make a stale lock look alive.
// Since a locked file cannot be read, who holds it is written beside it in a small
// JSON file, for the message the next process prints.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { createPrivateFileIfMissing, makePrivateFolder, PRIVATE_FILE_MODE, tightenToPrivate } from './private-files.ts';
import { DataFolderInUseError, type LockHolder } from './store-errors.ts';

export const LOCK_FILE_NAME = 'solardesk.lock';
export const LOCK_HOLDER_FILE_NAME = 'solardesk.lock.json';

export interface DataFolderLock {
  /** The data folder, resolved. */
  readonly folder: string;
  /** Lets go of the folder; does nothing the second time. */
  release(): void;
}

export { DataFolderInUseError, type LockHolder };

/**
 * Takes the data folder for this process, creating it private if missing, and
 * tightens what earlier versions left open in it. Throws DataFolderInUseError when
 * another process (or another engine in this one) holds it.
 */
export function lockDataFolder(folder: string, what: string): DataFolderLock {
  const resolved = path.resolve(folder);
  makePrivateFolder(resolved);
  const lockFile = path.join(resolved, LOCK_FILE_NAME);
  const holderFile = path.join(resolved, LOCK_HOLDER_FILE_NAME);
  createPrivateFileIfMissing(lockFile);
  // A busy timeout of 0: a folder in use is an answer, not something to wait for.
  const connection = new BetterSqlite3(lockFile, { timeout: 0 });
  try {
    // No journal file: nothing is ever written to this database.
    connection.pragma('journal_mode = MEMORY');
    connection.exec('begin exclusive');
  } catch (error) {
    connection.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new DataFolderInUseError(resolved, readLiveHolder(holderFile));
    throw error;
  }
  const holder: LockHolder = { pid: process.pid, hostname: os.hostname(), what, started_at: new Date().toISOString() };
  const temp = `${holderFile}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(holder)}\n`, { mode: PRIVATE_FILE_MODE });
  fs.renameSync(temp, holderFile);
  tightenToPrivate(resolved);
  let released = false;
  return {
    folder: resolved,
    release() {
      if (released) return;
      released = true;
      // Removed while still held, so it never removes the next holder's.
      fs.rmSync(holderFile, { force: true });
      connection.close();
    },
  };
}

/**
 * The holder's note, if it names a live process. A holder that has just taken the
 * lock may not have written its note yet (the old one names a process that is
 * gone), so a few short waits are allowed for it.
 */
function readLiveHolder(holderFile: string): LockHolder | null {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const holder = readHolder(holderFile);
    if (holder && (holder.hostname !== os.hostname() || isProcessAlive(holder.pid))) return holder;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
  return null;
}

function readHolder(holderFile: string): LockHolder | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(holderFile, 'utf8')) as Partial<LockHolder>;
    if (typeof parsed.pid !== 'number' || typeof parsed.what !== 'string') return null;
    return { pid: parsed.pid, hostname: String(parsed.hostname ?? ''), what: parsed.what, started_at: String(parsed.started_at ?? '') };
  } catch {
    return null;
  }
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
