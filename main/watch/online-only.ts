// Files on demand in the project folders (issue 15): a folder whose project's files
// stay on the remote gets one small text file, ONLINE_ONLY_FILE_NAME, listing them
// (title, size) and saying how to get them. The watcher never attaches it
// (folder-names.ts ignores that exact name), and never writes over a file of that
// name it did not write itself: its own copies start with ONLINE_ONLY_MARKER. It is
// rewritten only when its text would change, and removed (when it is ours) once
// nothing of the project is online only. docs/project-folders.md "Files on demand".
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ONLINE_ONLY_FILE_NAME } from './folder-names.ts';
import { agentTempDir } from './arrivals.ts';
import { lstatOrNull } from './stability-gate.ts';
import { formatBytes as formatByteCount } from '../../shared/format-bytes.ts';

export { ONLINE_ONLY_FILE_NAME };

/** The first line of every copy SolarDesk writes: a file without it is the user's and is never touched. */
export const ONLINE_ONLY_MARKER = 'SolarDesk: files of this project that are on the remote only (SolarDesk writes this file; changes to it are replaced).';

/** A listing of this size is surely not ours. */
const MAX_OURS_BYTES = 4 * 1024 * 1024;

export interface OnlineOnlyEntry {
  id: number;
  title: string;
  filesize: number | null;
}

export function formatBytes(bytes: number | null): string {
  return bytes === null ? 'size unknown' : formatByteCount(bytes);
}

/** The listing's text (CRLF-free, UTF-8): what is on the remote only, and how to get it. */
export function onlineOnlyText(entries: readonly OnlineOnlyEntry[]): string {
  const lines = [
    ONLINE_ONLY_MARKER,
    '',
    `${entries.length === 1 ? 'This file of the project is' : `These ${entries.length} files of the project are`} kept on the remote, not on this computer,`,
    "to save disk space and the organisation's daily file requests.",
    '',
    'To get them here:',
    '- one file: open the project in SolarDesk, Files tab, and use Fetch or Download;',
    '- every file, kept up to date: pin the project in SolarDesk (the pin in the project header).',
    'Projects where you hold a role, that you pinned or that you opened recently keep their files here.',
    '',
    ...entries.map((entry) => `- ${entry.title || `file ${entry.id}`}  (${formatBytes(entry.filesize)})`),
    '',
  ];
  return lines.join('\n');
}

export type OnlineOnlyOutcome = 'written' | 'unchanged' | 'removed' | 'absent' | 'not_ours';

/** Whether the file at `file` is a listing SolarDesk wrote (a plain, small file starting with the marker). */
async function isOurs(file: string): Promise<boolean> {
  const stat = await lstatOrNull(file);
  if (!stat) return false;
  if (!stat.isFile() || stat.size > MAX_OURS_BYTES) return false;
  const text = await fsp.readFile(file, 'utf8');
  return text.startsWith(`${ONLINE_ONLY_MARKER}\n`);
}

/**
 * Makes `folder`'s listing say `entries` (none: removes it). A file of that name that
 * SolarDesk did not write is left exactly as it is ('not_ours'). The new text is
 * written to the root's .solardesk/tmp/ and renamed into place, so it is never half
 * written; a first copy is hard-linked, which fails rather than replace a file the
 * user made meanwhile.
 */
export async function updateOnlineOnly(root: string, folder: string, entries: readonly OnlineOnlyEntry[]): Promise<OnlineOnlyOutcome> {
  const file = path.join(folder, ONLINE_ONLY_FILE_NAME);
  const there = await lstatOrNull(file);
  if (there && !(await isOurs(file))) return 'not_ours';
  if (entries.length === 0) {
    if (!there) return 'absent';
    await fsp.rm(file, { force: true });
    return 'removed';
  }
  const text = onlineOnlyText(entries);
  if (there && (await fsp.readFile(file, 'utf8')) === text) return 'unchanged';
  const temp = path.join(agentTempDir(root), `online-only-${randomBytes(6).toString('hex')}.txt`);
  await fsp.mkdir(agentTempDir(root), { recursive: true });
  try {
    await fsp.writeFile(temp, text, { mode: 0o644 });
    if (there) {
      await fsp.rename(temp, file);
    } else {
      try {
        await fsp.link(temp, file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'not_ours';
        if ((error as NodeJS.ErrnoException).code !== 'EPERM' && (error as NodeJS.ErrnoException).code !== 'ENOTSUP') throw error;
        // No hard links on this disk (FAT, some shares): checked just before, as arrivals do.
        if (await lstatOrNull(file)) return 'not_ours';
        await fsp.rename(temp, file);
      }
    }
    return 'written';
  } finally {
    await fsp.rm(temp, { force: true });
  }
}
