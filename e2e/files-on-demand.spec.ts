// Files on demand (issue 15) as the user sees it: signed in to a real `solardesk
// server` through the real sync agent, the Files tab of a project whose files are
// not kept here marks each file "On the remote" with what fetching costs; Fetch
// brings one file here; the pin in the project header keeps them all. Opening keeps
// nothing here (--keep-opened-days 0), so the marks stay to be seen.
import { expect, test } from '@playwright/test';
import { openApp, openProjectByIdentifier, pageProblems, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';
import { startRemoteServer, submitSignIn, type RemoteServer } from './support/remote-server.ts';
import { apiPaths } from '../shared/api-paths.ts';
import { STATE_HANG_GUARD_MS } from '../main/testing/hang-guards.ts';

let app: RunningApp;
let remote: RemoteServer;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  remote = await startRemoteServer();
  app = await startSolarDesk({ extraArgs: ['--sync-interval', '2', '--keep-opened-days', '0'] });
});
test.afterAll(async () => {
  await app?.stop();
  await remote?.stop();
});

test('the Files tab shows which files are here and which are on the remote, fetches one, and pins the project', async ({ page }) => {
  await openApp(page, app);
  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  await submitSignIn(page, remote);
  await expect(page.getByTestId('sync-pill')).toHaveText(/Synced/, { timeout: STATE_HANG_GUARD_MS });
  await page.getByRole('button', { name: 'Projects' }).click();
  await expect(page.getByTestId('project-count')).toHaveText('48 projects', { timeout: STATE_HANG_GUARD_MS });

  // Project 1: the member's (the admin holds no role there), with three demo files.
  const { identifier } = (await remote.api<{ identifier: string }>('GET', apiPaths.project(1, 1))).body;
  await openProjectByIdentifier(page, identifier);
  await page.getByRole('tab', { name: 'Files' }).click();
  const rows = page.getByTestId('file-row');
  await expect(rows).toHaveCount(3);
  await expect(page.getByTestId('contents-remote')).toHaveCount(3);
  await expect(page.getByTestId('contents-remote').first()).toContainText(/On the remote · free for the next \d+ min/);
  const pin = page.getByTestId('pin-toggle');
  await expect(pin).toHaveText('Pin files here');

  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    const panel = page.locator('.detail-pane');
    expect(await panel.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(0);
    const fetchButton = rows.first().getByRole('button', { name: 'Fetch' });
    await fetchButton.scrollIntoViewIfNeeded();
    const box = (await fetchButton.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(width);
    await screenshotBothThemes(page, `files-on-demand-${width}x${height}`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });

  // The server's links name its own port, not the proxy the app signed in through: another
  // host to the app, so the first Fetch is refused with a sentence naming the setting (issue 34).
  await rows.first().getByRole('button', { name: 'Fetch' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Settings > Download hosts' })).toContainText(
    `the link points to ${remote.serverHost}, which is neither the remote`,
    { timeout: STATE_HANG_GUARD_MS },
  );
  await expect(page.getByTestId('contents-remote')).toHaveCount(3);

  await page.getByRole('button', { name: 'Settings' }).click();
  const hostsField = page.getByLabel('Download hosts');
  await hostsField.fill('https://files.example.com/x');
  await expect(page.getByTestId('download-hosts').getByRole('alert')).toContainText('leave out the https://');
  await expect(page.getByTestId('download-hosts').getByRole('button', { name: 'Save' })).toBeDisabled();
  await hostsField.fill(remote.serverHost);
  await page.getByTestId('download-hosts').getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText(`Files may now also come from ${remote.serverHost}.`)).toBeVisible();
  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    await page.getByTestId('download-hosts').scrollIntoViewIfNeeded();
    await screenshotBothThemes(page, `settings-download-hosts-${width}x${height}`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.getByRole('button', { name: 'Projects' }).click();
  await openProjectByIdentifier(page, identifier);
  await page.getByRole('tab', { name: 'Files' }).click();

  await rows.first().getByRole('button', { name: 'Fetch' }).click();
  await expect(rows.first().getByTestId('contents-here')).toHaveText('On this computer', { timeout: STATE_HANG_GUARD_MS });
  await expect(page.getByTestId('contents-remote')).toHaveCount(2);

  await pin.click();
  await expect(pin).toHaveText('Pinned');
  await expect(pin).toHaveAttribute('aria-pressed', 'true');
  // Pinned: the rest come as background work, and the marks follow without a click.
  await expect(page.getByTestId('contents-here')).toHaveCount(3, { timeout: STATE_HANG_GUARD_MS });
  await screenshotBothThemes(page, 'files-on-demand-pinned');
  expect(pageProblems(page)).toEqual([]);
});
