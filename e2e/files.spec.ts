// Files: drag a file from the "desktop" onto the window (a synthetic drop with a
// real DataTransfer), watch it upload, see it in the list and in the local API,
// and download it into the project's folder; and a file written into the project's
// folder on disk appears in the open Files tab without any click (issue 14).
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { dropFileOnWindow, openApp, openProjectByIdentifier, pageProblems, type RunningApp, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';
import { STATE_HANG_GUARD_MS } from '../main/testing/hang-guards.ts';

let app: RunningApp;
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => app.stop());

test('a file dropped on the window is attached to the open project', async ({ page }) => {
  await openApp(page, app);
  await openProjectByIdentifier(page, 'SD-2026-0007');
  await expect(page.getByTestId('project-panel')).toBeVisible();

  // 1.5 MB: two parts of the chunked upload, so progress has steps.
  const content = 'roof photo '.repeat(150_000);
  await dropFileOnWindow(page, 'roof-photo.txt', content);

  // The drop switches to the Files tab, and the file arrives in the list.
  await expect(page.getByRole('tab', { name: 'Files' })).toHaveAttribute('aria-selected', 'true');
  const row = page.getByTestId('file-row').filter({ hasText: 'roof-photo.txt' });
  await expect(row).toBeVisible();
  await expect(row).toContainText('1.6 MB');
  // Local only, every file is on this computer alone: no "Local" badge on each row says so (issue 28, item 10).
  await expect(row.getByTestId('file-badges')).not.toContainText('Local');

  const files = await app.api<{ title: string; filesize: number; project: string }[]>('GET', '/api/orgs/1/private_files/', undefined, { project: 7 });
  expect(files.status).toBe(200);
  const uploaded = files.body.find((file) => file.title === 'roof-photo.txt');
  expect(uploaded?.filesize).toBe(content.length);
  await screenshotBothThemes(page, 'project-files');

  await row.getByRole('button', { name: 'Download' }).click();
  await expect(page.getByText(/Saved roof-photo\.txt to/)).toBeVisible();
  // The embedded store keeps its project folders in "On this computer" under the folder root.
  const projectFolder = fs.readdirSync(app.projectFoldersRoot).find((name) => name.endsWith('(7)'));
  expect(projectFolder).toBeDefined();
  expect(fs.readFileSync(path.join(app.projectFoldersRoot, projectFolder!, 'roof-photo.txt'), 'utf8')).toBe(content);
  expect(pageProblems(page)).toEqual([]);
});

test('a file written into the project folder appears in the open Files tab without any click', async ({ page }) => {
  await openApp(page, app);
  await openProjectByIdentifier(page, 'SD-2026-0008');
  await page.getByRole('tab', { name: 'Files' }).click();
  await expect(page.getByTestId('project-panel')).toBeVisible();
  const rows = page.getByTestId('file-row');
  const rowsBefore = await rows.count();

  // The watcher made the project's folder; a file appears in it the way a user copies one in.
  await expect.poll(() => fs.readdirSync(app.projectFoldersRoot).some((name) => name.endsWith('(8)')), { timeout: STATE_HANG_GUARD_MS }).toBe(true);
  const projectFolder = path.join(app.projectFoldersRoot, fs.readdirSync(app.projectFoldersRoot).find((name) => name.endsWith('(8)'))!);
  const temp = path.join(app.dataDir, 'site-visit.txt');
  fs.writeFileSync(temp, 'north face, two strings, shading after 3 pm');
  fs.renameSync(temp, path.join(projectFolder, 'site-visit.txt'));

  // No click, no tab switch: the engine's change event reaches the open tab.
  const row = rows.filter({ hasText: 'site-visit.txt' });
  await expect(row).toBeVisible({ timeout: STATE_HANG_GUARD_MS });
  await expect(rows).toHaveCount(rowsBefore + 1);
  expect(pageProblems(page)).toEqual([]);
});
