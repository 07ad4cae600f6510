// Every file the app writes into the project folders: arrivals (a private file
// attached elsewhere) and downloads (the app's "save to folder"). Copied to a temp
// name under the root's own .solardesk/tmp/ (same disk, so the last step is
// atomic), then hard-linked into place, which fails rather than replace a file
// that has that name; the file then takes the next free name ("plan (2).pdf"). A
// file already there with the same bytes is simply recognised. sync-lessons.md "Files".
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { type Clock, todayIso } from '../engine/clock.ts';
import { AGENT_FOLDER, isRealFolder } from './project-folders.ts';
import { nameKey, numberedName, uniqueName } from './folder-names.ts';

export const agentTempDir = (root: string) => path.join(root, AGENT_FOLDER, 'tmp');
export const agentTrashDir = (root: string) => path.join(root, AGENT_FOLDER, 'trash');
/** Folder copies removed to free space (files on demand) are held here, by day, for HELD_EVICTED_DAYS: never unlinked at once. */
export const agentEvictedDir = (root: string) => path.join(root, AGENT_FOLDER, 'evicted');
export const HELD_EVICTED_DAYS = 30;

export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

export interface PlacedFile {
  name: string;
  size: number;
  mtimeMs: number;
  ino: string;
  /** A file with this name (or one of its "(n)" names) and these bytes was already there: nothing was written. */
  wasThere: boolean;
}

/** What is written: a file on disk (a blob), or bytes in memory (a download). */
type Contents = { file: string } | { bytes: Uint8Array };

/** The file `name` in `folder` if it is a plain file with exactly these bytes (never a link, whatever it points to). */
async function sameFileThere(folder: string, name: string, size: number, hash: string): Promise<PlacedFile | null> {
  try {
    const file = path.join(folder, name);
    const stat = await fsp.lstat(file);
    if (!stat.isFile() || stat.size !== size || (await sha256OfFile(file)) !== hash) return null;
    return { name, size: stat.size, mtimeMs: stat.mtimeMs, ino: String(stat.ino), wasThere: true };
  } catch {
    return null; // a different case on a case-sensitive disk, or gone meanwhile: just pick another name
  }
}

/**
 * Writes `contents` (whose sha256 is `hash`) into `folder` as `desired`, or the first
 * free "desired (n)" name: to a temp name under the root's .solardesk/tmp/ first (same
 * disk), then hard-linked into place, which fails rather than replace a file made
 * meanwhile. If `desired` or one of its "(n)" names already holds these bytes, that
 * file is the answer and nothing is written. `isClaimed` names keys the caller
 * already uses (files of the folder it knows of but that may be missing just now).
 */
async function placeContents(root: string, folder: string, desired: string, contents: Contents, hash: string, isClaimed: (key: string) => boolean): Promise<PlacedFile> {
  const existing = new Set((await fsp.readdir(folder)).map(nameKey));
  const size = 'bytes' in contents ? contents.bytes.length : (await fsp.stat(contents.file)).size;
  for (let n = 1, name = desired; n <= 1000 && existing.has(nameKey(name)); n++, name = numberedName(desired, n)) {
    if (isClaimed(nameKey(name))) continue;
    const there = await sameFileThere(folder, name, size, hash);
    if (there) return there;
  }
  await fsp.mkdir(agentTempDir(root), { recursive: true });
  const temp = path.join(agentTempDir(root), `${randomBytes(8).toString('hex')}.download`);
  // A copy-on-write clone where the disk can (btrfs, APFS, XFS), an ordinary copy elsewhere.
  if ('bytes' in contents) await fsp.writeFile(temp, contents.bytes, { flag: 'wx' });
  else await fsp.copyFile(contents.file, temp, fs.constants.COPYFILE_FICLONE);
  try {
    for (let attempt = 0; attempt < 10_000; attempt++) {
      const name = uniqueName(desired, (key) => existing.has(key) || isClaimed(key));
      const target = path.join(folder, name);
      try {
        await fsp.link(temp, target);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') {
          existing.add(nameKey(name)); // made meanwhile: never replaced
          continue;
        }
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'EMLINK') throw error;
        // No hard links on this disk (FAT, some network shares): a checked rename instead.
        if (fs.existsSync(target)) {
          existing.add(nameKey(name));
          continue;
        }
        await fsp.rename(temp, target);
      }
      const stat = await fsp.lstat(target);
      return { name, size: stat.size, mtimeMs: stat.mtimeMs, ino: String(stat.ino), wasThere: false };
    }
    throw new Error(`no free name like ${desired} in ${folder}`);
  } finally {
    await fsp.rm(temp, { force: true });
  }
}

/** Checked here, right before writing, not only when the folders were last reconciled: a project folder swapped for a link since then would have us write wherever it points. */
async function mustBeRealFolder(folder: string): Promise<void> {
  if (!(await isRealFolder(folder))) {
    throw new Error(`${folder} is a link to another folder (or a file), not a project folder: nothing is written through it. Put a real folder in its place, or remove it.`);
  }
}

/**
 * Puts a copy of `source` (a blob, whose sha256 is `hash`) into the project folder
 * `folder` as `desired`, or the first free "desired (n)" name: a file attached
 * elsewhere arriving in its folder.
 */
export async function placeArrival(
  root: string,
  folder: string,
  desired: string,
  source: string,
  hash: string,
  isClaimed: (key: string) => boolean,
): Promise<PlacedFile> {
  await mustBeRealFolder(folder);
  return placeContents(root, folder, desired, { file: source }, hash, isClaimed);
}

/**
 * Saves downloaded bytes as `name` in `folder`, a project folder under `root` or the
 * root itself (files of no project), the same way as an arrival: never over a
 * different file ("name (2).ext" instead), and the same bytes are not saved twice.
 * A project folder must be a real folder, not a link to elsewhere. Returns the path.
 */
export async function saveDownload(root: string, folder: string, name: string, bytes: Uint8Array): Promise<string> {
  if (path.resolve(folder) === path.resolve(root)) await fsp.mkdir(root, { recursive: true });
  else await mustBeRealFolder(folder);
  const hash = createHash('sha256').update(bytes).digest('hex');
  const placed = await placeContents(root, folder, name, { bytes }, hash, () => false);
  return path.join(folder, placed.name);
}

/**
 * Moves a file out of a project folder into the root's .solardesk/trash/ (same
 * disk: a rename), keeping it: used when its private file was deleted elsewhere.
 * Trash is kept in one folder per day, today's as the clock says.
 */
export async function moveToTrash(root: string, file: string, label: string, clock: Clock, under = agentTrashDir(root)): Promise<string> {
  const day = todayIso(clock);
  const folder = path.join(under, day, label);
  await fsp.mkdir(folder, { recursive: true });
  const existing = new Set((await fsp.readdir(folder)).map(nameKey));
  const target = path.join(folder, uniqueName(path.basename(file), (key) => existing.has(key)));
  await fsp.rename(file, target);
  return target;
}

/**
 * Removes the day folders of the eviction holding area older than HELD_EVICTED_DAYS
 * (their names are the day, YYYY-MM-DD, on the injected clock). Returns how many went.
 */
export async function purgeHeldEvicted(root: string, clock: Clock): Promise<number> {
  const oldestKept = todayIso({ now: () => new Date(clock.now().getTime() - HELD_EVICTED_DAYS * 86_400_000) });
  let days: string[];
  try {
    days = await fsp.readdir(agentEvictedDir(root));
  } catch {
    return 0;
  }
  let purged = 0;
  for (const day of days) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || day >= oldestKept) continue;
    await fsp.rm(path.join(agentEvictedDir(root), day), { recursive: true, force: true });
    purged++;
  }
  return purged;
}
