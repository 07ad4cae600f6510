// Changing the folder root in Settings (issue 28, item 1) on the embedded store:
// the app asks whether the project folders move too, moving takes them there with
// their files, and no delete is held (the Sync screen has nothing waiting). Real
// app, real watcher, real filesystem. Screenshots of the question at 800x600 and
// 1920x1080 in both themes.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { apiPaths, syncPaths } from '../shared/api-paths.ts';
import type { FolderStatusJson } from '../shared/schemas/folder.ts';
import { makeTempDir, openApp, pageProblems, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';
import { STATE_HANG_GUARD_MS } from '../main/testing/hang-guards.ts';

let app: RunningApp;
const newRootParent = makeTempDir('solardesk-e2e-new-root-');
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => {
  await app?.stop();
  fs.rmSync(newRootParent, { recursive: true, force: true });
});

/** The watcher on `root` has looked at everything and has nothing left to do. */
async function expectSettledOn(root: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const status = (await app.api<FolderStatusJson>('GET', syncPaths.folder(1))).body;
        return status.enabled && status.root === root && status.state === 'watching' && status.quiet && status.last_rescan_at !== null;
      },
      { timeout: STATE_HANG_GUARD_MS },
    )
    .toBe(true);
}

test('a new folder root moves the project folders there with their files, and no delete is held', async ({ page }) => {
  await expectSettledOn(app.projectFoldersRoot);
  const folderName = fs.readdirSync(app.projectFoldersRoot).find((name) => name.endsWith('(8)'))!;
  fs.writeFileSync(path.join(app.projectFoldersRoot, folderName, 'string-layout.txt'), 'two strings of nine, east and west');
  await expect
    .poll(async () => (await app.api<{ title: string }[]>('GET', apiPaths.privateFiles(1), undefined, { project: 8 })).body.map((file) => file.title), { timeout: STATE_HANG_GUARD_MS })
    .toContain('string-layout.txt');
  await expectSettledOn(app.projectFoldersRoot);
  const filesBefore = (await app.api<{ id: number }[]>('GET', apiPaths.privateFiles(1), undefined, { limit: 1000 })).body.length;

  await openApp(page, app);
  await page.getByRole('navigation', { name: 'SolarDesk' }).getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByTestId('folder-number-note')).toContainText('keeps two projects with the same title apart');
  const newRoot = path.join(newRootParent, 'Projects');
  await page.getByLabel('Folder root').fill(newRoot);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const dialog = page.getByTestId('move-folders-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(newRoot);

  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    for (const name of ['Cancel', 'Leave them, start new folders', 'Move the folders']) {
      const box = (await dialog.getByRole('button', { name }).boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      expect(box.y + box.height).toBeLessThanOrEqual(height);
    }
    await screenshotBothThemes(page, `folder-root-move-${width}x${height}`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });

  await dialog.getByRole('button', { name: 'Move the folders' }).click();
  await expect(page.getByText(`Moved the project folders and their files to ${newRoot}.`)).toBeVisible({ timeout: STATE_HANG_GUARD_MS });
  await expect(dialog).toHaveCount(0);
  const movedWorkspace = path.join(newRoot, 'On this computer');
  await expect(page.getByTestId('project-folders-root')).toContainText(movedWorkspace);
  expect(fs.readFileSync(path.join(movedWorkspace, folderName, 'string-layout.txt'), 'utf8')).toBe('two strings of nine, east and west');
  expect(fs.existsSync(app.projectFoldersRoot)).toBe(false);

  // Not one delete held, nothing attached again.
  await expectSettledOn(movedWorkspace);
  expect((await app.api<unknown[]>('GET', syncPaths.pending(1))).body).toEqual([]);
  const syncNav = page.getByRole('navigation', { name: 'SolarDesk' }).getByRole('button', { name: /^Sync/ });
  await expect(syncNav.locator('.nav-count')).toHaveCount(0);
  expect((await app.api<{ id: number }[]>('GET', apiPaths.privateFiles(1), undefined, { limit: 1000 })).body.length).toBe(filesBefore);
  expect(pageProblems(page)).toEqual([]);
});
