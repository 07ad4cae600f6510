// Names in project folders: valid on Windows, macOS and Linux alike, never two that
// one of those disks would take for the same name (case, Unicode normalisation),
// and which files the watcher leaves alone (temporary and system files).
// sync-lessons.md "Names"; docs/project-folders.md.

/** Characters Windows refuses in a name (the path separators of every OS among them). */
const ILLEGAL_CHARACTERS = /[<>:"/\\|?*]/g;
/** Windows' reserved device names, with or without an extension ("CON.txt" is reserved too). */
const RESERVED_NAMES = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;
/** Longest name kept, in characters; well under every OS's 255 and leaves room for Windows' 260-character paths. */
export const MAX_NAME_LENGTH = 120;
/** And in UTF-8 bytes: ext4 and APFS count bytes, and a name of 120 CJK characters is 360 of them. */
const MAX_NAME_BYTES = 240;

const isControlCharacter = (character: string) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f;

function splitExtension(name: string): { stem: string; extension: string } {
  const match = /^(.+?)(\.[^.\s]{1,10})$/.exec(name);
  return match ? { stem: match[1]!, extension: match[2]! } : { stem: name, extension: '' };
}

function truncate(text: string, maxChars: number, maxBytes: number): string {
  let result = [...text].slice(0, maxChars).join('');
  while (Buffer.byteLength(result) > maxBytes) result = [...result].slice(0, -1).join('');
  return result;
}

/** A leading run of dots (and the spaces between them): what would make the name hidden, or "..". */
const LEADING_DOTS = /^\.[. ]*/;

/**
 * A name valid on every OS and visible in every file manager: illegal and control
 * characters become spaces, runs of spaces one space, trailing dots and spaces go
 * (Windows drops them silently), a leading run of dots becomes "_" (a dot-name is
 * hidden, and the watcher leaves hidden names alone, so ".env" would never
 * round-trip), reserved device names get a leading "_", and long names are cut
 * (keeping the extension). Every name the app gives a folder or file on disk
 * comes through here (file-extension.ts for files).
 */
export function safeName(name: string, fallback: string): string {
  const printable = [...name.normalize('NFC')].map((character) => (isControlCharacter(character) ? ' ' : character)).join('');
  let cleaned = printable.replace(ILLEGAL_CHARACTERS, ' ').replace(/\s+/g, ' ').trim().replace(/[. ]+$/, '');
  if (cleaned !== '' && LEADING_DOTS.test(cleaned)) cleaned = cleaned.replace(LEADING_DOTS, '_');
  if (RESERVED_NAMES.test(cleaned)) cleaned = `_${cleaned}`;
  if ([...cleaned].length > MAX_NAME_LENGTH || Buffer.byteLength(cleaned) > MAX_NAME_BYTES) {
    const { stem, extension } = splitExtension(cleaned);
    cleaned = `${truncate(stem, MAX_NAME_LENGTH - extension.length, MAX_NAME_BYTES - Buffer.byteLength(extension)).replace(/[. ]+$/, '')}${extension}`;
  }
  return cleaned.trim() === '' ? fallback : cleaned;
}

/** "<title> (<id>)": the id keeps two projects with one title apart, the title lets people find it. */
export function projectFolderName(project: { id: number; title?: string | null; identifier?: string | null }): string {
  const label = project.title?.trim() || project.identifier?.trim() || 'Project';
  return `${safeName(label, 'Project')} (${project.id})`;
}

/** The project id a folder name ends with, "(<id>)", if any: how a folder renamed behind our back is found again. */
export function idInFolderName(folderName: string): number | null {
  const match = /\((\d{1,15})\)$/.exec(folderName);
  return match ? Number(match[1]) : null;
}

/**
 * Two names that a case-insensitive disk (Windows, macOS by default) or a
 * normalising one (macOS: NFD) would take for one file have the same key.
 */
export function nameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/** "stem (n).ext": the n-th name of a file whose name is taken ("plan (2).pdf"). */
export function numberedName(name: string, n: number): string {
  if (n <= 1) return name;
  const { stem, extension } = splitExtension(name);
  return `${stem} (${n})${extension}`;
}

/**
 * `name` if its key is free, else "stem (2).ext", "stem (3).ext"... The caller says
 * which keys are taken (names on disk, names about to be used).
 */
export function uniqueName(name: string, isTaken: (key: string) => boolean): string {
  for (let n = 1; ; n++) {
    const candidate = numberedName(name, n);
    if (!isTaken(nameKey(candidate))) return candidate;
  }
}

/** Files on demand: the list of a project's files kept on the remote only, which SolarDesk writes into its folder (online-only.ts). */
export const ONLINE_ONLY_FILE_NAME = 'Online only (SolarDesk).txt';

const IGNORED_EXACT = new Map([
  ['thumbs.db', 'a Windows thumbnail cache'],
  ['desktop.ini', 'a Windows folder settings file'],
  [ONLINE_ONLY_FILE_NAME.toLowerCase(), "SolarDesk's list of this project's files that are on the remote only (never attached)"],
]);

/**
 * Why a file is left alone, or null when it is one to attach: office lock and
 * owner files, partial downloads and temporary files, system files, dot-files.
 */
export function ignoreReason(name: string): string | null {
  const lower = name.toLowerCase();
  if (name.startsWith('~$')) return 'an Office owner file (~$...), made while a document is open';
  if (name.startsWith('.~lock.')) return 'a LibreOffice lock file (.~lock....), made while a document is open';
  if (lower === '.ds_store') return 'a macOS folder settings file';
  if (name.startsWith('.')) return 'a hidden file (its name starts with a dot)';
  const exact = IGNORED_EXACT.get(lower);
  if (exact) return exact;
  if (lower.endsWith('.tmp')) return 'a temporary file (.tmp)';
  if (lower.endsWith('.part')) return 'a partial download (.part)';
  if (lower.endsWith('.crdownload')) return 'a partial download (.crdownload)';
  return null;
}

export const isIgnoredName = (name: string): boolean => ignoreReason(name) !== null;

/**
 * The lock files an editing program keeps beside `name` while it has it open: Word,
 * Excel and PowerPoint's owner file "~$" + the name (for longer names Word drops
 * the name's first one or two characters to make room: "~$port.docx" for
 * "Report.docx"), and LibreOffice's ".~lock.<name>#". While one is there, the file
 * is in an editing session: saves come and go, and it is taken once, when the
 * program lets go (docs/project-folders.md "Edits").
 */
export function lockFileNamesFor(name: string): string[] {
  const names = [`~$${name}`, `.~lock.${name}#`];
  for (const cut of [1, 2]) if ([...name].length > cut + 1) names.push(`~$${[...name].slice(cut).join('')}`);
  return names;
}
