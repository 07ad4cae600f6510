// The thumbnail service on real files: JPEG, PNG and PDF made here, the cache on
// disk (private, read back without drawing again), and a photo far too large to
// decode in full, thumbnailed within a small fraction of its pixels' memory.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { pdf } from '../engine/seed/demo-files.ts';
import { ThumbnailService, thumbnailSourceOf } from './thumbnails.ts';
import { type MediaLimitError, MediaWorkers, pixelBudgetOf } from './media-worker.ts';
import { nestedXObjectPdf, tallPng } from './testing/hostile-files.ts';

let folder: string;
before(() => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'solardesk-thumbnails-'));
});
after(() => fs.rmSync(folder, { recursive: true, force: true }));

/** A file as a blob: its bytes under a name, and their sha256. */
function blob(name: string, bytes: Buffer): { file: string; sha256: string } {
  const file = path.join(folder, name);
  fs.writeFileSync(file, bytes);
  return { file, sha256: createHash('sha256').update(bytes).digest('hex') };
}

const service = (name: string, concurrency = 2) => new ThumbnailService({ cacheDir: path.join(folder, name), concurrency });

describe('thumbnails', () => {
  test('a JPEG photo: a WebP at most 256 px on its longer side, keeping its shape, its EXIF orientation applied', async () => {
    // 1200x800 landscape, stored with orientation 6 (rotate 90° clockwise to view): it stands 800 wide, 1200 tall.
    const photo = blob('photo.jpg', await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#3b82f6' } }).withMetadata({ orientation: 6 }).jpeg().toBuffer());
    const thumbnails = service('jpeg');
    const thumbnail = await thumbnails.thumbnail(photo.sha256, photo.file);
    assert.ok(thumbnail);
    const meta = await sharp(thumbnail).metadata();
    assert.equal(meta.format, 'webp');
    assert.deepEqual([meta.width, meta.height], [171, 256]);
  });

  test('a PNG chart and a PDF: the PDF is its first page, drawn with its text on white', async () => {
    const chart = blob('chart.png', await sharp({ create: { width: 640, height: 320, channels: 4, background: { r: 0, g: 128, b: 0, alpha: 0.5 } } }).png().toBuffer());
    const contract = blob('contract.pdf', pdf('Installation contract', ['The customer agrees to the installation of a solar system.']));
    const thumbnails = service('png-pdf');
    const png = await thumbnails.thumbnail(chart.sha256, chart.file);
    assert.deepEqual([(await sharp(png!).metadata()).width, (await sharp(png!).metadata()).height], [256, 128]);

    const page = await thumbnails.thumbnail(contract.sha256, contract.file);
    assert.ok(page);
    const meta = await sharp(page).metadata();
    // US Letter, 612x792 points: 198x256.
    assert.deepEqual([meta.width, meta.height], [198, 256]);
    // Mostly white paper, with dark text: the title's line near the top has ink in it.
    const { data, info } = await sharp(page).greyscale().raw().toBuffer({ resolveWithObject: true });
    const inkInRows = (from: number, to: number) => {
      let ink = 0;
      for (let y = from; y < to; y++) for (let x = 0; x < info.width; x++) if (data[y * info.width + x]! < 128) ink++;
      return ink;
    };
    assert.ok(inkInRows(0, 40) > 20, 'the title is drawn');
    assert.equal(inkInRows(120, 256), 0, 'the bottom of the page is blank');
  });

  test('made once per contents: a second ask reads the cache (no drawing), in this service and a new one; files are 0600', async () => {
    const photo = blob('cached.jpg', await sharp({ create: { width: 800, height: 600, channels: 3, background: '#f97316' } }).jpeg().toBuffer());
    const first = service('cache');
    const [a, b] = await Promise.all([first.thumbnail(photo.sha256, photo.file), first.thumbnail(photo.sha256, photo.file)]);
    assert.deepEqual(a, b);
    assert.equal(first.counters.made, 1, 'two asks at once draw it once');
    const again = await first.thumbnail(photo.sha256, photo.file);
    assert.deepEqual(again, a);
    assert.equal(first.counters.made, 1);
    assert.equal(first.counters.cacheHits, 1);

    // The blob may even be gone: the cache answers by hash alone.
    fs.rmSync(photo.file);
    const later = service('cache');
    assert.deepEqual(await later.thumbnail(photo.sha256, photo.file), a);
    assert.equal(later.counters.made, 0);
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(later.cachePath(photo.sha256)).mode & 0o777, 0o600);
      assert.equal(fs.statSync(path.dirname(later.cachePath(photo.sha256))).mode & 0o777, 0o700);
    }
  });

  test('other types and unreadable images get none, remembered; missing contents throw and leave nothing behind', async () => {
    const csv = blob('bill.csv', Buffer.from('month,kwh\n2026-01,600\n'));
    const broken = blob('broken.jpg', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200, 7)]));
    const thumbnails = service('none');
    assert.equal(await thumbnails.thumbnail(csv.sha256, csv.file), null);
    assert.equal(await thumbnails.thumbnail(broken.sha256, broken.file), null);
    assert.equal(await thumbnails.thumbnail(broken.sha256, broken.file), null);
    assert.equal(thumbnails.counters.none, 2, 'an unreadable file is tried once');

    const absent = 'a'.repeat(64);
    await assert.rejects(thumbnails.thumbnail(absent, path.join(folder, 'not-here.jpg')), { code: 'ENOENT' });
    assert.equal(fs.existsSync(thumbnails.cachePath(absent)) || fs.existsSync(thumbnails.cachePath(absent, 'none')), false);
    await assert.rejects(thumbnails.thumbnail('../../etc/passwd', csv.file), /sha256/);
  });

  test('a 10000x10000 JPEG is thumbnailed without decoding it in full (shrink-on-load): memory grows far less than its 300 MB of pixels', async () => {
    const huge = path.join(folder, 'huge.jpg');
    // Made as a stream of rows by libvips: the test's own set-up does not hold the pixels either.
    await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: '#64748b' } })
      .composite([{ input: { create: { width: 4000, height: 3000, channels: 3, background: '#fde047' } }, left: 3000, top: 3000 }])
      .jpeg({ quality: 70 })
      .toFile(huge);
    const sha256 = createHash('sha256').update(fs.readFileSync(huge)).digest('hex');
    sharp.cache(false);
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    try {
      const thumbnail = await service('huge').thumbnail(sha256, huge);
      peak = Math.max(peak, process.memoryUsage().rss);
      assert.deepEqual([(await sharp(thumbnail!).metadata()).width, (await sharp(thumbnail!).metadata()).height], [256, 256]);
    } finally {
      clearInterval(sampler);
      sharp.cache(true);
    }
    const grewMb = (peak - baseline) / 1024 / 1024;
    // Decoded in full, the pixels alone are 10000 x 10000 x 3 bytes = 286 MB.
    assert.ok(grewMb < 100, `memory grew by ${grewMb.toFixed(0)} MB while thumbnailing`);
  });

  test('first bytes decide the kind', () => {
    assert.equal(thumbnailSourceOf(Buffer.from('%PDF-1.7')), 'pdf');
    assert.equal(thumbnailSourceOf(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a])), 'image');
    assert.equal(thumbnailSourceOf(Buffer.from('PK\x03\x04')), null);
  });
});

// Issue 25, items 2 and 3: files made here, a few KB each, that took the main
// process's thread for minutes (the PDF) or its memory without end (the PNG).
describe('thumbnails of hostile files, in the media worker under its limits', () => {
  /**
   * How many 20 ms ticks the main thread ran while `work` ran: a thread held by the
   * work (as the main process's was) runs none. Counted, not timed, so a busy machine
   * cannot fail it; the bridge's 200 ms is timed in app-core.test.ts.
   */
  async function ticksDuring<T>(work: Promise<T>): Promise<{ result: T; ticks: number }> {
    let ticks = 0;
    const tick = setInterval(() => ticks++, 20);
    try {
      return { result: await work, ticks };
    } finally {
      clearInterval(tick);
    }
  }

  test('a clean quit while a thumbnail is drawn lifts its mark, so the next visit draws it; a finished verdict stays', async () => {
    const slow = blob('slow.pdf', nestedXObjectPdf());
    const workers = new MediaWorkers({ timeoutMs: 3000, memoryMb: 256 });
    const cacheDir = path.join(folder, 'quit');
    const thumbnails = new ThumbnailService({ cacheDir, workers });
    try {
      const drawing = thumbnails.thumbnail(slow.sha256, slow.file);
      // Bounded: 200 polls of 25 ms.
      for (let i = 0; i < 200 && !fs.existsSync(thumbnails.cachePath(slow.sha256, 'none')); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      assert.ok(fs.existsSync(thumbnails.cachePath(slow.sha256, 'none')), 'marked before the work');
      // A verdict reached before the quit (a file that is no image) is not lifted by it.
      const text = blob('notes.txt', Buffer.from('no image here'));
      assert.equal(await thumbnails.thumbnail(text.sha256, text.file), null);
      await thumbnails.close();
      assert.equal(fs.existsSync(thumbnails.cachePath(slow.sha256, 'none')), false, 'the quit lifted the provisional mark');
      assert.equal(await drawing, null, 'the cut-short drawing answers the icon for now');
      assert.equal(fs.existsSync(thumbnails.cachePath(slow.sha256, 'none')), false, 'and records no verdict after the quit');
      assert.ok(fs.existsSync(thumbnails.cachePath(text.sha256, 'none')), 'the finished verdict stays');
    } finally {
      await workers.close();
    }
  });

  test('a 4 KB PDF of nested form XObjects is ended at the time limit; its icon is recorded before the work starts; the main thread runs meanwhile', async () => {
    const bytes = nestedXObjectPdf();
    assert.ok(bytes.length < 5000, `${bytes.length} bytes`);
    const nested = blob('nested.pdf', bytes);
    // The default limit is 10 s; 3 s here keeps the test short.
    const workers = new MediaWorkers({ timeoutMs: 3000, memoryMb: 256 });
    const thumbnails = new ThumbnailService({ cacheDir: path.join(folder, 'nested'), workers });
    try {
      let settled = false;
      const drawing = thumbnails.thumbnail(nested.sha256, nested.file).finally(() => (settled = true));
      // Bounded: 200 polls of 25 ms.
      for (let i = 0; i < 200 && !fs.existsSync(thumbnails.cachePath(nested.sha256, 'none')); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      assert.ok(fs.existsSync(thumbnails.cachePath(nested.sha256, 'none')), 'the icon is recorded');
      assert.equal(settled, false, 'recorded before the work ended');
      const { result, ticks } = await ticksDuring(drawing);
      assert.equal(result, null, 'its type’s icon');
      assert.equal(workers.ended.timeout, 1, 'ended at the time limit');
      // The job ran for its 3 s limit: 150 ticks on an idle machine.
      assert.ok(ticks >= 20, `the main thread ran ${ticks} ticks meanwhile`);
      // For good: a new service (the next visit, or the app after a crash mid-work) does not try again.
      const next = new ThumbnailService({ cacheDir: path.join(folder, 'nested'), workers });
      assert.equal(await next.thumbnail(nested.sha256, nested.file), null);
      assert.deepEqual([next.counters.made, next.counters.none, next.counters.cacheHits], [0, 0, 1]);
    } finally {
      await workers.close();
    }
  });

  test('the same PDF under a small memory limit is ended for its memory, not its time', async () => {
    const nested = blob('nested-memory.pdf', nestedXObjectPdf());
    const workers = new MediaWorkers({ timeoutMs: 240_000, memoryMb: 96 });
    try {
      await assert.rejects(workers.run({ kind: 'thumbnail', file: nested.file, source: 'pdf', size: 256, pixelBudget: pixelBudgetOf(workers.limits) }), (error: MediaLimitError) => error.code === 'MEDIA_MEMORY');
      assert.deepEqual(workers.ended, { timeout: 0, memory: 1, exit: 0 });
    } finally {
      await workers.close();
    }
  });

  test('a 1 KB PNG declaring 1 x 100,000,000 pixels is refused by the pixel budget before it is decoded: its icon, for good', async () => {
    const bytes = tallPng();
    assert.ok(bytes.length < 2000, `${bytes.length} bytes`);
    const tall = blob('tall.png', bytes);
    const workers = new MediaWorkers();
    assert.ok(100_000_000 > pixelBudgetOf(workers.limits), 'over the budget of the default 256 MB limit');
    const thumbnails = new ThumbnailService({ cacheDir: path.join(folder, 'tall'), workers });
    try {
      await assert.rejects(workers.run({ kind: 'thumbnail', file: tall.file, source: 'image', size: 256, pixelBudget: pixelBudgetOf(workers.limits) }), /1 x 100000000 pixels is over the \d+-pixel budget/);
      assert.equal(await thumbnails.thumbnail(tall.sha256, tall.file), null);
      assert.ok(fs.existsSync(thumbnails.cachePath(tall.sha256, 'none')));
      assert.deepEqual(workers.ended, { timeout: 0, memory: 0, exit: 0 }, 'refused, not ended at a limit');
    } finally {
      await workers.close();
    }
  });
});
