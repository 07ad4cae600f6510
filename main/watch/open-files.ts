// Whether a program may still write to a file in a project folder (issue 35). Eviction
// removes a folder copy only when nothing can write to it any more; taking new remote
// contents never writes over a file a program holds. On Linux every process's open
// descriptors are listed in /proc/<pid>/fd, with their access mode in
// /proc/<pid>/fdinfo/<fd>; where that cannot be read (another platform, no /proc), a
// file changed within RECENTLY_CHANGED_MS counts as possibly open.
import fsp from 'node:fs/promises';
import path from 'node:path';

/** Where open descriptors cannot be listed, a file changed within this long is treated as open. */
export const RECENTLY_CHANGED_MS = 10 * 60_000;

/** O_ACCMODE bits of an fdinfo `flags:` line (octal): 1 O_WRONLY, 2 O_RDWR. */
const WRITE_ACCESS_MODES = new Set([1, 2]);

/**
 * The real paths of every file some process of this machine has open for writing,
 * or null when that cannot be known here (no /proc). Processes of other users are
 * skipped where /proc does not let us read them: they cannot write to this user's
 * folder copies anyway, unless run as root.
 */
export async function filesOpenForWriting(procRoot = '/proc'): Promise<Set<string> | null> {
  let pids: string[];
  try {
    pids = (await fsp.readdir(procRoot)).filter((entry) => /^\d+$/.test(entry));
    await fsp.access(path.join(procRoot, 'self', 'fd'));
  } catch {
    return null;
  }
  const open = new Set<string>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = await fsp.readdir(path.join(procRoot, pid, 'fd'));
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    for (const fd of fds) {
      try {
        const target = await fsp.readlink(path.join(procRoot, pid, 'fd', fd));
        if (!target.startsWith('/')) continue; // pipe:[...], socket:[...], anon_inode:...
        const info = await fsp.readFile(path.join(procRoot, pid, 'fdinfo', fd), 'utf8');
        const flags = /^flags:\s*([0-7]+)/m.exec(info);
        if (flags && WRITE_ACCESS_MODES.has(parseInt(flags[1]!, 8) & 3)) open.add(target.replace(/ \(deleted\)$/, ''));
      } catch {
        continue; // closed meanwhile
      }
    }
  }
  return open;
}

/**
 * Answers "may a program still write to this file?" for the files of one pass,
 * listing the open descriptors once (a pass looks at up to a few hundred files).
 */
export class OpenFileCheck {
  private open: Promise<Set<string> | null> | null = null;

  constructor(
    private readonly now: () => number,
    private readonly list: () => Promise<Set<string> | null> = () => filesOpenForWriting(),
  ) {}

  async mayBeWritten(file: string, stat: { mtimeMs: number; ctimeMs: number }): Promise<boolean> {
    this.open ??= this.list();
    const open = await this.open;
    if (open === null) return this.now() - Math.max(stat.mtimeMs, stat.ctimeMs) < RECENTLY_CHANGED_MS;
    let real: string;
    try {
      real = await fsp.realpath(file);
    } catch {
      return false; // gone
    }
    return open.has(real);
  }
}
