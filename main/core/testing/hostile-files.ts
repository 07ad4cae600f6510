// Hostile files for tests (issue 25, items 2 and 3), made in a few KB each: what a
// user can drop in a project folder to make thumbnailing take all the time or
// memory there is.
import zlib from 'node:zlib';

/**
 * A PDF whose page draws form XObject 0, which draws XObject 1 twice, which draws
 * XObject 2 twice, ... `depth` levels: 2^depth drawings from a file of a few KB.
 */
export function nestedXObjectPdf(depth = 24): Buffer {
  const objects: string[] = [];
  // 1: catalog, 2: pages, 3: page, 4: page contents, 5...: the XObjects.
  const xobject = (level: number) => 5 + level;
  objects.push('<< /Type /Catalog /Pages 2 0 R >>');
  objects.push('<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /X0 ${xobject(0)} 0 R >> >> >>`);
  const pageContents = '/X0 Do';
  objects.push(`<< /Length ${pageContents.length} >>\nstream\n${pageContents}\nendstream`);
  for (let level = 0; level < depth; level++) {
    const last = level === depth - 1;
    const contents = last ? '0 0 9 9 re f' : '/X Do /X Do';
    const resources = last ? '' : `/Resources<</XObject<</X ${xobject(level + 1)} 0 R>>>>`;
    objects.push(`<</Subtype/Form/BBox[0 0 612 792]${resources}/Length ${contents.length}>>stream\n${contents}\nendstream`);
  }
  let body = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/**
 * A grey PNG that declares `width` x `height` pixels (default 1 x 100,000,000: under
 * the 268-megapixel guard) and holds the first rows only, about 1 KB.
 */
export function tallPng(width = 1, height = 100_000_000): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale, no interlace
  const rows = Buffer.alloc(Math.min(height, 100_000) * (width + 1)); // filter byte 0 and black pixels
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', zlib.deflateSync(rows, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
