// Moving the project folders to a new folder root (issue 28, item 1): everything the
// old root holds (both workspaces' project folders, the inbox, and `.solardesk/` with
// its owner file) goes under the new root with the same names, so the watchers'
// records (names relative to their root) still describe what is on disk and nothing
// is believed deleted. Run only while no watcher watches either root.
//
// On one filesystem each entry is renamed. Across filesystems (EXDEV) each file is
// copied under a temporary name, its bytes checked against the original, given the
// original's times, then renamed into place; the original goes only once the whole
// entry is there. A move that fails part way moves back what it had moved, so the
// old root is as it was; and when even that fails, the error says where each part is.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { FolderMoveProgress } from '../../shared/bridge.ts';

export type MoveProgress = FolderMoveProgress;

export interface MoveResult {
  /** The names moved from the old root into the new one. */
  moved: string[];
  files: number;
  bytes: number;
  /** True when at least one entry had to be copied (another disk) rather than renamed. */
  copied: boolean;
}

export class FolderMoveError extends Error {}

const isInside = (parent: string, child: string) => {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
};

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code;

async function sizeOf(target: string): Promise<{ files: number; bytes: number }> {
  const stat = await fsp.lstat(target);
  if (!stat.isDirectory()) return { files: 1, bytes: stat.isFile() ? stat.size : 0 };
  let files = 0;
  let bytes = 0;
  for (const name of await fsp.readdir(target)) {
    const inner = await sizeOf(path.join(target, name));
    files += inner.files;
    bytes += inner.bytes;
  }
  return { files, bytes };
}

async function hashOf(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Copies `from` to `to` (which must not exist): folders made, files copied under a
 * temporary name, checked byte for byte by hash, given the original's times and
 * renamed into place; links copied as links (never followed). Calls `onFile` per file.
 */
async function copyChecked(from: string, to: string, onFile: (bytes: number) => void): Promise<void> {
  const stat = await fsp.lstat(from);
  if (stat.isDirectory()) {
    await fsp.mkdir(to);
    for (const name of await fsp.readdir(from)) await copyChecked(path.join(from, name), path.join(to, name), onFile);
    await fsp.utimes(to, stat.atime, stat.mtime);
    return;
  }
  if (stat.isSymbolicLink()) {
    await fsp.symlink(await fsp.readlink(from), to);
    onFile(0);
    return;
  }
  if (!stat.isFile()) {
    onFile(0); // a device or pipe: nothing to copy (the watcher refuses them anyway)
    return;
  }
  const temp = path.join(path.dirname(to), `.${path.basename(to)}.moving`);
  await fsp.copyFile(from, temp, fs.constants.COPYFILE_EXCL);
  if ((await hashOf(temp)) !== (await hashOf(from))) {
    await fsp.rm(temp, { force: true });
    throw new FolderMoveError(`The copy of ${from} did not read back the same; the original is untouched.`);
  }
  // The watcher knows a file by its size and modification time: the copy keeps both.
  await fsp.utimes(temp, stat.atime, stat.mtime);
  await fsp.rename(temp, to);
  onFile(stat.size);
}

/** Moves one entry: a rename, or across filesystems a checked copy and then the original's removal. */
async function moveEntry(from: string, to: string, onFile: (bytes: number) => void, onRenamed: () => void): Promise<boolean> {
  try {
    await fsp.rename(from, to);
    onRenamed();
    return false;
  } catch (error) {
    if (errorCode(error) !== 'EXDEV') throw error;
  }
  try {
    await copyChecked(from, to, onFile);
  } catch (error) {
    // The original is complete; the half copy goes, so nothing is there twice.
    await fsp.rm(to, { recursive: true, force: true });
    throw error;
  }
  await fsp.rm(from, { recursive: true, force: true });
  return true;
}

/** What is in the way of moving `from` into `to`: a sentence, or null when the move can go. */
export async function whyNotMove(from: string, to: string): Promise<string | null> {
  const source = path.resolve(from);
  const target = path.resolve(to);
  if (source === target) return 'The new folder is the one already used.';
  if (isInside(source, target)) return `${target} is inside the current folder ${source}: choose a folder outside it.`;
  if (isInside(target, source)) return `The current folder ${source} is inside ${target}: choose a folder that does not hold it.`;
  const entries = await fsp.readdir(source).catch(() => [] as string[]);
  const existing = new Set(await fsp.readdir(target).catch(() => [] as string[]));
  const clashes = entries.filter((name) => existing.has(name));
  if (clashes.length > 0) {
    const shown = clashes.slice(0, 3).map((name) => `"${name}"`).join(', ');
    return `${target} already has ${shown}${clashes.length > 3 ? ` and ${clashes.length - 3} more` : ''} of the same name as in ${source}: nothing was moved. Choose an empty folder, or move or rename those first.`;
  }
  return null;
}

/**
 * Moves everything in `from` into `to` (made if missing). Refuses, moving nothing,
 * when one is inside the other or a name is already taken in `to`.
 */
export async function moveFolderRoot(from: string, to: string, onProgress: (progress: MoveProgress) => void = () => {}): Promise<MoveResult> {
  const source = path.resolve(from);
  const target = path.resolve(to);
  const refusal = await whyNotMove(source, target);
  if (refusal) throw new FolderMoveError(refusal);
  await fsp.mkdir(target, { recursive: true });
  const entries = await fsp.readdir(source).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return [] as string[];
    throw error;
  });
  const sizes = new Map<string, { files: number; bytes: number }>();
  for (const name of entries) sizes.set(name, await sizeOf(path.join(source, name)));
  const progress: MoveProgress = { files: 0, totalFiles: 0, bytes: 0, totalBytes: 0 };
  for (const size of sizes.values()) {
    progress.totalFiles += size.files;
    progress.totalBytes += size.bytes;
  }
  onProgress({ ...progress });
  const moved: string[] = [];
  let copied = false;
  try {
    for (const name of entries) {
      const size = sizes.get(name)!;
      const before = { ...progress };
      const wasCopied = await moveEntry(
        path.join(source, name),
        path.join(target, name),
        (bytes) => {
          progress.files += 1;
          progress.bytes += bytes;
          onProgress({ ...progress });
        },
        () => {
          progress.files += size.files;
          progress.bytes += size.bytes;
          onProgress({ ...progress });
        },
      );
      // A copy's count follows its files; afterwards it is exactly the entry's.
      progress.files = before.files + size.files;
      progress.bytes = before.bytes + size.bytes;
      copied ||= wasCopied;
      moved.push(name);
    }
  } catch (error) {
    throw new FolderMoveError(await moveBack(source, target, moved, error));
  }
  return { moved, files: progress.totalFiles, bytes: progress.totalBytes, copied };
}

/** Puts back what a failed move had moved; answers the sentence that says what happened. */
async function moveBack(source: string, target: string, moved: string[], cause: unknown): Promise<string> {
  const reason = (cause as Error).message;
  const stranded: string[] = [];
  for (const name of moved.reverse()) {
    try {
      await moveEntry(path.join(target, name), path.join(source, name), () => {}, () => {});
    } catch {
      stranded.push(name);
    }
  }
  if (stranded.length === 0) {
    return `The project folders could not be moved to ${target} (${reason}). Everything is back in ${source} as it was and nothing was deleted; the folder root is unchanged.`;
  }
  return `The project folders could not be moved to ${target} (${reason}), and ${stranded.map((name) => `"${name}"`).join(', ')} could not be moved back: ${stranded.length === 1 ? 'it is' : 'they are'} in ${target}, everything else is in ${source}. Nothing was deleted; move ${stranded.length === 1 ? 'it' : 'them'} back into ${source} by hand.`;
}
