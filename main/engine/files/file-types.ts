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

/** Where mime-db's first extension is not the one people's systems use for the type. */
const PREFERRED_EXTENSIONS: Readonly<Record<string, string>> = {
  'video/quicktime': 'mov', // mime-db lists "qt" first; every phone and Mac writes .mov
  'audio/mpeg': 'mp3', // mime-db lists "mpga" first
  'image/jpeg': 'jpg',
};

/**
 * Types that hold many formats (a .docx is a zip, a .csv is plain text, an old .doc
 * is a compound file): a name whose extension says something more precise is not
 * contradicted by them.
 */
const CONTAINER_TYPES = new Set([FALLBACK_CONTENT_TYPE, 'application/zip', 'application/x-cfb', 'text/plain', 'application/xml', 'text/xml']);

/** Names clients send that mime-db does not list, for the type it does. */
const TYPE_ALIASES: Readonly<Record<string, string>> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg' };

/** The type without parameters (`; charset=utf-8`), lower case, aliases resolved; '' for none. */
function bareType(contentType: string | null | undefined): string {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return TYPE_ALIASES[type] ?? type;
}

/** The usual extension of a content type, with its dot (`.jpg`), or '' when the type has none or says nothing (octet-stream). */
export function extensionForType(contentType: string): string {
  const type = bareType(contentType);
  if (type === '' || type === FALLBACK_CONTENT_TYPE) return ''; // "some bytes": `.bin` would be a guess, not a type
  const extension = PREFERRED_EXTENSIONS[type] ?? mime.extension(type);
  return extension ? `.${extension}` : '';
}

/** A type that says what the bytes are (not octet-stream, not empty). */
export function isTellingType(contentType: string | null | undefined): boolean {
  const type = bareType(contentType);
  return type !== '' && type !== FALLBACK_CONTENT_TYPE;
}

/** A type that holds many formats (zip, plain text...): the bytes themselves may say more. */
export function isContainerType(contentType: string | null | undefined): boolean {
  return CONTAINER_TYPES.has(bareType(contentType));
}

/** The extension a name ends with ("report.PDF" → ".PDF"), or '' ("Roof, north face", "v1.2 final", ".env": a dot-name is all name). */
export function extensionOf(name: string): string {
  return /^.+?(\.[^.\s]{1,10})$/.exec(name)?.[1] ?? '';
}

/**
 * Whether a name's extension may stand for a file of this type: it is one of the
 * type's extensions (".jpeg" or ".JPG" for image/jpeg), or the type says too little
 * to contradict it (unknown, octet-stream, a container such as zip or plain text).
 */
export function extensionFitsType(extension: string, contentType: string | null | undefined): boolean {
  if (extension === '') return false;
  const type = bareType(contentType);
  if (!isTellingType(type) || CONTAINER_TYPES.has(type)) return true;
  const bare = extension.slice(1).toLowerCase();
  return (mime.extensions[type] ?? []).includes(bare) || PREFERRED_EXTENSIONS[type] === bare;
}

/**
 * The name a file of `contentType` is written to disk or sent under: `name` itself
 * when its extension fits the type ("Site plan.pdf", "report.PDF"); else with the
 * extension of the first of `otherNames` that fits (the file's original name:
 * "Notes" of notes.txt is "Notes.txt"); else with the type's usual extension
 * ("Roof, north face" of a JPEG is "Roof, north face.jpg"); else as it is. The
 * name's own text is never replaced, only added to ("Invoice 2024.03" of a PDF is
 * "Invoice 2024.03.pdf"), so the user still finds what they named it.
 */
export function nameWithTypeExtension(name: string, otherNames: readonly string[], contentType: string | null | undefined): string {
  if (extensionFitsType(extensionOf(name), contentType)) return name;
  for (const other of otherNames) {
    const extension = extensionOf(other);
    if (extensionFitsType(extension, contentType)) return `${name}${extension}`;
  }
  const extension = extensionForType(bareType(contentType));
  return extension ? `${name}${extension}` : name;
}

/** A file name from a client, made safe to store and send back: no folders, no control characters. */
export function cleanFileName(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? fallback : cleaned;
}
