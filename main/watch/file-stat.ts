// How the watcher looks at a name in the folders: its own stat, never a link's
// target's. Below every other watcher module (the stability gate, the listing of
// remote-only files, attaching), so none of them imports another for it.
import type fs from 'node:fs';
import fsp from 'node:fs/promises';

export const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** A name's own stat, never its link's target's: everything in the folders is looked at this way. */
export async function lstatOrNull(file: string): Promise<fs.Stats | null> {
  try {
    return await fsp.lstat(file);
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return null;
    throw error;
  }
}
