// What the media worker does (media-worker.ts runs it in a worker thread, never in
// the main process's): draw a thumbnail (images through sharp, a PDF's first page
// through pdf.js) and read a photo's EXIF. Each runs under the worker's time and
// memory limits; what the limits cannot see (libvips' own memory) is kept in bounds
// here, by checking an image's declared pixels against a budget before decoding it.
import fsp from 'node:fs/promises';
import { loadSharp } from '../engine/lazy-modules.ts';
import { loadPdfJs, MAX_PDF_BYTES, renderFirstPdfPage } from './pdf-render.ts';
import { readPhotoExif, type PhotoExif } from './photo-exif.ts';
import type { ThumbnailSource } from './thumbnails.ts';

export type MediaJob =
  | { kind: 'thumbnail'; file: string; source: ThumbnailSource; size: number; pixelBudget: number }
  | { kind: 'exif'; bytes: Uint8Array };

export type MediaResult = { kind: 'thumbnail'; bytes: Uint8Array | null } | { kind: 'exif'; exif: PhotoExif };

/** Images larger than this many pixels get their type's icon (sharp's own default guard against decompression bombs). */
const MAX_INPUT_PIXELS = 268_402_689;
/** A JPEG is shrunk by up to 8 on each side while decoded ("shrink-on-load"): it needs the memory of 1/64th of its pixels. */
const JPEG_SHRINK_ON_LOAD_AREA = 64;

export class OverPixelBudgetError extends Error {
  readonly code = 'MEDIA_PIXEL_BUDGET';
}

/**
 * Loads what `job` needs before its time limit starts (media-worker.ts): pdf.js
 * takes seconds to load through tsx, once per worker.
 */
export async function prepareFor(job: MediaJob): Promise<void> {
  if (job.kind === 'thumbnail' && job.source === 'pdf') await loadPdfJs();
}

export async function runMediaJob(job: MediaJob): Promise<MediaResult> {
  if (job.kind === 'exif') return { kind: 'exif', exif: await readPhotoExif(job.bytes) };
  if (job.source === 'pdf') {
    if ((await fsp.stat(job.file)).size > MAX_PDF_BYTES) return { kind: 'thumbnail', bytes: null };
    const page = await renderFirstPdfPage(new Uint8Array(await fsp.readFile(job.file)), job.size);
    return { kind: 'thumbnail', bytes: await drawImage(page, job.size, MAX_INPUT_PIXELS) };
  }
  return { kind: 'thumbnail', bytes: await drawImage(job.file, job.size, job.pixelBudget) };
}

/**
 * Decoded from the file as it is read (`sequentialRead`); for a JPEG, libvips
 * shrinks by up to 8 while decoding ("shrink-on-load"), so a large photo costs the
 * memory of its thumbnail's neighbourhood, not of its pixels. Other formats are
 * decoded whole, so their declared size must fit `pixelBudget` (read from the
 * header first, nothing decoded): a 1 KB PNG may declare 1 x 100,000,000 pixels.
 * `.rotate()` applies the EXIF orientation, so a phone photo stands as it was taken.
 */
async function drawImage(input: string | Buffer, size: number, pixelBudget: number): Promise<Buffer> {
  const sharp = await loadSharp();
  const { width = 0, height = 0, format } = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  const budget = format === 'jpeg' ? Math.min(MAX_INPUT_PIXELS, pixelBudget * JPEG_SHRINK_ON_LOAD_AREA) : pixelBudget;
  if (width * height > budget) throw new OverPixelBudgetError(`${width} x ${height} pixels is over the ${budget}-pixel budget of a thumbnail`);
  return sharp(input, { failOn: 'none', sequentialRead: true, limitInputPixels: MAX_INPUT_PIXELS, pages: 1 })
    .rotate()
    .resize(size, size, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .webp({ quality: 78, effort: 2 })
    .toBuffer();
}
