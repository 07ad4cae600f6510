// Field photos find their project (issue 17), in Chromium against a real `solardesk
// web` on the embedded store, with real JPEGs (sharp draws them, piexifjs writes the
// GPS position and time). The Files tab flags a photo taken far from the project's
// site and moves it, in one click, to the project it was taken at (and back with
// Undo). The Unsorted inbox attaches a photo taken at one site by itself and says so;
// a photo between two sites waits on the Sync screen with both to choose from.
// Screenshots at 800x600 and 1920x1080, light and dark.
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { apiPaths } from '../shared/api-paths.ts';
import { formatDistance, haversineMeters } from '../shared/geo.ts';
import { INBOX_FOLDER } from '../shared/photos.ts';
import { makeJpeg, northOf } from '../main/core/testing/photo-files.ts';
import { openApp, openProjectByIdentifier, pageProblems, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';
import { STATE_HANG_GUARD_MS } from '../main/testing/hang-guards.ts';

interface Site {
  id: number;
  title: string;
  identifier: string;
  lat: number;
  lon: number;
}

let app: RunningApp;
let sites: Site[];
test.beforeAll(async () => {
  app = await startSolarDesk();
  const listed = await app.api<Site[]>('GET', apiPaths.projects(1), undefined, { limit: 1000, fieldset: 'studio' });
  sites = listed.body.filter((site) => typeof site.lat === 'number' && typeof site.lon === 'number');
});
test.afterAll(async () => {
  await app.stop();
});

/** A demo site with no other site within `meters`. */
const aloneSite = (meters: number, except: Site[] = []) =>
  sites.find((site) => !except.some((other) => other.id === site.id || haversineMeters(other, site) < 1500) && sites.every((other) => other.id === site.id || haversineMeters(other, site) > meters))!;

async function atSizes(page: Page, name: string, section: ReturnType<Page['getByTestId']>): Promise<void> {
  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    await section.evaluate((element) => element.scrollIntoView({ block: 'start', inline: 'nearest' }));
    // Nothing spills sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await screenshotBothThemes(page, `${name}-${width}x${height}`);
  }
}

test('a photo taken far from its project site is flagged, and moved in one click to the project it was taken at (undoable)', async ({ page }) => {
  const home = aloneSite(400);
  const other = aloneSite(400, [home]);
  const bytes = await makeJpeg({ ...northOf(other, 25), takenAt: '2026-04-07T11:30:00', seed: 101 });
  const uploaded = (await app.bridge.invoke('files.upload', { uploadId: 'far1', projectId: home.id, fileName: 'roof-north.jpg', bytes: new Uint8Array(bytes) })) as { body: { id: number } };
  const fileId = uploaded.body.id;

  await openApp(page, app);
  await openProjectByIdentifier(page, home.identifier);
  await page.getByRole('tab', { name: 'Files' }).click();
  const row = page.getByTestId('file-row').filter({ hasText: 'roof-north.jpg' });
  const far = row.getByTestId('photo-far');
  await expect(far).toContainText(`Taken ${formatDistance(haversineMeters(home, northOf(other, 25)))} from this site`);
  const move = far.getByRole('button', { name: `Move to ${other.title}` });
  await expect(move).toBeVisible();
  await atSizes(page, 'field-photo-far', row);

  await move.click();
  await expect(page.getByTestId('photo-move-notice')).toContainText(`Moved roof-north.jpg to ${other.title}.`);
  await expect(row).toHaveCount(0);
  expect((await app.api<{ project: string }>('GET', apiPaths.privateFile(1, fileId))).body.project).toContain(`/projects/${other.id}/`);

  await page.getByTestId('photo-move-notice').getByRole('button', { name: 'Undo' }).click();
  await expect(page.getByTestId('photo-move-notice')).toHaveCount(0);
  await expect(row).toHaveCount(1);
  expect((await app.api<{ project: string }>('GET', apiPaths.privateFile(1, fileId))).body.project).toContain(`/projects/${home.id}/`);
  expect(pageProblems(page)).toEqual([]);
});

test('the Unsorted inbox: a photo taken at one site is attached by itself and said; one between two sites waits, and choosing attaches it', async ({ page }) => {
  const home = aloneSite(400);
  // Two new sites 100 m apart, far from the demo's: a photo between them is within 150 m of both.
  const spot = { lat: home.lat + 2, lon: home.lon + 2 };
  const twins: Site[] = [];
  for (const [title, position] of [
    ['Twin house east', spot],
    ['Twin house west', northOf(spot, 100)],
  ] as const) {
    const made = await app.api<Site>('POST', apiPaths.projects(1), { title, address: `1 ${title}`, lat: position.lat, lon: position.lon });
    expect(made.status).toBe(201);
    twins.push({ ...made.body, ...position });
  }
  const inbox = path.join(app.projectFoldersRoot, INBOX_FOLDER);
  await expect.poll(() => fs.existsSync(inbox), { timeout: STATE_HANG_GUARD_MS }).toBe(true);
  const drop = async (name: string, bytes: Uint8Array) => {
    const temp = path.join(app.dataDir, name);
    fs.writeFileSync(temp, bytes);
    fs.renameSync(temp, path.join(inbox, name));
  };
  await drop('DSC_1001.jpg', await makeJpeg({ ...northOf(home, 30), takenAt: '2026-04-08T09:00:00', seed: 201 }));
  await drop('DSC_1002.jpg', await makeJpeg({ ...northOf(spot, 50), takenAt: '2026-04-08T09:05:00', seed: 202 }));

  await openApp(page, app);
  await page.getByRole('navigation', { name: 'SolarDesk' }).getByRole('button', { name: /^Sync/ }).click();
  const panel = page.getByTestId('unsorted-photos');
  await expect(panel.getByTestId('inbox-batch')).toContainText(`Attached 1 photo from Unsorted: 1 to ${home.title}.`, { timeout: STATE_HANG_GUARD_MS });
  const waiting = panel.getByTestId('inbox-item').filter({ hasText: 'DSC_1002.jpg' });
  await expect(waiting).toContainText('within 150 m of 2 sites');
  await expect(waiting.getByRole('button', { name: /Twin house east · 50 m/ })).toBeVisible();
  await expect(waiting.getByRole('button', { name: /Twin house west · 50 m/ })).toBeVisible();
  await atSizes(page, 'field-photo-inbox', panel);

  await waiting.getByRole('button', { name: /Twin house west/ }).click();
  await expect(waiting).toHaveCount(0);
  const entry = panel.getByTestId('inbox-entry').filter({ hasText: 'DSC_1002.jpg' });
  await expect(entry).toContainText('Twin house west');
  const files = await app.api<{ title: string }[]>('GET', apiPaths.privateFiles(1), undefined, { project: twins[1]!.id });
  expect(files.body.map((file) => file.title)).toContain('DSC_1002.jpg');
  expect(fs.existsSync(path.join(inbox, 'DSC_1002.jpg'))).toBe(false);

  // Undo: back in the inbox, waiting again, and the project no longer has it.
  await entry.getByRole('button', { name: 'Undo' }).click();
  await expect(panel.getByTestId('inbox-item').filter({ hasText: 'DSC_1002.jpg' })).toBeVisible();
  expect(fs.existsSync(path.join(inbox, 'DSC_1002.jpg'))).toBe(true);
  const after = await app.api<{ title: string }[]>('GET', apiPaths.privateFiles(1), undefined, { project: twins[1]!.id });
  expect(after.body.map((file) => file.title)).not.toContain('DSC_1002.jpg');
  expect(pageProblems(page)).toEqual([]);
});
