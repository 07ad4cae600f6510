// Thumbnails (issue 17, docs/files.md "Thumbnails and viewers"), each against a
// baseline from the same run:
// - thumbs.generate: the thumbnail service (queue of 2, cache writes, private
//   files) on real 4000x3000 JPEGs, against sharp alone doing the same resize on
//   the same files, also two at a time;
// - thumbs.files-tab: a project with 500 such photos in the Files tab (browser
//   mode, Debian's Chromium): the time until the first screen of thumbnails is
//   shown, with thumbnails still to be made (cold) and already cached (warm), and
//   the frame times while scrolling the list, against a static HTML page showing
//   the same thumbnails from a bare server.
// SOLARDESK_BENCH_PHOTOS sets how many photos (default 500); fewer make a quicker run.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from '@playwright/test';
import { launchBenchChromium, percentile, scrollFrameTimes } from './page-frames.ts';
import sharp from 'sharp';
import { createEngine } from '../main/engine/engine.ts';
import { seedDemo } from '../main/engine/seed/demo-seed.ts';
import { adoptBlob, blobPath, receiveBuffer } from '../main/engine/files/blob-store.ts';
import { insertFileRow } from '../main/engine/files/file-service.ts';
import { ThumbnailService, THUMBNAIL_SIZE } from '../main/core/thumbnails.ts';
import { ensureRendererBuilt } from '../main/renderer-files.ts';
import { STOP_WITH_PARENT, stopChild, waitForOutput } from '../main/testing/child-process.ts';
import type { Benchmark, BenchResult } from './bench-types.ts';

const PHOTO_COUNT = Number(process.env.SOLARDESK_BENCH_PHOTOS ?? 500);
/** Photos thumbnailed for the throughput figure (each side does the same ones). */
const GENERATE_COUNT = Math.min(PHOTO_COUNT, 60);
const PROJECT_ID = 7;
const SCROLL_FRAMES = 240;
const SCROLL_STEP_PX = 40;
const VIEWPORT = { width: 1400, height: 900 };
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * `count` distinct 4000x3000 JPEGs (12 MP, as a phone takes them). Eight scenes
 * are drawn and encoded by sharp; each photo is one of them with a few bytes of its
 * own after the image's end marker (which decoders ignore), so every photo has
 * its own hash, as every real photo does, and the same decoding cost.
 */
async function makePhotos(count: number): Promise<Buffer[]> {
  const scenes: Buffer[] = [];
  for (let scene = 0; scene < 8; scene++) {
    const hue = (scene * 45) % 360;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="3000">
      <defs><linearGradient id="s" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="hsl(${hue},60%,70%)"/><stop offset="1" stop-color="hsl(${(hue + 40) % 360},50%,90%)"/></linearGradient></defs>
      <rect width="4000" height="3000" fill="url(#s)"/><circle cx="${800 + scene * 300}" cy="700" r="320" fill="#fff6b0"/>
      <polygon points="800,1700 2000,${900 + scene * 40} 3200,1700" fill="#8a4b3a"/><rect x="1000" y="1700" width="2000" height="900" fill="#e8dccb"/>
      <rect y="2300" width="4000" height="700" fill="#6f9a52"/></svg>`;
    // Noise, so the JPEG has real detail to decode, as a photo does.
    const noise = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 0, sigma: 18 } } }).png({ compressionLevel: 0 }).toBuffer();
    scenes.push(await sharp(Buffer.from(svg)).composite([{ input: noise, blend: 'overlay' }]).jpeg({ quality: 85 }).toBuffer());
  }
  return Array.from({ length: count }, (_, index) => Buffer.concat([scenes[index % scenes.length]!, Buffer.from(`photo-${index}`)]));
}

/** The demo data plus `photos` attached to project 7, their blobs in the data folder as an upload leaves them. */
async function seedPhotos(dataDir: string, photos: readonly Buffer[]): Promise<string[]> {
  const engine = await createEngine({ dataDir, deliverWebhooks: false });
  try {
    await seedDemo(engine.context);
    const hashes: string[] = [];
    for (const [index, bytes] of photos.entries()) {
      const received = await receiveBuffer(engine.context.store.fileRoot, bytes, 'bench');
      await adoptBlob(engine.context, received, () =>
        engine.context.db.transaction().execute((trx) =>
          insertFileRow(trx, engine.context, received, {
            orgId: 1,
            userId: 1,
            projectId: PROJECT_ID,
            title: `Site photo ${String(index + 1).padStart(3, '0')}.jpg`,
            fileName: `IMG_${1000 + index}.jpg`,
            mimeType: 'image/jpeg',
            tagIds: [],
          }),
        ),
      );
      hashes.push(received.sha256);
    }
    return hashes;
  } finally {
    await engine.close();
  }
}

/** Runs `work` on each item, `concurrency` at a time, and returns the seconds it took. */
async function timed<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
  return (performance.now() - started) / 1000;
}

/** The baseline page: the same thumbnails as <img> files, one row each, in a scrolling box. */
function staticPageHtml(count: number): string {
  const rows = Array.from(
    { length: count },
    (_, index) =>
      `<div class="row"><img src="t/${index}.webp" width="48" height="48" loading="lazy"><b>Site photo ${String(index + 1).padStart(3, '0')}.jpg</b><span>2.1 MB</span></div>`,
  ).join('');
  return `<!doctype html><meta charset="utf-8"><style>body{margin:0;font:14px system-ui}#list{height:${VIEWPORT.height}px;overflow:auto}.row{height:49px;border-bottom:1px solid #ddd;padding:0 14px;display:flex;align-items:center;gap:10px}img{object-fit:cover;border-radius:6px}</style><div id="list">${rows}</div>`;
}

function staticServerScript(folder: string): string {
  return `const http=require('http');const fs=require('fs');const path=require('path');const root=${JSON.stringify(folder)};
http.createServer((q,r)=>{const file=path.join(root,q.url==='/'?'index.html':q.url.slice(1));fs.readFile(file,(e,b)=>{if(e){r.writeHead(404);return r.end()}
r.writeHead(200,{'content-type':file.endsWith('.webp')?'image/webp':'text/html; charset=utf-8'});r.end(b)})}).listen(0,'127.0.0.1',function(){console.log('serving at http://127.0.0.1:'+this.address().port+'/')});`;
}

/**
 * Resolves once every thumbnail box on screen shows its picture, checked every
 * frame. A string run by page.evaluate: waitForFunction evaluates strings with
 * eval, which the app's CSP refuses, and tsx would rewrite a function.
 */
const FIRST_SCREEN_SHOWN = `new Promise((resolve) => {
  function check() {
    const boxes = [...document.querySelectorAll('[data-testid="file-thumbnail"], #list img')]
      .filter((box) => { const rect = box.getBoundingClientRect(); return rect.bottom > 0 && rect.top < innerHeight && rect.width > 0; });
    const shown = boxes.length >= 8 && boxes.every((box) => box.tagName === 'IMG' ? box.complete && box.naturalWidth > 0 : box.dataset.state === 'image');
    if (shown) resolve(true); else requestAnimationFrame(check);
  }
  check();
})`;

/** The element that scrolls the Files tab (the project pane), found by what overflows. */
const MARK_SCROLLER = `(() => {
  let element = document.querySelector('[data-testid="files-table"]');
  while (element && !(element.scrollHeight > element.clientHeight + 10 && ['auto', 'scroll'].includes(getComputedStyle(element).overflowY))) element = element.parentElement;
  if (!element) throw new Error('nothing scrolls the Files tab');
  element.setAttribute('data-bench-scroller', '');
})()`;

interface TabMeasure {
  firstScreenMs: number;
  frameTimes: number[];
}

async function measureFilesTab(browser: Browser, url: string, scroll: boolean): Promise<TabMeasure> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  try {
    await page.goto(url);
    await page.getByRole('searchbox', { name: 'Search projects' }).fill('SD-2026-0007');
    await page.getByTestId('project-count').filter({ hasText: '1 project' }).waitFor();
    await page.getByTestId('project-row').first().click();
    // From the click on the tab to the first screen of pictures.
    const started = performance.now();
    await page.getByRole('tab', { name: 'Files' }).click();
    await page.evaluate(FIRST_SCREEN_SHOWN);
    const firstScreenMs = performance.now() - started;
    let frameTimes: number[] = [];
    if (scroll) {
      await page.evaluate(MARK_SCROLLER);
      frameTimes = await scrollFrameTimes(page, '[data-bench-scroller]', SCROLL_FRAMES, SCROLL_STEP_PX);
    }
    return { firstScreenMs, frameTimes };
  } finally {
    await context.close();
  }
}

async function measureStaticPage(browser: Browser, folder: string): Promise<TabMeasure> {
  const child = spawn(process.execPath, ['-e', staticServerScript(folder)]);
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const url = await waitForOutput(child, /serving at (\S+)/);
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(url);
    await page.evaluate(FIRST_SCREEN_SHOWN);
    const firstScreenMs = performance.now() - started;
    const frameTimes = await scrollFrameTimes(page, '#list', SCROLL_FRAMES, SCROLL_STEP_PX);
    return { firstScreenMs, frameTimes };
  } finally {
    await context.close();
    await stopChild(child);
  }
}

export const benchmarks: Benchmark[] = [
  {
    name: 'thumbs.generate',
    description: `thumbnails of ${GENERATE_COUNT} 4000x3000 JPEGs by the thumbnail service (two at a time, cached on disk) against sharp alone doing the same resize`,
    async run(): Promise<BenchResult[]> {
      const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'solardesk-bench-thumbs-'));
      try {
        const photos = await makePhotos(GENERATE_COUNT);
        const files = photos.map((bytes, index) => {
          const file = path.join(workDir, `photo-${index}.jpg`);
          fs.writeFileSync(file, bytes);
          return { file, sha256: createHash('sha256').update(bytes).digest('hex') };
        });
        const alone = (file: string) =>
          sharp(file, { failOn: 'none' }).rotate().resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 78, effort: 2 }).toBuffer();
        // A warm-up of each (libvips' and the disk cache's first touches), then the timed runs.
        await timed(files.slice(0, 4), 2, (photo) => alone(photo.file));
        await timed(files.slice(0, 4), 2, (photo) => new ThumbnailService({ cacheDir: path.join(workDir, 'warm-up') }).thumbnail(photo.sha256, photo.file));
        const sharpSeconds = await timed(files, 2, (photo) => alone(photo.file));
        const service = new ThumbnailService({ cacheDir: path.join(workDir, 'cache'), concurrency: 2 });
        const serviceSeconds = await timed(files, files.length, (photo) => service.thumbnail(photo.sha256, photo.file));
        const cachedSeconds = await timed(files, files.length, (photo) => service.thumbnail(photo.sha256, photo.file));
        const perSecond = (seconds: number) => files.length / seconds;
        return [
          {
            name: 'thumbs.generate-per-second',
            value: perSecond(serviceSeconds),
            baseline: perSecond(sharpSeconds),
            ratio: perSecond(serviceSeconds) / perSecond(sharpSeconds),
            unit: 'photos/s',
            notes: `${files.length} distinct 4000x3000 JPEGs, all asked at once of the service (it runs 2 at a time) vs sharp alone 2 at a time; higher is better, 1 = no overhead`,
          },
          {
            name: 'thumbs.cached-per-second',
            value: perSecond(cachedSeconds),
            baseline: perSecond(sharpSeconds),
            ratio: perSecond(cachedSeconds) / perSecond(sharpSeconds),
            unit: 'photos/s',
            notes: 'the same thumbnails asked again (read from the cache, nothing drawn) vs drawing them with sharp; higher is better',
          },
        ];
      } finally {
        fs.rmSync(workDir, { recursive: true, force: true });
      }
    },
  },
  {
    name: 'thumbs.files-tab',
    description: `the Files tab of a project with ${PHOTO_COUNT} 4000x3000 photos in browser mode (first screen of thumbnails, cold and cached; scrolling), against a static page of the same thumbnails`,
    async run(): Promise<BenchResult[]> {
      const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'solardesk-bench-files-tab-'));
      const dataDir = path.join(workDir, 'data');
      let browser: Browser | undefined;
      let child: ReturnType<typeof spawn> | undefined;
      try {
        const hashes = await seedPhotos(dataDir, await makePhotos(PHOTO_COUNT));
        await ensureRendererBuilt();
        browser = await launchBenchChromium();
        child = spawn(process.execPath, [path.join(repoRoot, 'main/solardesk.js'), 'web', '--port', '0', '--data', dataDir, STOP_WITH_PARENT], { cwd: repoRoot });
        const url = await waitForOutput(child, /SolarDesk is running at (\S+)/);

        const cold = await measureFilesTab(browser, url, false);
        const warm = await measureFilesTab(browser, url, true);

        // The baseline's files: the very thumbnails the app made, served as plain files.
        const staticDir = path.join(workDir, 'static');
        fs.mkdirSync(path.join(staticDir, 't'), { recursive: true });
        const cache = new ThumbnailService({ cacheDir: path.join(dataDir, 'thumbnails') });
        for (const [index, sha256] of hashes.entries()) {
          fs.writeFileSync(path.join(staticDir, 't', `${index}.webp`), (await cache.thumbnail(sha256, blobPath(dataDir, sha256)))!);
        }
        fs.writeFileSync(path.join(staticDir, 'index.html'), staticPageHtml(hashes.length));
        await measureStaticPage(browser, staticDir); // warm-up
        const baseline = await measureStaticPage(browser, staticDir);
        const p95 = (values: number[]) => percentile(values, 0.95);
        const mean = (values: number[]) => values.reduce((total, value) => total + value, 0) / values.length;
        return [
          {
            name: 'thumbs.first-screen-cold',
            value: cold.firstScreenMs,
            baseline: baseline.firstScreenMs,
            ratio: cold.firstScreenMs / baseline.firstScreenMs,
            unit: 'ms',
            notes: `Files tab click to every thumbnail on screen shown, none made yet (made from ${PHOTO_COUNT} 12 MP JPEGs on demand) vs loading the static page of the finished thumbnails; lower is better`,
          },
          {
            name: 'thumbs.first-screen-cached',
            value: warm.firstScreenMs,
            baseline: baseline.firstScreenMs,
            ratio: warm.firstScreenMs / baseline.firstScreenMs,
            unit: 'ms',
            notes: 'the same with the thumbnails in the cache (a new browser context: nothing in its HTTP cache) vs the static page; lower is better',
          },
          {
            name: 'thumbs.scroll-frame-p95',
            value: p95(warm.frameTimes),
            baseline: p95(baseline.frameTimes),
            ratio: p95(warm.frameTimes) / p95(baseline.frameTimes),
            unit: 'ms/frame',
            notes: `95th percentile of ${SCROLL_FRAMES} frames scrolling ${SCROLL_STEP_PX} px per frame through ${PHOTO_COUNT} rows (thumbnails loading as they come near) vs the static page (lazy <img>); lower is better`,
          },
          {
            name: 'thumbs.scroll-frame-mean',
            value: mean(warm.frameTimes),
            baseline: mean(baseline.frameTimes),
            ratio: mean(warm.frameTimes) / mean(baseline.frameTimes),
            unit: 'ms/frame',
            notes: `mean frame time of the same scroll; longest frame ${Math.round(Math.max(...warm.frameTimes))} ms (app) vs ${Math.round(Math.max(...baseline.frameTimes))} ms (static); lower is better`,
          },
        ];
      } finally {
        await browser?.close();
        if (child) await stopChild(child);
        fs.rmSync(workDir, { recursive: true, force: true });
      }
    },
  },
];
