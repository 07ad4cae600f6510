// Held deletes on the embedded store (issue 14, docs/project-folders.md): a file
// deleted from a project's folder on disk is not deleted by itself; the Sync screen
// and the sidebar's count show it without a click. Restore puts the file back in the
// folder; "Delete it" deletes the private file, so the Files tab no longer lists it.
// The deletions wait across a restart of SolarDesk on the same data folder.
// Screenshots of the Sync screen with held deletes in both themes at 800x600 and 1920x1080.
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { apiPaths, syncPaths } from '../shared/api-paths.ts';
import { makeTempDir, openApp, openProjectByIdentifier, pageProblems, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';
import { STATE_HANG_GUARD_MS } from '../main/testing/hang-guards.ts';

// A data folder of our own, so the app can be stopped and started again on it.
const dataDir = makeTempDir('solardesk-e2e-held-');
let app: RunningApp;
test.beforeAll(async () => {
  app = await startSolarDesk({ dataDir });
});
test.afterAll(async () => {
  await app.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The project's folder under "On this computer", once the watcher has made it. */
async function projectFolderOf(projectId: number): Promise<string> {
  const suffix = `(${projectId})`;
  await expect.poll(() => fs.readdirSync(app.projectFoldersRoot).some((name) => name.endsWith(suffix)), { timeout: STATE_HANG_GUARD_MS }).toBe(true);
  return path.join(app.projectFoldersRoot, fs.readdirSync(app.projectFoldersRoot).find((name) => name.endsWith(suffix))!);
}

/** Copies a file into the folder the way a user does (written beside it, then moved in), and waits for the open Files tab to list it. */
async function copyIntoFolder(page: Page, folder: string, name: string, text: string): Promise<void> {
  const temp = path.join(app.dataDir, name);
  fs.writeFileSync(temp, text);
  fs.renameSync(temp, path.join(folder, name));
  await expect(page.getByTestId('file-row').filter({ hasText: name })).toBeVisible({ timeout: STATE_HANG_GUARD_MS });
}

test('a file deleted from its project folder waits on the Sync screen; Restore puts it back, Delete it deletes it', async ({ page }) => {
  await openApp(page, app);
  await openProjectByIdentifier(page, 'SD-2026-0008');
  await page.getByRole('tab', { name: 'Files' }).click();
  const folder = await projectFolderOf(8);
  await copyIntoFolder(page, folder, 'string-layout.txt', 'two strings of nine, east and west');
  await copyIntoFolder(page, folder, 'old-quote.txt', 'quote from March, superseded');

  // Deleted on disk: nothing else is clicked, and the app shows both deletions waiting.
  fs.rmSync(path.join(folder, 'string-layout.txt'));
  fs.rmSync(path.join(folder, 'old-quote.txt'));
  const syncNav = page.getByRole('navigation', { name: 'SolarDesk' }).getByRole('button', { name: /^Sync/ });
  await expect(syncNav.locator('.nav-count')).toHaveText('2', { timeout: STATE_HANG_GUARD_MS });
  await expect(page.getByTestId('sync-pill')).toBeVisible();

  // Held across a restart: SolarDesk stops and starts again on the same data folder, and both still wait.
  await app.stop();
  app = await startSolarDesk({ dataDir });
  await openApp(page, app);
  await expect(syncNav.locator('.nav-count')).toHaveText('2', { timeout: STATE_HANG_GUARD_MS });
  expect(fs.existsSync(path.join(folder, 'string-layout.txt'))).toBe(false);

  await syncNav.click();
  const held = page.getByTestId('held-deletes');
  const heldRows = held.getByTestId('held-delete');
  await expect(heldRows).toHaveCount(2);
  // Each is named by the file's title, not by a record id.
  const layoutRow = heldRows.filter({ hasText: 'string-layout.txt' });
  const quoteRow = heldRows.filter({ hasText: 'old-quote.txt' });
  await expect(layoutRow.locator('strong')).toHaveText('string-layout.txt');
  await expect(quoteRow.locator('strong')).toHaveText('old-quote.txt');
  await expect(held).not.toContainText(/Private file \d/);

  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    await held.evaluate((element) => element.scrollIntoView({ block: 'start', inline: 'nearest' }));
    // Both buttons of each row are inside the window, next to their file, not clipped.
    for (const row of [layoutRow, quoteRow]) {
      for (const name of ['Restore', 'Delete it']) {
        const box = (await row.getByRole('button', { name }).boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(width);
        expect(box.x).toBeGreaterThanOrEqual(0);
      }
    }
    await screenshotBothThemes(page, `held-deletes-${width}x${height}`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });

  // Restore: the file is written back into its folder, and its row leaves the list.
  await layoutRow.getByRole('button', { name: 'Restore' }).click();
  await expect(heldRows).toHaveCount(1);
  await expect(layoutRow).toHaveCount(0);
  await expect.poll(() => fs.existsSync(path.join(folder, 'string-layout.txt')), { timeout: STATE_HANG_GUARD_MS }).toBe(true);
  expect(fs.readFileSync(path.join(folder, 'string-layout.txt'), 'utf8')).toBe('two strings of nine, east and west');

  // Delete it: the private file is gone from the store and the list empties.
  await quoteRow.getByRole('button', { name: 'Delete it' }).click();
  await expect(held).toHaveCount(0);
  await expect(syncNav.locator('.nav-count')).toHaveCount(0);
  const pending = await app.api<unknown[]>('GET', syncPaths.pending(1));
  expect(pending.status).toBe(200);
  expect(pending.body).toEqual([]);
  expect(fs.existsSync(path.join(folder, 'old-quote.txt'))).toBe(false);

  await page.getByRole('button', { name: 'Projects' }).click();
  await openProjectByIdentifier(page, 'SD-2026-0008');
  await page.getByRole('tab', { name: 'Files' }).click();
  await expect(page.getByTestId('file-row').filter({ hasText: 'string-layout.txt' })).toBeVisible();
  await expect(page.getByTestId('file-row').filter({ hasText: 'old-quote.txt' })).toHaveCount(0);
  const files = await app.api<{ title: string }[]>('GET', apiPaths.privateFiles(1), undefined, { project: 8 });
  expect(files.body.map((file) => file.title)).toContain('string-layout.txt');
  expect(files.body.map((file) => file.title)).not.toContain('old-quote.txt');
  expect(pageProblems(page)).toEqual([]);
});

test('held deletes are grouped by folder under one explanation; Restore all puts every file back and says so', async ({ page }) => {
  await openApp(page, app);
  const folders = [await projectFolderOf(8), await projectFolderOf(7)];
  const written = [
    [folders[0]!, 'roof-north.txt', 'north face, 12 panels'],
    [folders[0]!, 'roof-west.txt', 'west face, 6 panels'],
    [folders[1]!, 'meter-photo.txt', 'meter box, bidirectional'],
  ] as const;
  for (const [folder, name, text] of written) {
    const temp = path.join(app.dataDir, name);
    fs.writeFileSync(temp, text);
    fs.renameSync(temp, path.join(folder, name));
  }
  const titles = async () => (await app.api<{ title: string }[]>('GET', apiPaths.privateFiles(1), undefined, { limit: 1000 })).body.map((file) => file.title);
  await expect.poll(titles, { timeout: STATE_HANG_GUARD_MS }).toEqual(expect.arrayContaining(written.map(([, name]) => name)));
  for (const [folder, name] of written) fs.rmSync(path.join(folder, name));

  const syncNav = page.getByRole('navigation', { name: 'SolarDesk' }).getByRole('button', { name: /^Sync/ });
  await expect(syncNav.locator('.nav-count')).toHaveText('3', { timeout: STATE_HANG_GUARD_MS });
  await syncNav.click();
  const held = page.getByTestId('held-deletes');
  await expect(held.getByTestId('held-delete')).toHaveCount(3);
  // Two folders, each once; the explanation once, in this mode's words (nothing here is synced).
  await expect(held.getByTestId('held-delete-group')).toHaveCount(2);
  await expect(held.getByTestId('held-delete-group').filter({ hasText: 'roof-north.txt' })).toContainText('2 files');
  await expect(held.getByText('Nothing is deleted until you choose.')).toHaveCount(1);
  await expect(held).not.toContainText('everywhere it is synced');
  await expect(held).not.toContainText('Deleted in the project folder');

  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    await screenshotBothThemes(page, `held-deletes-grouped-${width}x${height}`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });

  // Delete all asks first; Escape leaves everything as it was.
  await held.getByRole('button', { name: 'Delete all (3)' }).click();
  await expect(page.getByTestId('delete-all-held-dialog')).toContainText('Delete 3 files for good?');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('delete-all-held-dialog')).toHaveCount(0);
  await expect(held.getByTestId('held-delete')).toHaveCount(3);

  await held.getByRole('button', { name: 'Restore all (3)' }).click();
  await expect(page.getByText('Restored 3 files to their folders.')).toBeVisible();
  await expect(held).toHaveCount(0);
  await expect(syncNav.locator('.nav-count')).toHaveCount(0);
  for (const [folder, name, text] of written) {
    await expect.poll(() => fs.existsSync(path.join(folder, name)), { timeout: STATE_HANG_GUARD_MS }).toBe(true);
    expect(fs.readFileSync(path.join(folder, name), 'utf8')).toBe(text);
  }
  expect((await app.api<unknown[]>('GET', syncPaths.pending(1))).body).toEqual([]);
  expect(pageProblems(page)).toEqual([]);
});
