// Files on demand in the project folders (issue 15): a folder whose project's files
// stay on the remote gets one small text file, ONLINE_ONLY_FILE_NAME, listing them
// (title, size) and saying how to get them. The watcher never attaches it
// (folder-names.ts ignores that exact name), and never writes over a file of that
// name it did not write itself: its own copies start with ONLINE_ONLY_MARKER. It is
// rewritten only when its text would change, and removed (when it is ours) once
// nothing of the project is online only. docs/project-folders.md "Files on demand".
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { ONLINE_ONLY_FILE_NAME, nameKey, uniqueName } from './folder-names.ts';
import { agentTempDir } from './arrivals.ts';
import { lstatOrNull } from './file-stat.ts';
import { formatBytes as formatByteCount } from '../../shared/format-bytes.ts';

export { ONLINE_ONLY_FILE_NAME };

/** The first line of every copy SolarDesk writes: a file without it is the user's and is never touched. */
export const ONLINE_ONLY_MARKER = 'SolarDesk: files of this project that are on the remote only (SolarDesk writes this file; changes to it are replaced).';

/** Where text typed into a listing goes before the listing is rewritten or removed (beside it; "(2)"... when taken). */
export const ONLINE_ONLY_NOTES_NAME = 'Online only (SolarDesk) - your notes.txt';

/** The last line of every copy SolarDesk writes names a checksum of the lines above it: text typed in changes them. */
const CHECK_PREFIX = 'SolarDesk check: ';

const checkOf = (body: string) => createHash('sha256').update(body).digest('hex').slice(0, 16);

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
    `This file keeps no text of yours: anything typed into it is moved to "${ONLINE_ONLY_NOTES_NAME}" beside it`,
    'when the list changes, and this file is never uploaded, even when renamed.',
    '',
    ...entries.map((entry) => `- ${entry.title || `file ${entry.id}`}  (${formatBytes(entry.filesize)})`),
    '',
  ];
  const body = lines.join('\n');
  return `${body}${CHECK_PREFIX}${checkOf(body)}\n`;
}

/**
 * Whether a listing's text is as SolarDesk wrote it: its check line matches the lines
 * above. A listing written before the check line existed (none) is taken as untouched.
 */
export function isUntouchedListing(text: string): boolean {
  const at = text.lastIndexOf(CHECK_PREFIX);
  if (at === -1) return true;
  return text.slice(at + CHECK_PREFIX.length).trim() === checkOf(text.slice(0, at));
}

/** How every copy SolarDesk writes starts. */
const LISTING_START = Buffer.from(`${ONLINE_ONLY_MARKER}\n`);

/**
 * Whether an open file is a listing SolarDesk wrote, under whatever name: never
 * attached. Read from the file the watcher has open to stage it (stability-gate.ts),
 * whose copy is checked unchanged afterwards, rather than opening the copy again.
 * `firstBytes`, the file's first bytes already read (the staging's sniffed head):
 * a file that does not start as a listing is not read again.
 */
export async function isOnlineOnlyListing(handle: FileHandle, size: number, firstBytes?: Buffer): Promise<boolean> {
  if (size > MAX_OURS_BYTES || size < LISTING_START.length) return false;
  if (firstBytes && !firstBytes.subarray(0, LISTING_START.length).equals(LISTING_START.subarray(0, firstBytes.length))) return false;
  const head = Buffer.alloc(LISTING_START.length);
  await handle.read(head, 0, head.length, 0);
  return head.equals(LISTING_START);
}

/** Text typed into a listing is kept in a notes file beside it before the listing changes; returns that file's name. */
async function keepTypedText(folder: string, text: string): Promise<string> {
  const taken = new Set((await fsp.readdir(folder)).map(nameKey));
  for (;;) {
    const name = uniqueName(ONLINE_ONLY_NOTES_NAME, (key) => taken.has(key));
    try {
      // 'wx': never over a file made meanwhile.
      await fsp.writeFile(path.join(folder, name), text, { flag: 'wx', mode: 0o644 });
      return name;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      taken.add(nameKey(name));
    }
  }
}

export type OnlineOnlyOutcome = 'written' | 'unchanged' | 'removed' | 'absent' | 'not_ours';

export interface OnlineOnlyUpdate {
  outcome: OnlineOnlyOutcome;
  /** Text typed into the listing was moved to this file beside it. */
  notesKeptIn?: string;
}

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
export async function updateOnlineOnly(root: string, folder: string, entries: readonly OnlineOnlyEntry[]): Promise<OnlineOnlyUpdate> {
  const file = path.join(folder, ONLINE_ONLY_FILE_NAME);
  const there = await lstatOrNull(file);
  if (there && !(await isOurs(file))) return { outcome: 'not_ours' };
  const text = entries.length === 0 ? null : onlineOnlyText(entries);
  const before = there ? await fsp.readFile(file, 'utf8') : null;
  if (before !== null && before === text) return { outcome: 'unchanged' };
  // Typed into it: kept beside it before the listing is rewritten or removed.
  const notesKeptIn = before !== null && !isUntouchedListing(before) ? await keepTypedText(folder, before) : undefined;
  const kept = notesKeptIn ? { notesKeptIn } : {};
  if (text === null) {
    if (!there) return { outcome: 'absent' };
    await fsp.rm(file, { force: true });
    return { outcome: 'removed', ...kept };
  }
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
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { outcome: 'not_ours' };
        if ((error as NodeJS.ErrnoException).code !== 'EPERM' && (error as NodeJS.ErrnoException).code !== 'ENOTSUP') throw error;
        // No hard links on this disk (FAT, some shares): checked just before, as arrivals do.
        if (await lstatOrNull(file)) return { outcome: 'not_ours' };
        await fsp.rename(temp, file);
      }
    }
    return { outcome: 'written', ...kept };
  } finally {
    await fsp.rm(temp, { force: true });
  }
}
