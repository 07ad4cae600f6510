// Writing a private file into its project folder: copied to a temp name under the
// root's own .solardesk/tmp/ (same disk, so the last step is atomic), then hard-
// linked into place, which fails rather than replace a file that has that name;
// the arrival then takes the next free name ("plan (2).pdf"). A file already there
// with the same bytes is simply recognised. sync-lessons.md "Files".
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { type Clock, todayIso } from '../engine/clock.ts';
import { AGENT_FOLDER, isRealFolder } from './project-folders.ts';
import { nameKey, uniqueName } from './folder-names.ts';

export const agentTempDir = (root: string) => path.join(root, AGENT_FOLDER, 'tmp');
export const agentTrashDir = (root: string) => path.join(root, AGENT_FOLDER, 'trash');

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
  /** A file with this name and these bytes was already there: nothing was written. */
  wasThere: boolean;
}

/**
 * Puts a copy of `source` (a blob, whose sha256 is `hash`) into `folder` as `desired`,
 * or the first free "desired (n)" name. `isClaimed` names keys the caller already
 * uses (files of the folder that it knows of but that may be missing just now).
 */
export async function placeArrival(
  root: string,
  folder: string,
  desired: string,
  source: string,
  hash: string,
  isClaimed: (key: string) => boolean,
): Promise<PlacedFile> {
  // Checked here, right before writing, not only when the folders were last reconciled:
  // a project folder swapped for a link since then would have us write wherever it points.
  if (!(await isRealFolder(folder))) throw new Error(`${folder} is not a real folder (a link to elsewhere?): nothing is written through a link`);
  const existing = new Set((await fsp.readdir(folder)).map(nameKey));
  const exact = path.join(folder, desired);
  if (existing.has(nameKey(desired)) && !isClaimed(nameKey(desired))) {
    try {
      // lstat: a link of that name is not "the same bytes already there", whatever it points to.
      const stat = await fsp.lstat(exact);
      if (stat.isFile() && (await sha256OfFile(exact)) === hash) return { name: desired, size: stat.size, mtimeMs: stat.mtimeMs, ino: String(stat.ino), wasThere: true };
    } catch {
      // a different case on a case-sensitive disk, or gone meanwhile: just pick another name
    }
  }
  await fsp.mkdir(agentTempDir(root), { recursive: true });
  const temp = path.join(agentTempDir(root), `${randomBytes(8).toString('hex')}.download`);
  // A copy-on-write clone where the disk can (btrfs, APFS, XFS), an ordinary copy elsewhere.
  await fsp.copyFile(source, temp, fs.constants.COPYFILE_FICLONE);
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

/**
 * Moves a file out of a project folder into the root's .solardesk/trash/ (same
 * disk: a rename), keeping it: used when its private file was deleted elsewhere.
 * Trash is kept in one folder per day, today's as the clock says.
 */
export async function moveToTrash(root: string, file: string, label: string, clock: Clock): Promise<string> {
  const day = todayIso(clock);
  const folder = path.join(agentTrashDir(root), day, label);
  await fsp.mkdir(folder, { recursive: true });
  const existing = new Set((await fsp.readdir(folder)).map(nameKey));
  const target = path.join(folder, uniqueName(path.basename(file), (key) => existing.has(key)));
  await fsp.rename(file, target);
  return target;
}
