// The name a file gets when the app writes it to disk (a folder copy of a file
// attached elsewhere, a download): the title people gave it, with an extension that
// matches what the file is, so the system knows what opens it ("Roof, north face"
// of a JPEG is "Roof, north face.jpg"). What the file is comes from its content
// type, or from its first bytes when the type says nothing (a replica knows a remote
// file only by its title until its bytes arrive). The rule itself is the engine's
// nameWithTypeExtension, which also names the engine's downloads.
import fsp from 'node:fs/promises';
import { fileTypeFromBuffer } from 'file-type';
import { isContainerType, isTellingType, nameWithTypeExtension } from '../engine/files/file-types.ts';
import { safeName } from './folder-names.ts';

/** How much of a file magic-byte detection reads: file-type's "reasonable detection size". */
export const HEAD_BYTES = 4100;

/** A file's first bytes, or how to read them (only read when the content type says nothing). */
export type FileHead = Uint8Array | (() => Promise<Uint8Array>);

/** The first HEAD_BYTES bytes of a file on disk (fewer for a smaller file). */
export async function headOfFile(file: string): Promise<Uint8Array> {
  const handle = await fsp.open(file, 'r');
  try {
    const buffer = new Uint8Array(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * What a file is: its content type when that says what the bytes are; else (no
 * type, octet-stream, or a container such as zip that the bytes may narrow to
 * .docx) the type its magic bytes show; else the content type as given.
 */
export async function typeOfFile(contentType: string | null | undefined, head: FileHead): Promise<string | null> {
  if (isTellingType(contentType) && !isContainerType(contentType)) return contentType!;
  const bytes = typeof head === 'function' ? await head() : head;
  const detected = bytes.length > 0 ? await fileTypeFromBuffer(bytes).catch(() => undefined) : undefined;
  return detected?.mime ?? contentType ?? null;
}

/**
 * A name for a file on disk, valid on every OS (folder-names.ts's safeName): the
 * title, else the file's name, else `fallback`; keeping its own extension when it
 * fits the file's type (or nothing contradicts it), else adding the file name's
 * extension, the content type's, or the magic bytes' ("Site plan.pdf" and
 * "report.PDF" stay; an octet-stream nobody recognises gets none).
 */
export async function nameWithExtension(
  title: string,
  fileName: string,
  contentType: string | null | undefined,
  head: FileHead,
  fallback = 'file',
): Promise<string> {
  const base = safeName(title, '') || safeName(fileName, '') || fallback;
  const type = await typeOfFile(contentType, head);
  return safeName(nameWithTypeExtension(base, [fileName], type), fallback);
}
