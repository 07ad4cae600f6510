// Each project's folder under the folder root, and saving downloads into it
// without ever replacing a different file (sync-lessons.md: downloads go to a
// temporary name and are renamed into place).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

// Characters Windows refuses in names (control characters too), and its reserved names.
const ILLEGAL_CHARACTERS = /[<>:"/\\|?*]/g;
const RESERVED_NAMES = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;
const isControlCharacter = (character: string) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f;

/** A name that is valid on Windows, macOS and Linux alike. */
export function safeFileName(name: string, fallback: string): string {
  const printable = [...name].map((character) => (isControlCharacter(character) ? ' ' : character)).join('');
  let cleaned = printable.replace(ILLEGAL_CHARACTERS, ' ').replace(/\s+/g, ' ').trim().replace(/[. ]+$/, '');
  if (RESERVED_NAMES.test(cleaned)) cleaned = `_${cleaned}`;
  return cleaned.slice(0, 120).trim() || fallback;
}

/** "<title> (<id>)": the id keeps two projects with one title apart, the title lets people find it. */
export function projectFolderName(project: { id: number; title?: string | null; identifier?: string | null }): string {
  const label = project.title?.trim() || project.identifier?.trim() || 'Project';
  return `${safeFileName(label, 'Project')} (${project.id})`;
}

async function sameBytes(file: string, bytes: Uint8Array): Promise<boolean> {
  try {
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
