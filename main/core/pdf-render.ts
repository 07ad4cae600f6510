// The first page of a PDF as a PNG, drawn in Node by pdf.js (pdfjs-dist's legacy
// build) on @napi-rs/canvas, for the Files tab's thumbnails (thumbnails.ts).
// pdf.js runs its parser in the calling thread (its "fake worker"), so this runs in
// the media worker (media-worker.ts), under its time and memory limits, and only on
// PDFs up to MAX_PDF_BYTES.
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as PdfJsModule from 'pdfjs-dist/legacy/build/pdf.mjs';

/** Larger PDFs get their type's icon, not a thumbnail: pdf.js needs the whole file in memory. */
export const MAX_PDF_BYTES = 64 * 1024 * 1024;

/**
 * pdfjs-dist 6 is written for Node 22; SolarDesk supports Node 20.19, which lacks
 * these two. Both are defined only where missing, with the behaviour pdf.js relies
 * on (a copy of the buffer; the original need not be detached for it).
 */
function polyfillForNode20(): void {
  const withResolvers = Promise as unknown as { withResolvers?: unknown };
  if (!withResolvers.withResolvers) {
    withResolvers.withResolvers = function <T>() {
      let resolve!: (value: T) => void;
      let reject!: (reason: unknown) => void;
      const promise = new Promise<T>((yes, no) => {
        resolve = yes;
        reject = no;
      });
      return { promise, resolve, reject };
    };
  }
  for (const name of ['transfer', 'transferToFixedLength']) {
    if (name in ArrayBuffer.prototype) continue;
    Object.defineProperty(ArrayBuffer.prototype, name, {
      configurable: true,
      writable: true,
      value(this: ArrayBuffer, length = this.byteLength) {
        const copy = new ArrayBuffer(length);
        new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
        return copy;
      },
    });
  }
}

type PdfJs = typeof PdfJsModule;
type RenderParameters = Parameters<Awaited<ReturnType<PdfJsModule.PDFDocumentProxy['getPage']>>['render']>[0];
let pdfjs: Promise<PdfJs> | null = null;
export const loadPdfJs = () => {
  polyfillForNode20();
  pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjs;
};

/** pdf.js draws the 14 standard fonts (Helvetica and friends) from these files; without them, text comes out blank. */
const standardFontDataUrl = path.join(path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts') + path.sep;

interface NodeCanvas {
  toBuffer(type: 'image/png'): Buffer;
}
interface CanvasAndContext {
  canvas: NodeCanvas;
  context: { fillStyle: string; fillRect(x: number, y: number, width: number, height: number): void };
}

/** Renders page 1 so that its longer side is `size` pixels, on white; throws on a PDF pdf.js cannot read. */
export async function renderFirstPdfPage(data: Uint8Array, size: number): Promise<Buffer> {
  return (await renderPdfPages(data, size, 1))[0]!;
}

/** Renders the first `maxPages` pages (all by default) as PNGs, each with its longer side `size` pixels, on white. */
export async function renderPdfPages(data: Uint8Array, size: number, maxPages = Infinity): Promise<Buffer[]> {
  const { getDocument } = await loadPdfJs();
  // pdf.js refuses a Node Buffer; a plain view of the same bytes it takes.
  if (Buffer.isBuffer(data)) data = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const task = getDocument({ data, standardFontDataUrl, verbosity: 0, stopAtErrors: false });
  try {
    const document = await task.promise;
    const pages: Buffer[] = [];
    for (let number = 1; number <= Math.min(document.numPages, maxPages); number++) {
      const page = await document.getPage(number);
      const natural = page.getViewport({ scale: 1 });
      const viewport = page.getViewport({ scale: size / Math.max(natural.width, natural.height) });
      const width = Math.max(1, Math.round(viewport.width));
      const height = Math.max(1, Math.round(viewport.height));
      // The document's own canvas factory is @napi-rs/canvas's under Node.
      const factory = (document as unknown as { canvasFactory: { create(width: number, height: number): CanvasAndContext } }).canvasFactory;
      const { canvas, context } = factory.create(width, height);
      context.fillStyle = '#ffffff';
      context.fillRect(0, 0, width, height);
      await page.render({ canvas: canvas as unknown as RenderParameters['canvas'], canvasContext: context as unknown as RenderParameters['canvasContext'], viewport }).promise;
      pages.push(canvas.toBuffer('image/png'));
    }
    return pages;
  } finally {
    await task.destroy();
  }
}
