// Thumbnails of private files for the Files tab (docs/files.md "Thumbnails and
// viewers"): made once per file contents, from the blob on this computer (so they
// cost no API quota), and kept on disk by the contents' sha256. They are drawn in
// the media worker (media-worker.ts), off the main process's thread and under its
// time and memory limits: images through sharp, a PDF's first page through pdf.js
// (media-jobs.ts). At most `concurrency` are made at once, so a list of hundreds of
// photos does not stall the process; asking twice for one while it is being made
// waits for the same work.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { makePrivateFolderAsync, PRIVATE_FILE_MODE } from '../engine/store/private-files.ts';
import { type MediaWorkers, pixelBudgetOf, sharedMediaWorkers } from './media-worker.ts';

/** Longest side of a thumbnail in pixels: sharp on a 2x screen for the list's boxes and the PDF viewer's page strip. */
export const THUMBNAIL_SIZE = 256;
export const THUMBNAIL_CONTENT_TYPE = 'image/webp';
export type ThumbnailSource = 'image' | 'pdf';

/** What kind of thumbnail the first bytes of a file allow, or null (its type's icon instead). */
export function thumbnailSourceOf(head: Uint8Array): ThumbnailSource | null {
  const starts = (...bytes: number[]) => bytes.every((byte, index) => head[index] === byte);
  const ascii = (from: number, text: string) => [...text].every((character, index) => head[from + index] === character.charCodeAt(0));
  if (ascii(0, '%PDF-')) return 'pdf';
  if (starts(0xff, 0xd8, 0xff)) return 'image'; // JPEG
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'image'; // PNG
  if (ascii(0, 'GIF8')) return 'image';
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'image';
  if (starts(0x49, 0x49, 0x2a, 0x00) || starts(0x4d, 0x4d, 0x00, 0x2a)) return 'image'; // TIFF
  if (ascii(4, 'ftypavif') || ascii(4, 'ftypheic') || ascii(4, 'ftypheix') || ascii(4, 'ftypmif1')) return 'image';
  return null;
}

export interface ThumbnailServiceOptions {
  /** Where thumbnails are kept: a private folder (0700, files 0600) inside the data folder. */
  cacheDir: string;
  /** Thumbnails made at once (default 2). */
  concurrency?: number;
  size?: number;
  /** Where they are drawn; by default the process's media workers (MEDIA_LIMITS). */
  workers?: MediaWorkers;
}

export interface ThumbnailCounters {
  /** Thumbnails drawn (images and PDFs). */
  made: number;
  /** Answers read from the cache. */
  cacheHits: number;
  /** Files that got no thumbnail (not an image or PDF, unreadable, too large). */
  none: number;
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

export class ThumbnailService {
  readonly size: number;
  readonly counters: ThumbnailCounters = { made: 0, cacheHits: 0, none: 0 };
  private readonly concurrency: number;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly inFlight = new Map<string, Promise<Buffer | null>>();
  /** Contents being drawn now, whose "none" mark was written before the work and is not a verdict yet. */
  private readonly provisionalMarks = new Set<string>();
  private closed = false;
  readonly workers: MediaWorkers;

  constructor(private readonly options: ThumbnailServiceOptions) {
    this.size = options.size ?? THUMBNAIL_SIZE;
    this.concurrency = Math.max(1, options.concurrency ?? 2);
    this.workers = options.workers ?? sharedMediaWorkers();
  }

  /** The cached thumbnail's file, whose name carries the contents' hash and the size; `.none` marks contents that have none. */
  cachePath(sha256: string, suffix: 'webp' | 'none' = 'webp'): string {
    return path.join(this.options.cacheDir, sha256.slice(0, 2), `${sha256}.${this.size}.${suffix}`);
  }

  /**
   * The thumbnail (WebP) of the contents with this sha256, whose bytes are in
   * `blobFile`, or null when they have none. Made once: later calls, in this
   * process or the next, read it from the cache.
   */
  async thumbnail(sha256: string, blobFile: string): Promise<Buffer | null> {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error('A thumbnail is looked up by the sha256 of its contents.');
    // Before the cache: while one is drawn, its "none" mark is already written (make()).
    const running = this.inFlight.get(sha256);
    if (running) return running;
    const cached = await this.readCached(sha256);
    if (cached !== undefined) return cached;
    const again = this.inFlight.get(sha256);
    if (again) return again;
    const made = this.queued(() => this.make(sha256, blobFile)).finally(() => this.inFlight.delete(sha256));
    this.inFlight.set(sha256, made);
    return made;
  }

  /** undefined: not in the cache. */
  private async readCached(sha256: string): Promise<Buffer | null | undefined> {
    try {
      const bytes = await fsp.readFile(this.cachePath(sha256));
      this.counters.cacheHits++;
      return bytes;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    if (fs.existsSync(this.cachePath(sha256, 'none'))) {
      this.counters.cacheHits++;
      return null;
    }
    return undefined;
  }

  private async queued<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  private async make(sha256: string, blobFile: string): Promise<Buffer | null> {
    // Made meanwhile by a call that was queued first.
    const cached = await this.readCached(sha256);
    if (cached !== undefined) return cached;
    const source = await this.sourceOf(blobFile); // ENOENT: the contents are not on this computer, nothing to remember
    let thumbnail: Buffer | null = null;
    if (source) {
      // Recorded before the work starts: a file that kills or hangs the work (or the
      // app, or the computer) gets its type's icon for good, not a new try at each visit.
      await this.store(sha256, null);
      this.provisionalMarks.add(sha256);
      try {
        const result = await this.workers.run({ kind: 'thumbnail', file: blobFile, source, size: this.size, pixelBudget: pixelBudgetOf(this.workers.limits) });
        if (result.kind === 'thumbnail' && result.bytes) thumbnail = Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength);
      } catch (error) {
        if (isMissing(error)) {
          // Gone meanwhile (a file on demand evicted): nothing to remember about these contents.
          await fsp.rm(this.cachePath(sha256, 'none'), { force: true });
          throw error;
        }
        thumbnail = null; // unreadable, or over a limit: its type's icon, and no second try for the same contents
      } finally {
        this.provisionalMarks.delete(sha256);
      }
    }
    if (thumbnail) {
      this.counters.made++;
      await this.store(sha256, thumbnail);
      await fsp.rm(this.cachePath(sha256, 'none'), { force: true });
    } else {
      this.counters.none++;
      // The verdict; usually marked already, before the work, unless a quit lifted that mark meanwhile.
      if (!this.closed) await this.store(sha256, null);
    }
    return thumbnail;
  }

  /**
   * The app is quitting: the marks written before drawings still under way are lifted,
   * so a file whose thumbnail was cut short by a clean quit is drawn at the next visit.
   * Only a crash or a kill mid-work (which a hostile file may cause) leaves the mark.
   */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.provisionalMarks].map((sha256) => fsp.rm(this.cachePath(sha256, 'none'), { force: true })));
    this.provisionalMarks.clear();
  }

  /** What the file's first bytes say it is; throws ENOENT when the contents are not here. */
  private async sourceOf(blobFile: string): Promise<ThumbnailSource | null> {
    const handle = await fsp.open(blobFile, 'r');
    const head = new Uint8Array(16);
    try {
      await handle.read(head, 0, head.length, 0);
    } finally {
      await handle.close();
    }
    return thumbnailSourceOf(head);
  }

  /** Written to a temp name and renamed, so a reader never sees half a thumbnail; private like the rest of the data folder. */
  private async store(sha256: string, thumbnail: Buffer | null): Promise<void> {
    const target = this.cachePath(sha256, thumbnail ? 'webp' : 'none');
    await makePrivateFolderAsync(path.dirname(target));
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await fsp.writeFile(temp, thumbnail ?? '', { mode: PRIVATE_FILE_MODE });
    await fsp.rename(temp, target);
  }
}
