// Teams in the desktop (issue 16, hosted-docs-facts.md sections 4 and 11): an admin
// of Sunrise Solar asks Basic Solar to connect by its exact name, Basic Solar's admin
// accepts in Settings > Connections, Sunrise shares a project, and Basic Solar sees
// it marked "Shared by Sunrise Solar" and read-only. Both orgs are on one real
// engine (the demo data of `solardesk web`), whose admin the app switches between
// in Settings > Organisation; nothing is faked.
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Locator, type Page, test } from '@playwright/test';
import { openApp, openProjectByIdentifier, pageProblems, repoRoot, type RunningApp, SCREEN_SIZES, startSolarDesk } from './support/solardesk.ts';
import { STATE_HANG_GUARD_MS } from '../main/testing/hang-guards.ts';

const screenshotDir = path.join(repoRoot, 'test-results/screenshots/connections');
/** A project of Sunrise Solar's demo data, shared with Basic Solar. */
const SHARED_PROJECT = 'SD-2026-0007';

let app: RunningApp;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => {
  await app?.stop();
});

async function openSettings(page: Page) {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByTestId('settings-view')).toBeVisible();
}

/** Settings > Organisation: the app restarts on the other org's admin. */
async function switchOrg(page: Page, name: string) {
  await openSettings(page);
  await page.getByLabel('Organisation', { exact: true }).selectOption({ label: name });
  await expect(page.getByText(`Working on ${name} as`)).toBeVisible({ timeout: STATE_HANG_GUARD_MS });
}

/** Screenshots at 800x600 and 1920x1080, light and dark; fails when the page scrolls sideways. */
async function shoot(page: Page, name: string, subject?: Locator) {
  fs.mkdirSync(screenshotDir, { recursive: true });
  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    await subject?.scrollIntoViewIfNeeded();
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      await page.screenshot({ path: path.join(screenshotDir, `${name}-${size.width}x${size.height}-${theme}.png`) });
    }
    const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(sideways, `${name} at ${size.width}x${size.height} scrolls sideways`).toBeLessThanOrEqual(1);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1400, height: 900 });
}

test('an admin asks a partner by its exact name, the partner accepts, and each side sees the state of the connection', async ({ page }) => {
  await openApp(page, app);
  await openSettings(page);
  const connections = page.getByTestId('connections-section');
  await expect(connections.getByText('No connections yet')).toBeVisible();

  // A name that is not exactly an organisation's: the server's message shows beside the field, the text stays.
  const name = connections.getByLabel('Ask to connect');
  await name.fill('Basic Solr');
  await connections.getByRole('button', { name: 'Ask to connect' }).click();
  await expect(connections.locator('#connect-org-name-error')).not.toHaveText('');
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(name).toHaveValue('Basic Solr');

  await name.fill('Basic Solar');
  await expect(connections.locator('#connect-org-name-error')).toHaveText('');
  await connections.getByRole('button', { name: 'Ask to connect' }).click();
  const row = connections.getByTestId('connection-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Basic Solar');
  await expect(row.getByTestId('connection-state')).toHaveText('Waiting for the partner');
  await expect(name).toHaveValue('');
  await shoot(page, 'settings-waiting', row);

  // Basic Solar's admin sees the request and accepts it.
  await switchOrg(page, 'Basic Solar');
  const request = connections.getByTestId('connection-request');
  await expect(request).toContainText('Sunrise Solar asks to connect');
  await shoot(page, 'settings-request', request);
  await request.getByRole('button', { name: 'Accept' }).click();
  await expect(connections.getByTestId('connection-request')).toHaveCount(0);
  await expect(row.getByTestId('connection-state')).toHaveText('Active');

  // Disabled on Basic Solar's side: Sunrise sees it disabled by the partner.
  await row.getByLabel('Enable the connection with Sunrise Solar').click();
  await expect(row.getByTestId('connection-state')).toHaveText('Disabled by you');
  await switchOrg(page, 'Sunrise Solar');
  await expect(row.getByTestId('connection-state')).toHaveText('Disabled by Basic Solar');
  await switchOrg(page, 'Basic Solar');
  await row.getByLabel('Enable the connection with Sunrise Solar').click();
  await expect(row.getByTestId('connection-state')).toHaveText('Active');
  expect(pageProblems(page)).toEqual([]);
});

test('an admin shares a project with a connected partner, and the list and the project say so', async ({ page }) => {
  await openApp(page, app);
  await switchOrg(page, 'Sunrise Solar');
  await page.getByRole('button', { name: 'Projects', exact: true }).click();
  await openProjectByIdentifier(page, SHARED_PROJECT);
  const panel = page.getByTestId('project-panel');
  await expect(panel.getByTestId('sharing-marker')).toHaveCount(0);
  await panel.getByRole('button', { name: 'Share…' }).click();
  const share = page.getByTestId('share-panel');
  await expect(share.getByText('Not shared with any partner.')).toBeVisible();
  await share.getByLabel('Partner to share with').selectOption({ label: 'Basic Solar' });
  await share.getByRole('button', { name: 'Share', exact: true }).click();
  await expect(share.getByTestId('share-entry')).toContainText('Basic Solar');
  await expect(share.getByText('Every active connection already sees this project.')).toBeVisible();
  await expect(panel.getByTestId('sharing-marker')).toHaveText('Shared with Basic Solar');
  await expect(page.getByTestId('project-row').first().getByTestId('sharing-marker')).toHaveText('Shared with Basic Solar');
  await expect(page.getByTestId('project-row').first().locator('.row-sub')).toHaveAttribute('title', /^Shared with Basic Solar · /);
  await shoot(page, 'project-shared');

  // Stopping hides it again (is_shared false), and sharing once more brings it back.
  await share.getByRole('button', { name: 'Stop sharing' }).click();
  await expect(share.getByText('Not shared with any partner.')).toBeVisible();
  await expect(panel.getByTestId('sharing-marker')).toHaveCount(0);
  await share.getByLabel('Partner to share with').selectOption({ label: 'Basic Solar' });
  await share.getByRole('button', { name: 'Share', exact: true }).click();
  await expect(panel.getByTestId('sharing-marker')).toHaveText('Shared with Basic Solar');
  expect(pageProblems(page)).toEqual([]);
});

test("the partner sees the shared project in its list, marked and read-only", async ({ page }) => {
  await openApp(page, app);
  await switchOrg(page, 'Basic Solar');
  await page.getByRole('button', { name: 'Projects', exact: true }).click();
  await openProjectByIdentifier(page, SHARED_PROJECT);
  const panel = page.getByTestId('project-panel');
  await expect(page.getByTestId('project-row').first().getByTestId('sharing-marker')).toHaveText('Shared by Sunrise Solar');
  await expect(panel.getByTestId('sharing-marker')).toHaveText('Shared by Sunrise Solar');
  await expect(panel.getByTestId('read-only-banner')).toHaveText(
    'Sunrise Solar shares this project with Basic Solar: it is read-only here. To change it, ask Sunrise Solar.',
  );
  await expect(panel.getByLabel('Title', { exact: true })).toBeDisabled();
  await expect(panel.getByTestId('save-indicator')).toHaveCount(0);
  await expect(panel.getByRole('button', { name: 'Share…' })).toHaveCount(0);
  await panel.getByRole('tab', { name: 'Notes' }).click();
  await expect(panel.locator('textarea').first()).toBeDisabled();
  await panel.getByRole('tab', { name: 'Details' }).click();
  await shoot(page, 'project-read-only');
  expect(pageProblems(page)).toEqual([]);
});

test('removing a connection asks first, saying that all sharing with the partner ends, and it does', async ({ page }) => {
  await openApp(page, app);
  await switchOrg(page, 'Basic Solar');
  const row = page.getByTestId('connection-row');
  await row.getByRole('button', { name: 'Remove' }).click();
  await expect(row.getByRole('alertdialog')).toContainText('All sharing with Sunrise Solar ends');
  await shoot(page, 'settings-remove-confirm', row);
  await row.getByRole('button', { name: 'Cancel' }).click();
  await expect(row.getByRole('alertdialog')).toHaveCount(0);
  await row.getByRole('button', { name: 'Remove' }).click();
  await row.getByRole('button', { name: 'Remove connection' }).click();
  await expect(page.getByTestId('connection-row')).toHaveCount(0);
  await expect(page.getByTestId('connections-section').getByText('No connections yet')).toBeVisible();
  await switchOrg(page, 'Sunrise Solar');
  await expect(page.getByTestId('connections-section').getByText('No connections yet')).toBeVisible();
  expect(pageProblems(page)).toEqual([]);
});

test('once the connection is removed, the project is no longer marked as shared', async ({ page }) => {
  await openApp(page, app);
  await switchOrg(page, 'Sunrise Solar');
  await page.getByRole('button', { name: 'Projects', exact: true }).click();
  await openProjectByIdentifier(page, SHARED_PROJECT);
  await expect(page.getByTestId('project-panel').getByTestId('sharing-marker')).toHaveCount(0);
  expect(pageProblems(page)).toEqual([]);
});
