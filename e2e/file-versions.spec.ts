// File versions (issue 14, docs/files.md "Versions"): a file whose contents were
// replaced shows its earlier version under "Versions"; Restore (after a
// confirmation) brings those bytes back as the same file, and the list follows
// from the change events alone. Screenshots in both themes at 800x600 and 1920x1080.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { apiPaths } from '../shared/api-paths.ts';
import { openApp, openProjectByIdentifier, pageProblems, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';

let app: RunningApp;
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => app.stop());

const encode = (text: string) => new TextEncoder().encode(text);

test('a file with an earlier version: Versions lists it, Download saves it, Restore brings it back', async ({ page }) => {
  // A file on project 7 whose contents were then replaced: one earlier version.
  const created = await app.bridge.invoke('files.upload', { uploadId: 'e2e-versions', projectId: 7, fileName: 'inverter-settings.txt', bytes: encode('first settings') });
  const fileId = (created.body as { id: number }).id;
  await app.bridge.invoke('files.replaceContents', { fileId, fileName: 'inverter-settings.txt', bytes: encode('second settings, changed on site') });

  await openApp(page, app);
  await openProjectByIdentifier(page, 'SD-2026-0007');
  await page.getByRole('tab', { name: 'Files' }).click();
  const row = page.getByTestId('file-row').filter({ hasText: 'inverter-settings.txt' });
  await expect(row).toContainText('32 B');

  await row.getByRole('button', { name: 'Versions' }).click();
  const versions = page.getByTestId('file-versions');
  const versionRow = versions.getByTestId('version-row');
  await expect(versionRow).toHaveCount(1);
  await expect(versionRow).toContainText('14 B');
  await expect(versionRow).toContainText('Alex Morgan');

  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    // Vertically only: a small window scrolls the open project down to the versions.
    await versionRow.evaluate((element) => element.scrollIntoView({ block: 'center', inline: 'nearest' }));
    // Nothing of the open project scrolls sideways or is cut: the file's and the version's buttons are inside the window.
    const panel = page.locator('.detail-pane');
    expect(await panel.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(0);
    for (const button of [row.getByRole('button', { name: 'Versions' }), versionRow.getByRole('button', { name: 'Restore' }), versions.getByText('Upload new contents…')]) {
      const box = (await button.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(width);
    }
    await screenshotBothThemes(page, `file-versions-${width}x${height}`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });

  await versionRow.getByRole('button', { name: 'Download' }).click();
  await expect(page.getByText(/Saved the earlier version of inverter-settings\.txt to/)).toBeVisible();
  // In the workspace's folders ("On this computer" on the embedded store), hidden from the watcher.
  const versionsFolder = path.join(app.projectFoldersRoot, '.earlier-versions');
  const projectFolder = fs.readdirSync(versionsFolder).find((name) => name.endsWith('(7)'))!;
  const [saved] = fs.readdirSync(path.join(versionsFolder, projectFolder));
  expect(fs.readFileSync(path.join(versionsFolder, projectFolder, saved!), 'utf8')).toBe('first settings');

  const questions: string[] = [];
  page.once('dialog', async (dialog) => {
    questions.push(dialog.message());
    await dialog.accept();
  });
  await versionRow.getByRole('button', { name: 'Restore' }).click();
  expect(questions[0]).toMatch(/^Restore inverter-settings\.txt as it was before/);
  // The restore's change event refreshes both lists: the file is 14 bytes again, and the replaced contents are a version now.
  await expect(row).toContainText('14 B');
  await expect(versions.getByTestId('version-row')).toHaveCount(2);
  await expect(versions.getByTestId('version-row').first()).toContainText('32 B');

  const file = await app.api<{ id: number; filesize: number }>('GET', apiPaths.privateFile(1, fileId));
  expect(file.body.filesize).toBe('first settings'.length);
  const files = await app.api<{ title: string }[]>('GET', apiPaths.privateFiles(1), undefined, { project: 7 });
  expect(files.body.filter((other) => other.title === 'inverter-settings.txt')).toHaveLength(1);
  expect(pageProblems(page)).toEqual([]);
});
