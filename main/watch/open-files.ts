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
 * The real paths of the files under `under` (a real path) that some process of this
 * machine has open for writing, or null when that cannot be known here (no /proc).
 * Processes of other users are skipped where /proc does not let us read them: they
 * cannot write to this user's folder copies anyway, unless run as root. Only the
 * descriptors pointing under `under` have their access mode read, and processes are
 * looked at side by side: a pass costs one readlink per open descriptor.
 */
export async function filesOpenForWriting(under: string, procRoot = '/proc'): Promise<Set<string> | null> {
  let pids: string[];
  try {
    pids = (await fsp.readdir(procRoot)).filter((entry) => /^\d+$/.test(entry));
    await fsp.access(path.join(procRoot, 'self', 'fd'));
  } catch {
    return null;
  }
  const prefix = under.endsWith(path.sep) ? under : `${under}${path.sep}`;
  const open = new Set<string>();
  const lookAt = async (pid: string) => {
    let fds: string[];
    try {
      fds = await fsp.readdir(path.join(procRoot, pid, 'fd'));
    } catch {
      return; // gone meanwhile, or not ours to read
    }
    for (const fd of fds) {
      try {
        const target = (await fsp.readlink(path.join(procRoot, pid, 'fd', fd))).replace(/ \(deleted\)$/, '');
        if (!target.startsWith(prefix)) continue; // elsewhere, or pipe:[...], socket:[...]
        const info = await fsp.readFile(path.join(procRoot, pid, 'fdinfo', fd), 'utf8');
        const flags = /^flags:\s*([0-7]+)/m.exec(info);
        if (flags && WRITE_ACCESS_MODES.has(parseInt(flags[1]!, 8) & 3)) open.add(target);
      } catch {
        continue; // closed meanwhile
      }
    }
  };
  const PROCESSES_AT_ONCE = 16;
  for (let start = 0; start < pids.length; start += PROCESSES_AT_ONCE) await Promise.all(pids.slice(start, start + PROCESSES_AT_ONCE).map(lookAt));
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
    /** Lists what is open for writing under the folder root (filesOpenForWriting). */
    private readonly list: () => Promise<Set<string> | null>,
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
