// The design tab: a 3D view that is really drawn (checked by its pixels), the
// system specs, and the cash-flow chart; and the plan notice for API Access orgs.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, test, type Page } from '@playwright/test';
import { openApp, openProjectByIdentifier, pageProblems, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';
import { apiPaths } from '../shared/api-paths.ts';
import { decodeDesign, DESIGN_TOO_LARGE_MESSAGE } from '../shared/design-codec.ts';
import { oneMemberDesignBomb } from '../main/engine/testing/design-bomb.ts';
import { DATABASE_FILE_NAME } from '../main/engine/store/database.ts';
import type { ProjectDesign } from '../shared/design-types.ts';

let app: RunningApp;
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => app.stop());

/** How many distinct colours the WebGL canvas holds (sampled on a grid), read back through a 2D canvas. */
async function distinctCanvasColours(page: Page): Promise<number> {
  return page.getByTestId('roof-canvas').evaluate((canvas: HTMLCanvasElement) => {
    const copy = document.createElement('canvas');
    copy.width = canvas.width;
    copy.height = canvas.height;
    const context = copy.getContext('2d')!;
    context.drawImage(canvas, 0, 0);
    const { data } = context.getImageData(0, 0, copy.width, copy.height);
    const colours = new Set<string>();
    for (let y = 0; y < copy.height; y += 7) {
      for (let x = 0; x < copy.width; x += 7) {
        const offset = (y * copy.width + x) * 4;
        colours.add(`${data[offset]},${data[offset + 1]},${data[offset + 2]}`);
      }
    }
    return colours.size;
  });
}

test('a design shows a drawn 3D roof, the systems and the cash flows', async ({ page }) => {
  await openApp(page, app);
  await openProjectByIdentifier(page, 'SD-2026-0025');
  await page.getByRole('tab', { name: 'Design' }).click();
  const design = page.getByTestId('design-tab');
  await expect(design).toBeVisible();
  await expect(page.getByTestId('roof-canvas')).toBeVisible();

  // Sky, ground, roof, walls and panels: a drawn scene has many colours; a blank or failed canvas has one.
  await expect.poll(() => distinctCanvasColours(page)).toBeGreaterThan(20);
  await expect(design.getByRole('heading', { name: 'Modules' })).toBeVisible();
  await expect(design.getByRole('heading', { name: 'Inverters' })).toBeVisible();
  await expect(design.getByRole('heading', { name: 'Pricing' })).toBeVisible();
  await expect(page.getByTestId('cashflow-chart').locator('canvas')).toBeVisible();
  await expect(page.getByTestId('payback-year')).toHaveText(/Year \d+|Not within 25 years/);

  // Orbiting redraws the scene (the canvas renders on demand).
  const before = await page.getByTestId('roof-canvas').screenshot();
  const box = (await page.getByTestId('roof-canvas').boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 120, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  expect((await page.getByTestId('roof-canvas').screenshot()).equals(before)).toBe(false);

  // The other system draws its own panels.
  const systems = design.getByRole('tablist', { name: 'Systems' }).getByRole('tab');
  if ((await systems.count()) > 1) {
    await systems.nth(1).click();
    await expect(systems.nth(1)).toHaveAttribute('aria-selected', 'true');
    await expect.poll(() => distinctCanvasColours(page)).toBeGreaterThan(20);
  }
  await screenshotBothThemes(page, 'project-design');
  await page.getByTestId('cashflow-chart').scrollIntoViewIfNeeded();
  await screenshotBothThemes(page, 'project-design-cashflow');
  expect(pageProblems(page)).toEqual([]);
});

/** The design a project shows, decoded here from the API (not from what the view computed). */
async function designOf(identifier: string): Promise<ProjectDesign> {
  const found = await app.api<Array<{ id: number }>>('GET', apiPaths.projects(1), undefined, { search: identifier });
  const project = await app.api<{ design: string }>('GET', apiPaths.project(1, found.body[0]!.id));
  return decodeDesign<ProjectDesign>(project.body.design);
}

/** Degrees between two compass azimuths, 0-180. */
const angleBetween = (a: number, b: number) => Math.abs((((a - b) % 360) + 540) % 360 - 180);

test('the 3D view opens facing the panels; payback and rate of return are shown once; the chart legend reads without hovering', async ({ page }) => {
  for (const identifier of ['SD-2026-0025', 'SD-2026-0019', 'SD-2025-0031']) {
    const design = await designOf(identifier);
    const system = design.systems.find((candidate) => candidate.is_sold) ?? design.systems[0]!;
    const azimuthOf = new Map(design.site.autoFacetsGeoJson.features.map((facet) => [facet.properties.facet_id, facet.properties.azimuth]));
    const panelFacings = design.site.auto_design_geojson.features.filter((panel) => panel.properties.system_uuid === system.uuid).map((panel) => azimuthOf.get(panel.properties.facet_id)!);
    expect(panelFacings.length).toBeGreaterThan(0);

    if (identifier === 'SD-2026-0025') await openApp(page, app);
    // The whole list first, so the count of one project is the new search's.
    await page.getByRole('searchbox', { name: 'Search projects' }).fill('');
    await expect(page.getByTestId('project-count')).toHaveText('48 projects');
    await openProjectByIdentifier(page, identifier);
    await page.getByRole('tab', { name: 'Design' }).click();
    const scene = page.getByTestId('roof-scene');
    await expect(scene).toHaveAttribute('data-camera-from', /^\d+$/);
    const cameraFrom = Number(await scene.getAttribute('data-camera-from'));
    // Most panels sit on faces turned towards the camera (a face is seen from the side it faces).
    const facingCamera = panelFacings.filter((azimuth) => angleBetween(azimuth, cameraFrom) < 90).length;
    expect(facingCamera / panelFacings.length, `${identifier}: camera from ${cameraFrom}°, panels face ${panelFacings.join(', ')}`).toBeGreaterThanOrEqual(0.5);
    // And the face with the most panels is well in view: within 60° of straight on.
    const counts = new Map<number, number>();
    for (const azimuth of panelFacings) counts.set(azimuth, (counts.get(azimuth) ?? 0) + 1);
    const fullest = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    expect(angleBetween(fullest, cameraFrom), `${identifier}: camera from ${cameraFrom}°, fullest face ${fullest}°`).toBeLessThan(60);

    // Each number once: payback and rate of return are not repeated among the headline figures.
    const terms = await page.getByTestId('design-tab').locator('dt').allTextContents();
    expect(terms.filter((term) => /payback/i.test(term))).toHaveLength(1);
    expect(terms.filter((term) => /rate of return|return on investment/i.test(term))).toHaveLength(1);
    expect(terms.filter((term) => /net present value/i.test(term))).toHaveLength(1);
  }

  // The legend reads the last year before anything is hovered, with money in it, never "--" or "—".
  const legend = page.getByTestId('cashflow-legend');
  await expect(legend).toContainText('Year 25');
  await expect(legend).toContainText(/That year: -?[A-Z]*\$[\d,]+/);
  await expect(legend).toContainText(/Running total: -?[A-Z]*\$[\d,]+/);
  await expect(legend).not.toContainText('—');
  await expect(legend).not.toContainText('--');
  // Pointing at the chart's left edge reads an early year; leaving it goes back to the last.
  const chart = page.getByTestId('cashflow-chart').locator('.u-over');
  await chart.scrollIntoViewIfNeeded();
  const box = (await chart.boundingBox())!;
  await page.mouse.move(box.x + 3, box.y + box.height / 2);
  await expect(legend).toContainText(/Year [0-2]\b/);
  await page.mouse.move(box.x + box.width / 2, box.y - 60);
  await expect(legend).toContainText('Year 25');
  expect(pageProblems(page)).toEqual([]);
});

/** The 3D view's own pixels (its drawing buffer is kept), without what lies over it: the Reset view button and its hover. */
const scenePixels = (page: Page) => page.getByTestId('roof-canvas').evaluate((canvas: HTMLCanvasElement) => canvas.toDataURL('image/png'));

/** Drags across the 3D view by `dx` pixels (an orbit). */
async function dragScene(page: Page, dx: number): Promise<void> {
  const box = (await page.getByTestId('roof-canvas').boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + dx, box.y + box.height / 2, { steps: 10 });
  await page.mouse.up();
}

test('Reset view brings the 3D view back to the first one; the orbit stops before the panels turn away (issue 28, item 18)', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await openApp(page, app);
  await openProjectByIdentifier(page, 'SD-2026-0025');
  await page.getByRole('tab', { name: 'Design' }).click();
  const scene = page.getByTestId('roof-scene');
  await expect(scene).toHaveAttribute('data-camera', /^[-\d.,]+$/);
  await expect.poll(() => distinctCanvasColours(page)).toBeGreaterThan(20);
  const firstCamera = await scene.getAttribute('data-camera');
  const firstFrom = Number(await scene.getAttribute('data-camera-from'));
  const firstPixels = await scenePixels(page);

  // A drag moves the camera and the picture.
  await dragScene(page, 150);
  await expect(scene).not.toHaveAttribute('data-camera', firstCamera!);
  expect(await scenePixels(page)).not.toBe(firstPixels);

  // Dragging on and on never turns the house more than the limit (about 70°) from the first view, either way.
  for (const dx of [900, 900, -2400, -900]) {
    await dragScene(page, dx);
    const from = Number(await scene.getAttribute('data-camera-from'));
    expect(angleBetween(from, firstFrom), `camera from ${from}°, first from ${firstFrom}°`).toBeLessThanOrEqual(71);
  }

  // Reset view: the same camera and the same picture as at first.
  await page.getByRole('button', { name: 'Reset view' }).click();
  await expect(scene).toHaveAttribute('data-camera', firstCamera!);
  await expect.poll(() => scenePixels(page)).toBe(firstPixels);
  expect(pageProblems(page)).toEqual([]);
});

test('the cash-flow chart: its height follows a wide pane, and year 0 is a bar of the upfront cost where the running total starts', async ({ page }) => {
  await openApp(page, app);
  await openProjectByIdentifier(page, 'SD-2026-0025');
  await page.getByRole('tab', { name: 'Design' }).click();
  const chart = page.getByTestId('cashflow-chart');
  await page.setViewportSize({ width: 800, height: 600 });
  await expect(chart.locator('canvas')).toBeVisible();
  const narrow = (await chart.locator('canvas').boundingBox())!;
  await page.setViewportSize({ width: 1920, height: 1080 });
  await expect.poll(async () => (await chart.locator('canvas').boundingBox())!.height).toBeGreaterThan(narrow.height + 40);
  // Year 0 reads as the upfront cost, and the running total starts at it.
  await chart.scrollIntoViewIfNeeded();
  const over = (await chart.locator('.u-over').boundingBox())!;
  await page.mouse.move(over.x + 2, over.y + over.height / 2);
  const legend = page.getByTestId('cashflow-legend');
  await expect(legend).toContainText('Year 0');
  const upfront = /Upfront: (-?[A-Z]*\$[\d,]+)/.exec((await legend.textContent()) ?? '');
  expect(upfront, (await legend.textContent()) ?? '').not.toBeNull();
  await expect(legend).toContainText(`Running total: ${upfront![1]}`);
  // The upfront bar is drawn: the danger colour is in the chart's left part (pixels of the canvas).
  const hasUpfrontBar = await chart.locator('canvas').evaluate((canvas: HTMLCanvasElement) => {
    const danger = getComputedStyle(document.documentElement).getPropertyValue('--danger').trim();
    const probe = document.createElement('canvas').getContext('2d')!;
    probe.fillStyle = danger;
    probe.fillRect(0, 0, 1, 1);
    const [r, g, b] = probe.getImageData(0, 0, 1, 1).data;
    const context = canvas.getContext('2d')!;
    const { data } = context.getImageData(0, 0, Math.round(canvas.width * 0.3), canvas.height);
    for (let index = 0; index < data.length; index += 4) {
      if (Math.abs(data[index]! - r!) < 12 && Math.abs(data[index + 1]! - g!) < 12 && Math.abs(data[index + 2]! - b!) < 12) return true;
    }
    return false;
  });
  expect(hasUpfrontBar).toBe(true);
  expect(pageProblems(page)).toEqual([]);
});

test('the design tab at 800x600 and 1920x1080, light and dark', async ({ page }) => {
  await openApp(page, app);
  await openProjectByIdentifier(page, 'SD-2026-0025');
  await page.getByRole('tab', { name: 'Design' }).click();
  await expect(page.getByTestId('roof-scene')).toHaveAttribute('data-camera-from', /^\d+$/);
  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    await expect.poll(() => distinctCanvasColours(page)).toBeGreaterThan(20);
    await screenshotBothThemes(page, `design-${width}x${height}`);
    await page.getByTestId('cashflow-legend').scrollIntoViewIfNeeded();
    await screenshotBothThemes(page, `design-cashflow-${width}x${height}`);
    await page.getByTestId('design-tab').evaluate((element) => element.scrollIntoView());
  }
  expect(pageProblems(page)).toEqual([]);
});

test('an org on the API Access plan is told why there is no design', async ({ page }) => {
  await openApp(page, app);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('combobox', { name: 'Organisation' }).selectOption({ label: 'Basic Solar' });
  await expect(page.getByRole('navigation', { name: 'SolarDesk' })).toContainText('Basic Solar');
  await page.getByRole('button', { name: 'Projects' }).click();
  await expect(page.getByTestId('project-count')).toHaveText('8 projects');
  await page.getByTestId('project-row').first().click();
  await page.getByRole('tab', { name: 'Design' }).click();
  await expect(page.getByTestId('plan-notice')).toContainText('Design data needs the Raw Data API Access plan');
  await expect(page.getByTestId('plan-notice')).toContainText('API Access');
  await screenshotBothThemes(page, 'design-plan-notice');
  // Back to Sunrise Solar for the other tests of this file.
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('combobox', { name: 'Organisation' }).selectOption({ label: 'Sunrise Solar' });
  await expect(page.getByRole('navigation', { name: 'SolarDesk' })).toContainText('Sunrise Solar');
  expect(pageProblems(page)).toEqual([]);
});

/** The app's store file (the embedded store's SQLite database, somewhere under its data folder). */
function storeFile(dataDir: string): string {
  const found = (fs.readdirSync(dataDir, { recursive: true }) as string[]).filter((name) => path.basename(name) === DATABASE_FILE_NAME);
  expect(found, `one ${DATABASE_FILE_NAME} under ${dataDir}`).toHaveLength(1);
  return path.join(dataDir, found[0]!);
}

// Issue 36: a design of a few hundred KB that inflates past MAX_DESIGN_JSON_BYTES (put
// in the store by another process, as an import or a copied store would) is decoded
// in the design Web Worker, off the page's main thread, and the tab says it is too
// large. How long the page could not answer meanwhile is a speed target, so it lives in
// `npm run bench -- --only app.design-too-large-gap` (bench/design-page.bench.ts), not
// here: a 200 ms bound in this test failed on a loaded machine (issue 33).
test('a design too large to open: decoded off the page in the design worker, and the tab says so', async ({ page }) => {
  const bomb = await oneMemberDesignBomb(300);
  const database = new Database(storeFile(app.dataDir));
  let identifier: string;
  try {
    const row = database
      .prepare("select id, identifier from projects where org_id = 1 and design is not null and identifier not in ('SD-2026-0025', 'SD-2026-0019', 'SD-2025-0031') order by id limit 1")
      .get() as { id: number; identifier: string };
    identifier = row.identifier;
    database.prepare('update projects set design = ?, modified_date = ? where id = ?').run(bomb, new Date().toISOString(), row.id);
  } finally {
    database.close();
  }
  await openApp(page, app);
  await openProjectByIdentifier(page, identifier);
  await page.getByRole('tab', { name: 'Design' }).click();
  const alert = page.getByTestId('project-panel').getByRole('alert');
  await expect(alert).toContainText(DESIGN_TOO_LARGE_MESSAGE);
  // The answer came from the design worker: the page never inflated it itself.
  expect(page.workers().map((worker) => worker.url())).toContainEqual(expect.stringMatching(/design-decode\.worker/));
  // And the page still answers: another tab opens.
  await page.getByRole('tab', { name: 'Files' }).click();
  await expect(page.getByRole('tab', { name: 'Files' })).toHaveAttribute('aria-selected', 'true');
  await page.getByRole('tab', { name: 'Design' }).click();
  await expect(alert).toContainText(DESIGN_TOO_LARGE_MESSAGE);
  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    await screenshotBothThemes(page, `design-too-large-${width}x${height}`);
  }
  expect(pageProblems(page)).toEqual([]);
});
