// Speed caps and the metered switch in Settings (issue 32, item 1): set, saved, still
// there after a reload; a wrong value is refused with the shared rule's sentence and
// stays in its box to be corrected. At 800x600 and 1920x1080, light and dark, with
// the layout checks every view passes. A real app in browser mode, in real Chromium.
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { MAX_CAP_KBPS, MIN_CAP_KBPS } from '../shared/transfer-caps.ts';
import { openApp, pageProblems, repoRoot, type RunningApp, SCREEN_SIZES, startSolarDesk } from './support/solardesk.ts';
import { layoutProblems } from './support/layout-checks.ts';

const screenshotDir = path.join(repoRoot, 'test-results/screenshots/transfers');

let app: RunningApp;
test.beforeAll(async () => {
  fs.rmSync(screenshotDir, { recursive: true, force: true });
  fs.mkdirSync(screenshotDir, { recursive: true });
  app = await startSolarDesk();
});
test.afterAll(async () => {
  await app?.stop();
});

async function openTransfers(page: Page) {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const section = page.getByTestId('transfers');
  await expect(section).toBeVisible();
  return section;
}

async function screenshotAtEachSize(page: Page, name: string): Promise<void> {
  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    await page.getByTestId('transfers').scrollIntoViewIfNeeded();
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
      expect(await layoutProblems(page), `${name} at ${size.width}x${size.height}, ${theme}`).toEqual([]);
      await page.screenshot({ path: path.join(screenshotDir, `${name}-${size.width}x${size.height}-${theme}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test('caps, their hours and the metered switch are kept after a reload; a wrong cap is refused with its sentence and stays to be corrected', async ({ page }) => {
  await page.setViewportSize(SCREEN_SIZES[0]);
  await openApp(page, app);
  let section = await openTransfers(page);
  const upload = section.getByLabel('Upload cap (KB/s)', { exact: true });
  const download = section.getByLabel('Download cap (KB/s)', { exact: true });
  const save = section.getByRole('button', { name: 'Save speeds' });
  const metered = section.getByRole('switch', { name: 'Metered connection' });

  // Off by default: empty boxes, all day, not metered; each control says what it does.
  await expect(upload).toHaveValue('');
  await expect(download).toHaveValue('');
  await expect(metered).not.toBeChecked();
  await expect(section).toContainText('Leave empty to send files at full speed.');
  await expect(section).toContainText('Project details still sync; other files wait until you open one or drop one into a folder.');

  // A cap below the smallest is refused with the shared sentence; nothing is sent, the value stays.
  await upload.fill('5');
  const problem = section.getByRole('alert');
  await expect(problem).toHaveText(`The upload cap must be a whole number of KB/s from ${MIN_CAP_KBPS} to ${MAX_CAP_KBPS.toLocaleString('en')}, or off.`);
  await expect(save).toBeDisabled();
  await expect(upload).toHaveValue('5');
  await screenshotAtEachSize(page, 'refused');

  // Corrected, with a download cap and hours.
  await upload.fill('100');
  await download.fill('250');
  await section.getByRole('switch', { name: 'Only between set hours' }).check();
  await section.getByLabel('From', { exact: true }).fill('07:30');
  await section.getByLabel('To', { exact: true }).fill('17:00');
  await expect(problem).toHaveCount(0);
  await save.click();
  await expect(page.getByText('Transfer speeds saved. They apply from now on.')).toBeVisible();
  await expect(save).toBeDisabled();
  await metered.check();
  await expect(page.getByText('Metered: file contents now wait until you open a file or drop one in.')).toBeVisible();
  await screenshotAtEachSize(page, 'saved');

  // The bridge refuses a wrong cap too, in the same words: the page is not the only guard.
  const refused = await app.bridge.invoke('settings.set', { transferCaps: { uploadKBps: 2.5, downloadKBps: null, hours: null, metered: false } }).then(
    () => 'accepted',
    (error: Error) => error.message,
  );
  expect(refused).toContain(`The upload cap must be a whole number of KB/s from ${MIN_CAP_KBPS}`);

  await page.reload();
  await expect(page.getByRole('navigation', { name: 'SolarDesk' })).toBeVisible();
  section = await openTransfers(page);
  await expect(section.getByLabel('Upload cap (KB/s)', { exact: true })).toHaveValue('100');
  await expect(section.getByLabel('Download cap (KB/s)', { exact: true })).toHaveValue('250');
  await expect(section.getByRole('switch', { name: 'Only between set hours' })).toBeChecked();
  await expect(section.getByLabel('From', { exact: true })).toHaveValue('07:30');
  await expect(section.getByLabel('To', { exact: true })).toHaveValue('17:00');
  await expect(section.getByRole('switch', { name: 'Metered connection' })).toBeChecked();
  expect(pageProblems(page)).toEqual([]);
});
