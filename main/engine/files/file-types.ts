// What a stored file is (its Content-Type) and how its name is sent back
// (Content-Disposition). The name decides first, as browsers and clients expect;
// the first bytes decide for names that say nothing.

const TYPES_BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  svg: 'image/svg+xml',
  csv: 'text/csv',
  txt: 'text/plain',
  json: 'application/json',
  xml: 'application/xml',
  html: 'text/html',
  zip: 'application/zip',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  dwg: 'image/vnd.dwg',
  dxf: 'image/vnd.dxf',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
};

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
  const extension = /\.([A-Za-z0-9]{1,8})$/.exec(fileName)?.[1]?.toLowerCase();
  const byName = extension ? TYPES_BY_EXTENSION[extension] : undefined;
  if (byName) return byName;
  const signature = SIGNATURES.find(([bytes]) => bytes.every((byte, index) => head[index] === byte));
  return signature?.[1] ?? FALLBACK_CONTENT_TYPE;
}

/** Types a browser may show in place without running anything of ours; everything else downloads. */
const SAFE_INLINE_TYPES = new Set(['application/pdf', 'image/jpeg', 'image/png', 'image/gif', 'image/webp', 'text/plain', 'text/csv']);

/**
 * `inline; filename="Meter photo.jpg"; filename*=UTF-8''Meter%20photo.jpg`: the
 * plain form for old clients (non-ASCII replaced), RFC 5987's for everyone else.
 */
export function contentDisposition(fileName: string, contentType: string): string {
  const disposition = SAFE_INLINE_TYPES.has(contentType) ? 'inline' : 'attachment';
  const asciiName = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${asciiName}"; filename*=UTF-8''${encoded}`;
}

/** A file name from a client, made safe to store and send back: no folders, no control characters. */
export function cleanFileName(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? fallback : cleaned;
}
