// Thumbnails and viewers (issue 17, docs/files.md "Thumbnails and viewers"): the
// demo's photos and PDFs get thumbnails in the Files tab; a photo opens in the
// image viewer (zoom, next/previous through the list as shown, EXIF facts, Escape
// closes), a PDF in the PDF viewer with its text drawn on its page; a CSV offers
// Download (browser mode has no "Open with the system"). Screenshots in both
// themes at 800x600 and 1920x1080 land in test-results/screenshots/.
import { expect, test, type Page } from '@playwright/test';
import sharp from 'sharp';
import piexif from 'piexifjs';
import { apiPaths } from '../shared/api-paths.ts';
import { openApp, openProjectByIdentifier, pageProblems, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';

let app: RunningApp;
let identifier: string;
let site: { lat: number; lon: number };
test.beforeAll(async () => {
  app = await startSolarDesk();
  // The demo project that holds "Roof, north face", "Switchboard" and "Proposal".
  const files = await app.api<{ title: string; project: string | null }[]>('GET', apiPaths.privateFiles(1), undefined, { limit: 100 });
  const projectUrl = files.body.find((file) => file.title === 'Roof, north face')!.project!;
  const projectId = Number(/\/projects\/(\d+)\/$/.exec(projectUrl)![1]);
  const project = (await app.api<{ identifier: string; lat: number | null; lon: number | null }>('GET', apiPaths.project(1, projectId))).body;
  identifier = project.identifier;
  // The site at a known place, and a photo taken 0.05° north of it (about 5.6 km), its GPS and time written by piexifjs.
  site = { lat: -33.8688, lon: 151.2093 };
  await app.api('PATCH', apiPaths.project(1, projectId), { lat: site.lat, lon: site.lon });
  const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#0ea5e9' } }).jpeg().toBuffer();
  const exif = piexif.dump({
    Exif: { [piexif.ExifIFD.DateTimeOriginal]: '2026:10:02 14:05:09' },
    GPS: {
      [piexif.GPSIFD.GPSLatitudeRef]: 'S',
      [piexif.GPSIFD.GPSLatitude]: piexif.GPSHelper.degToDmsRational(Math.abs(site.lat + 0.05)),
      [piexif.GPSIFD.GPSLongitudeRef]: 'E',
      [piexif.GPSIFD.GPSLongitude]: piexif.GPSHelper.degToDmsRational(site.lon),
    },
  });
  const withExif = Buffer.from(piexif.insert(exif, jpeg.toString('binary')), 'binary');
  await app.bridge.invoke('files.upload', { uploadId: 'e2e-preview-gps', projectId, fileName: 'gps-photo.jpg', bytes: new Uint8Array(withExif) });
  // A file of a type the app does not show itself, on the same project.
  await app.bridge.invoke('files.upload', { uploadId: 'e2e-preview-csv', projectId, fileName: 'meter-readings.csv', bytes: new TextEncoder().encode('date,kwh\n2026-11-01,1234\n') });
});
test.afterAll(async () => app.stop());

async function openFilesTab(page: Page): Promise<void> {
  await openApp(page, app);
  await openProjectByIdentifier(page, identifier);
  await page.getByRole('tab', { name: 'Files' }).click();
  await expect(page.getByTestId('file-row').first()).toBeVisible();
}

const rowOf = (page: Page, title: string) => page.getByTestId('file-row').filter({ hasText: title });

/** The pixels of an <img> or <canvas>, as counts of dark and of coloured pixels, read in the page. */
async function inkOf(page: Page, selector: string): Promise<{ dark: number; marked: number; coloured: number; width: number }> {
  return page.locator(selector).evaluate((element) => {
    const source = element as HTMLImageElement | HTMLCanvasElement;
    const width = source instanceof HTMLImageElement ? source.naturalWidth : source.width;
    const height = source instanceof HTMLImageElement ? source.naturalHeight : source.height;
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext('2d')!;
    context.drawImage(source, 0, 0);
    const { data } = context.getImageData(0, 0, width, height);
    let dark = 0;
    let marked = 0;
    let coloured = 0;
    for (let index = 0; index < data.length; index += 4) {
      const [r, g, b] = [data[index]!, data[index + 1]!, data[index + 2]!];
      if (r + g + b < 200) dark++;
      if (r + g + b < 600) marked++;
      if (Math.max(r, g, b) - Math.min(r, g, b) > 40) coloured++;
    }
    return { dark, marked, coloured, width };
  });
}

test('the demo photos and PDFs show thumbnails; a CSV shows its icon', async ({ page }) => {
  await openFilesTab(page);
  for (const title of ['Roof, north face', 'Switchboard', 'Proposal']) {
    const thumbnail = rowOf(page, title).getByTestId('file-thumbnail');
    await expect(thumbnail).toHaveAttribute('data-state', 'image');
    await expect.poll(() => thumbnail.locator('img').evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBeGreaterThan(100);
  }
  // The photo thumbnail is a picture, not a blank box.
  expect((await inkOf(page, '[data-testid="file-row"]:has-text("Roof, north face") [data-testid="file-thumbnail"] img')).coloured).toBeGreaterThan(1000);
  await expect(rowOf(page, 'meter-readings.csv').getByTestId('file-thumbnail')).toHaveAttribute('data-state', 'icon');
  await expect(rowOf(page, 'meter-readings.csv').getByTestId('file-thumbnail')).toContainText('CSV');
  // Every box is the same size, loaded or not: the list does not jump.
  const sizes = await page.getByTestId('file-thumbnail').evaluateAll((boxes) => boxes.map((box) => `${box.getBoundingClientRect().width}x${box.getBoundingClientRect().height}`));
  expect(new Set(sizes)).toEqual(new Set(['48x48']));
  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    await rowOf(page, 'Proposal').scrollIntoViewIfNeeded();
    await screenshotBothThemes(page, `files-thumbnails-${width}x${height}`);
  }
  expect(pageProblems(page)).toEqual([]);
});

test('the image viewer: the photo, zoom, next and previous through the list, EXIF facts, Escape closes', async ({ page }) => {
  await openFilesTab(page);
  const titles = await page.getByTestId('file-row').locator('.file-title').allTextContents();
  await rowOf(page, 'Roof, north face').getByTestId('file-open-viewer').click();
  const viewer = page.getByTestId('file-viewer');
  await expect(viewer).toHaveAttribute('data-kind', 'image');
  await expect(viewer.getByRole('heading', { name: 'Roof, north face' })).toBeVisible();
  const image = viewer.getByTestId('viewer-image');
  await expect.poll(() => image.evaluate((element) => (element as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
  expect((await inkOf(page, '[data-testid="viewer-image"]')).coloured).toBeGreaterThan(10_000);
  await expect(viewer.getByTestId('photo-facts')).toContainText('Taken');
  // Browser mode: Download, no "Open" or "Show in folder".
  await expect(viewer.getByRole('button', { name: 'Download' })).toBeVisible();
  await expect(viewer.getByRole('button', { name: 'Show in folder' })).toHaveCount(0);

  // Zoom: 100% shows the image at its own size; + goes above it; Fit goes back.
  await viewer.getByRole('button', { name: '100%' }).click();
  await expect(viewer.getByTestId('zoom-level')).toHaveText('100%');
  await viewer.getByRole('button', { name: 'Zoom in' }).click();
  await expect(viewer.getByTestId('zoom-level')).toHaveText('150%');
  const natural = await image.evaluate((element) => (element as HTMLImageElement).naturalWidth);
  expect(await image.evaluate((element) => element.getBoundingClientRect().width)).toBeCloseTo(natural * 1.5, 0);
  await viewer.getByRole('button', { name: 'Fit' }).click();
  await page.mouse.move(400, 300);

  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    await expect(image).toBeVisible();
    const box = (await viewer.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(width);
    expect(box.y + box.height).toBeLessThanOrEqual(height);
    await screenshotBothThemes(page, `image-viewer-${width}x${height}`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });

  // → and ← walk the list in the order it is shown.
  const at = titles.indexOf('Roof, north face');
  await page.keyboard.press('ArrowRight');
  await expect(viewer.getByRole('heading')).toHaveText(titles[(at + 1) % titles.length]!);
  await page.keyboard.press('ArrowLeft');
  await expect(viewer.getByRole('heading')).toHaveText('Roof, north face');
  await viewer.getByRole('button', { name: 'Previous file' }).click();
  await expect(viewer.getByRole('heading')).toHaveText(titles[(at - 1 + titles.length) % titles.length]!);

  await page.keyboard.press('Escape');
  await expect(viewer).toHaveCount(0);
  expect(pageProblems(page)).toEqual([]);
});

test("the image viewer shows a photo's EXIF date and place, and how far from the site it was taken", async ({ page }) => {
  await openFilesTab(page);
  await rowOf(page, 'gps-photo.jpg').getByTestId('file-open-viewer').click();
  const facts = page.getByTestId('file-viewer').getByTestId('photo-facts');
  await expect(facts).toContainText('Oct 2, 2026');
  await expect(facts).toContainText(`${(site.lat + 0.05).toFixed(5)}, ${site.lon.toFixed(5)}`);
  await expect(facts).toContainText('5.6 km from the site');
  await page.setViewportSize({ width: 800, height: 600 });
  await screenshotBothThemes(page, 'image-viewer-exif-800x600');
  await page.keyboard.press('Escape');
  expect(pageProblems(page)).toEqual([]);
});

test('the PDF viewer: the proposal page drawn with its text, page thumbnails, zoom', async ({ page }) => {
  await openFilesTab(page);
  await rowOf(page, 'Proposal').getByTestId('file-open-viewer').click();
  const viewer = page.getByTestId('file-viewer');
  await expect(viewer).toHaveAttribute('data-kind', 'pdf');
  await expect(viewer.getByTestId('pdf-page-number')).toHaveText('Page 1 of 1');
  await expect(viewer.getByTestId('pdf-page')).toHaveAttribute('data-rendered-page', '1');
  // Text is drawn: the page has dark ink on white.
  expect((await inkOf(page, '[data-testid="pdf-page"]')).dark).toBeGreaterThan(500);
  await expect(viewer.getByRole('button', { name: 'Page 1' })).toHaveAttribute('aria-current', 'page');
  // The page's thumbnail in the strip is drawn too (small text: grey, not black).
  await expect.poll(async () => (await inkOf(page, '.pdf-thumbnail canvas')).marked).toBeGreaterThan(20);

  const before = await viewer.getByTestId('pdf-page').evaluate((canvas) => canvas.getBoundingClientRect().width);
  await viewer.getByRole('button', { name: 'Zoom out' }).click();
  await expect.poll(() => viewer.getByTestId('pdf-page').evaluate((canvas) => canvas.getBoundingClientRect().width)).toBeLessThan(before);

  await viewer.getByRole('button', { name: 'Fit width' }).click();
  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    await expect(viewer.getByTestId('pdf-page')).toHaveAttribute('data-rendered-page', '1');
    await screenshotBothThemes(page, `pdf-viewer-${width}x${height}`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.keyboard.press('Escape');
  await expect(viewer).toHaveCount(0);
  expect(pageProblems(page)).toEqual([]);
});

test('a file the app does not show itself: its icon, size and Download', async ({ page }) => {
  await openFilesTab(page);
  const title = 'meter-readings.csv';
  await rowOf(page, title).getByTestId('file-open-viewer').click();
  const other = page.getByTestId('viewer-other');
  await expect(other).toContainText(title);
  await expect(other.getByRole('button', { name: 'Download' })).toBeVisible();
  await screenshotBothThemes(page, 'other-file-viewer');
  await other.getByRole('button', { name: 'Download' }).click();
  await expect(page.getByText(/Saved meter-readings\.csv to/)).toBeVisible();
  expect(pageProblems(page)).toEqual([]);
});
