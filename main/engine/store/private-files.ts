// A data folder holds an org's records, its private files and the secret that signs
// download links, so everything SolarDesk puts there is its user's alone: folders
// 0700, files 0600, whatever the umask (which can only take bits away from these
// modes, never add any). Folders and files left more open by earlier versions are
// tightened at start. See docs/store.md, "Private data folders".
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const PRIVATE_FOLDER_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** The permission bits that let other users in. */
const OPEN_TO_OTHERS = 0o077;

/** Windows has no such modes (chmod there only sets read-only); its data folder's privacy comes from the user profile's ACLs. */
const hasUnixModes = process.platform !== 'win32';

/** Creates the folder (and missing parents) private; an existing one is left as it is (`tightenToPrivate` handles those). */
export function makePrivateFolder(folder: string): void {
  fs.mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
}

export async function makePrivateFolderAsync(folder: string): Promise<void> {
  await fsp.mkdir(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
}

/**
 * Creates an empty file private unless it exists, without opening an existing one:
 * closing any descriptor of a file drops this process's POSIX locks on it, and SQLite
 * holds such locks on the files this is used for.
 */
export function createPrivateFileIfMissing(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * Takes group and other permissions off `root` and what is in it, and returns how
 * many entries it changed. It descends only into folders that were open to others:
 * what is inside a folder nobody else may enter is out of their reach whatever its
 * own mode, and everything SolarDesk creates is created private, so a start on a
 * folder already private costs one lstat however many blobs it holds. Symbolic
 * links are not followed (chmod would change their target, outside the folder), and
 * entries of another owner are left alone (chmod would fail on them anyway).
 */
export function tightenToPrivate(root: string): number {
  if (!hasUnixModes || isBroaderThanADataFolder(root)) return 0;
  const ownUid = process.getuid?.();
  let changed = 0;
  const pending = [root];
  while (pending.length > 0) {
    const entry = pending.pop()!;
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(entry);
    } catch {
      continue; // removed while we walked
    }
    if (stat.isSymbolicLink() || (stat.mode & OPEN_TO_OTHERS) === 0) continue;
    if (ownUid !== undefined && stat.uid !== ownUid) continue;
    fs.chmodSync(entry, stat.mode & 0o700);
    changed += 1;
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(entry)) pending.push(path.join(entry, name));
    }
  }
  return changed;
}

/**
 * A data folder pointed at the home folder or the file system's root (`--data ~`
 * by mistake) holds far more than SolarDesk's files: taking other users' access
 * off everything in it would change the user's whole tree, so it is left alone.
 */
function isBroaderThanADataFolder(root: string): boolean {
  const resolved = path.resolve(root);
  return resolved === path.parse(resolved).root || resolved === path.resolve(os.homedir());
}
