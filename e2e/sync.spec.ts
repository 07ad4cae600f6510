// Sync as the user sees it: the local-only state with no remote; then signed in
// to a real `solardesk server` through the real sync agent: an edit made offline
// reaches the server once the network is back, and a conflict is resolved in the
// inbox. Only the network between the agent and the server is faked (a proxy).
import { expect, test } from '@playwright/test';
import { dropFileOnWindow, openApp, openProjectByIdentifier, pageProblems, type RunningApp, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';
import { startRemoteServer, submitSignIn, type RemoteServer } from './support/remote-server.ts';
import { STATE_HANG_GUARD_MS } from '../main/testing/hang-guards.ts';

let app: RunningApp;
let remote: RemoteServer;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  remote = await startRemoteServer();
  // A short sync interval, so a test waits seconds, not the default half minute, for the agent to notice the network.
  app = await startSolarDesk({ extraArgs: ['--sync-interval', '2'] });
});
test.afterAll(async () => {
  await app.stop();
  await remote.stop();
});

interface Project {
  title: string;
  notes: string;
}

test('with no remote, the sync screen says local only', async ({ page }) => {
  await openApp(page, app);
  await expect(page.getByTestId('sync-pill')).toHaveText('Local only');
  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  await expect(page.getByTestId('local-only')).toContainText('Local only: not signed in to an office server');
  await expect(page.getByRole('heading', { name: 'Sign in to a remote' })).toBeVisible();
  await screenshotBothThemes(page, 'sync-local-only');
  expect(pageProblems(page)).toEqual([]);
});

test('signed in to a remote, an edit made offline reaches the server when the network is back', async ({ page }) => {
  await openApp(page, app);
  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  await submitSignIn(page, remote);
  await expect(page.getByText(`Signed in to ${remote.url}`)).toBeVisible({ timeout: STATE_HANG_GUARD_MS });
  await expect(page.getByTestId('sync-pill')).toHaveText(/Synced/, { timeout: STATE_HANG_GUARD_MS });
  await expect(page.getByTestId('sync-status')).toBeVisible();

  await page.getByRole('button', { name: 'Projects' }).click();
  await expect(page.getByTestId('project-count')).toHaveText('48 projects', { timeout: STATE_HANG_GUARD_MS });

  remote.proxy.setOffline(true);
  await openProjectByIdentifier(page, 'SD-2026-0025');
  const panel = page.getByTestId('project-panel');
  await panel.getByLabel('Title', { exact: true }).fill('Edited in the van');
  await expect(page.getByTestId('save-indicator')).toHaveText('All changes saved');
  await expect(page.getByTestId('sync-pill')).toHaveText(/Offline/, { timeout: STATE_HANG_GUARD_MS });
  await expect(page.getByTestId('project-row').first()).toContainText('Unsynced');
  expect((await remote.api<Project>('GET', '/api/orgs/1/projects/25/')).body.title).not.toBe('Edited in the van');
  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  await expect(page.getByTestId('pending-changes')).toContainText('Title');
  await screenshotBothThemes(page, 'sync-offline-pending');

  remote.proxy.setOffline(false);
  await expect.poll(async () => (await remote.api<Project>('GET', '/api/orgs/1/projects/25/')).body.title, { timeout: STATE_HANG_GUARD_MS }).toBe('Edited in the van');
  await expect(page.getByTestId('sync-pill')).toHaveText('Synced', { timeout: STATE_HANG_GUARD_MS });
  await expect(page.getByTestId('pending-changes')).toContainText('Nothing waiting');
  expect(pageProblems(page)).toEqual([]);
});

test('a field changed on both sides is a conflict the user resolves side by side', async ({ page }) => {
  await openApp(page, app);
  await expect(page.getByTestId('sync-pill')).toHaveText(/Synced/, { timeout: STATE_HANG_GUARD_MS });
  remote.proxy.setOffline(true);
  await openProjectByIdentifier(page, 'SD-2026-0020');
  await page.getByTestId('project-panel').getByLabel('Notes', { exact: true }).fill('Notes written on this laptop.');
  await expect(page.getByTestId('save-indicator')).toHaveText('All changes saved');
  expect((await remote.api('PATCH', '/api/orgs/1/projects/20/', { notes: 'Notes written in the office.' })).status).toBe(200);
  remote.proxy.setOffline(false);

  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  const conflict = page.getByTestId('conflict').filter({ hasText: 'Notes' });
  await expect(conflict).toBeVisible({ timeout: STATE_HANG_GUARD_MS });
  await expect(conflict).toContainText('Notes written on this laptop.');
  await expect(conflict).toContainText('Notes written in the office.');
  await expect(page.getByTestId('sync-pill')).toHaveText(/Needs attention/);
  await screenshotBothThemes(page, 'sync-conflict');

  await conflict.getByRole('radio', { name: /This computer/ }).check();
  await conflict.getByRole('button', { name: /Keep this computer/ }).click();
  await expect(page.getByTestId('conflict')).toHaveCount(0, { timeout: STATE_HANG_GUARD_MS });
  await expect.poll(async () => (await remote.api<Project>('GET', '/api/orgs/1/projects/20/')).body.notes, { timeout: STATE_HANG_GUARD_MS }).toBe('Notes written on this laptop.');
  expect(pageProblems(page)).toEqual([]);
});

test('a file dropped on the window while signed in reaches the server', async ({ page }) => {
  await openApp(page, app);
  await expect(page.getByTestId('sync-pill')).toHaveText(/Synced|Syncing/, { timeout: STATE_HANG_GUARD_MS });
  await openProjectByIdentifier(page, 'SD-2026-0007');
  await dropFileOnWindow(page, 'site-survey.txt', 'Switchboard photo notes. '.repeat(2000));
  await expect(page.getByTestId('file-row').filter({ hasText: 'site-survey.txt' })).toBeVisible();
  await expect
    .poll(async () => (await remote.api<{ title: string }[]>('GET', '/api/orgs/1/private_files/?project=7')).body.map((file) => file.title), { timeout: STATE_HANG_GUARD_MS })
    .toContain('site-survey.txt');
  await screenshotBothThemes(page, 'sync-file-on-server');
  expect(pageProblems(page)).toEqual([]);
});

test('a value the server did not take, and a change it refused, wait on the Sync screen until the user sends them again', async ({ page }) => {
  await openApp(page, app);
  await expect(page.getByTestId('sync-pill')).toHaveText(/Synced/, { timeout: STATE_HANG_GUARD_MS });
  // The proxy lies once: it answers the PATCH with the project as it was, without forwarding it.
  const asItWas = (await remote.api<Project>('GET', '/api/orgs/1/projects/21/')).body;
  remote.proxy.addRule({ method: 'PATCH', path: /^\/api\/orgs\/1\/projects\/21\/$/, action: { kind: 'status', status: 200, body: asItWas }, times: 1 });
  await openProjectByIdentifier(page, 'SD-2026-0021');
  await page.getByTestId('project-panel').getByLabel('Notes', { exact: true }).fill('Notes the server ignored once.');
  await expect(page.getByTestId('save-indicator')).toHaveText('All changes saved');
  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  const conflict = page.getByTestId('conflict').filter({ hasText: 'Notes' });
  await expect(conflict.getByTestId('conflict-reason')).toContainText('The server did not take this value', { timeout: STATE_HANG_GUARD_MS });
  await conflict.getByRole('radio', { name: /This computer/ }).check();
  await conflict.getByRole('button', { name: 'Keep mine (send again)' }).click();
  await expect.poll(async () => (await remote.api<Project>('GET', '/api/orgs/1/projects/21/')).body.notes, { timeout: STATE_HANG_GUARD_MS }).toBe('Notes the server ignored once.');

  // Refused once (a 400): parked, shown with Retry, and Retry sends it.
  remote.proxy.addRule({ method: 'PATCH', path: /^\/api\/orgs\/1\/projects\/22\/$/, action: { kind: 'status', status: 400, body: { notes: ['Refused once for this test.'] } }, times: 1 });
  await page.getByRole('button', { name: 'Projects' }).click();
  await openProjectByIdentifier(page, 'SD-2026-0022');
  await page.getByTestId('project-panel').getByLabel('Notes', { exact: true }).fill('Notes sent again by Retry.');
  await expect(page.getByTestId('save-indicator')).toHaveText('All changes saved');
  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  const pending = page.getByTestId('pending-changes');
  await expect(pending).toContainText('Refused once for this test', { timeout: STATE_HANG_GUARD_MS });
  await pending.getByRole('button', { name: /^Retry sending/ }).click();
  await expect.poll(async () => (await remote.api<Project>('GET', '/api/orgs/1/projects/22/')).body.notes, { timeout: STATE_HANG_GUARD_MS }).toBe('Notes sent again by Retry.');
  await expect(pending).toContainText('Nothing waiting', { timeout: STATE_HANG_GUARD_MS });
  expect(pageProblems(page)).toEqual([]);
});
