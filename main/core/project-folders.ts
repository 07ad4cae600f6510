// Saving downloads into a project's folder without ever replacing a different file
// (sync-lessons.md: downloads go to a temporary name and are renamed into place).
// Folder and file names come from main/watch/folder-names.ts, the folder watcher's
// own rule: were there two, "save to folder" and the watcher would pick different
// folders for one project.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isRealFolder } from '../watch/project-folders.ts';

async function sameBytes(file: string, bytes: Uint8Array): Promise<boolean> {
  try {
    // A link of that name is not "already saved", whatever it points to (and is not read).
    if (!(await fsp.lstat(file)).isFile()) return false;
    const existing = await fsp.readFile(file);
    return existing.length === bytes.length && existing.equals(bytes);
  } catch {
    return false;
  }
}

/**
 * Saves bytes as `name` in the folder. If a different file already has that name,
 * the new one becomes "name (2).ext" and so on; the same bytes are not saved twice.
 */
export async function saveWithoutOverwriting(folder: string, name: string, bytes: Uint8Array): Promise<string> {
  await fsp.mkdir(folder, { recursive: true });
  const extension = path.extname(name);
  const stem = name.slice(0, name.length - extension.length);
  for (let attempt = 1; attempt < 1000; attempt++) {
    const candidate = path.join(folder, attempt === 1 ? name : `${stem} (${attempt})${extension}`);
    if (await sameBytes(candidate, bytes)) return candidate;
    if (fs.existsSync(candidate)) continue;
    const temp = path.join(folder, `.${path.basename(candidate)}.${process.pid}.download`);
    await fsp.writeFile(temp, bytes);
    try {
      // link() fails if the name was taken meanwhile, where rename() would replace it.
      await fsp.link(temp, candidate);
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await fsp.rm(temp, { force: true });
    }
  }
  throw new Error(`too many files named like ${name} in ${folder}`);
}

/**
 * The same, into a project's folder, which must be a real folder: one replaced by a
 * link to elsewhere is refused, as the folder watcher refuses it (docs/project-folders.md).
 */
export async function saveIntoProjectFolder(folder: string, name: string, bytes: Uint8Array): Promise<string> {
  await fsp.mkdir(folder, { recursive: true });
  if (!(await isRealFolder(folder))) {
    throw new Error(`${folder} is a link to another folder (or a file), not a project folder: nothing is saved through it. Put a real folder in its place, or remove it.`);
  }
  return saveWithoutOverwriting(folder, name, bytes);
}
