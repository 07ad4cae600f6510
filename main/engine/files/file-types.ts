// What a stored file is (its Content-Type) and how its name is sent back
// (Content-Disposition). The name decides first, as browsers and clients expect
// (mime-types, over the mime-db table every Node HTTP stack uses); the first bytes
// decide for names that say nothing.
import mime from 'mime-types';
import makeContentDisposition from 'content-disposition';

/** Leading bytes of the formats field staff upload most, for files named without an extension. */
const SIGNATURES: ReadonlyArray<readonly [bytes: number[], type: string]> = [
  [[0x25, 0x50, 0x44, 0x46, 0x2d], 'application/pdf'], // %PDF-
  [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/png'],
  [[0xff, 0xd8, 0xff], 'image/jpeg'],
  [[0x47, 0x49, 0x46, 0x38], 'image/gif'], // GIF8
  [[0x50, 0x4b, 0x03, 0x04], 'application/zip'],
];

export const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

export function contentTypeFor(fileName: string, head: Uint8Array): string {
  const byName = mime.lookup(fileName);
  if (byName) return byName;
  const signature = SIGNATURES.find(([bytes]) => bytes.every((byte, index) => head[index] === byte));
  return signature?.[1] ?? FALLBACK_CONTENT_TYPE;
}

/** Types a browser may show in place without running anything of ours; everything else downloads. */
const SAFE_INLINE_TYPES = new Set(['application/pdf', 'image/jpeg', 'image/png', 'image/gif', 'image/webp', 'text/plain', 'text/csv']);

/**
 * `inline; filename="Meter photo.jpg"`; a name beyond ASCII also gets RFC 6266's
 * `filename*=UTF-8''...`, with a plain ASCII stand-in (non-ASCII as `_`) for old
 * clients, rather than the ISO-8859-1 one the library would pick by itself.
 */
export function contentDisposition(fileName: string, contentType: string): string {
  const type = SAFE_INLINE_TYPES.has(contentType) ? 'inline' : 'attachment';
  return makeContentDisposition(fileName, { type, fallback: fileName.replace(/[^\x20-\x7e]/g, '_') });
}

/** The file name a Content-Disposition header carries (its UTF-8 form first), or null when it names none or cannot be read. */
export function fileNameFromContentDisposition(header: string | null): string | null {
  if (!header) return null;
  try {
    const name = makeContentDisposition.parse(header).parameters.filename;
    return name ? name : null;
  } catch {
    return null; // a malformed header names nothing we can trust
  }
}

/** The usual extension of a content type, with its dot (`.jpg`), or '' when the type has none or says nothing (octet-stream). */
export function extensionForType(contentType: string): string {
  if (contentType === FALLBACK_CONTENT_TYPE) return ''; // "some bytes": `.bin` would be a guess, not a type
  const extension = mime.extension(contentType);
  return extension ? `.${extension}` : '';
}

/** A file name from a client, made safe to store and send back: no folders, no control characters. */
export function cleanFileName(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? fallback : cleaned;
}
