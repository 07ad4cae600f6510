// Local work survives sign-in (issue 15), as a user meets it: work done on this
// computer before signing in is offered after the sign-in; one item sent reaches the
// real server; "Keep on this computer" leaves the rest in the local workspace, which
// the workspace switcher opens again; signing out while a change has not gone up asks
// first. Real `solardesk web`, `solardesk server` and agent; only the network between
// the agent and the server is faked (the fault proxy), to hold a change back.
import { expect, test, type Page } from '@playwright/test';
import { openApp, openProjectByIdentifier, pageProblems, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';
import { startRemoteServer, submitSignIn, type RemoteServer } from './support/remote-server.ts';
import { apiPaths } from '../shared/api-paths.ts';
import { STATE_HANG_GUARD_MS } from '../main/testing/hang-guards.ts';

let app: RunningApp;
let remote: RemoteServer;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  remote = await startRemoteServer();
  app = await startSolarDesk({ extraArgs: ['--sync-interval', '2'] });
});
test.afterAll(async () => {
  await app.stop();
  await remote.stop();
});

async function signIn(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  await submitSignIn(page, remote);
}

test('work done here before signing in is offered after it; one item sent reaches the server', async ({ page }) => {
  await openApp(page, app);
  // Local-only work: an edit in the app, a new project and a webhook.
  await openProjectByIdentifier(page, 'SD-2026-0012');
  await page.getByTestId('project-panel').getByLabel('Title', { exact: true }).fill('Edited before signing in');
  await expect(page.getByTestId('save-indicator')).toHaveText('All changes saved');
  expect((await app.api('POST', '/api/orgs/1/projects/', { title: 'Quote for the Okafor family', address: '9 Ridge Lane' })).status).toBe(201);
  expect((await app.api('POST', '/api/orgs/1/webhooks/', { endpoint: 'https://hooks.example.com/crm', enabled: true, debug: false })).status).toBe(201);

  await signIn(page);
  const dialog = page.getByTestId('local-work-dialog');
  await expect(dialog).toBeVisible({ timeout: STATE_HANG_GUARD_MS });
  await expect(dialog).toContainText('not on Sunrise Solar');
  const items = dialog.getByTestId('local-work-item');
  await expect(items).toHaveCount(3);
  await expect(items.filter({ hasText: 'Edited before signing in' })).toContainText('Changed on this computer: title');
  await expect(items.filter({ hasText: 'Quote for the Okafor family' })).toContainText('Made on this computer');
  await expect(items.filter({ hasText: 'Webhook to https://hooks.example.com/crm' })).toBeVisible();
  // Said beforehand (issue 28, item 11): everything sent is new there, and the edited sample project becomes a second one of its name.
  await expect(dialog.getByTestId('local-work-new-records')).toContainText('Whatever you send is made on Sunrise Solar as a new record');
  await expect(dialog.getByTestId('local-work-new-records')).toContainText('“Edited before signing in” is this computer’s sample data, changed here');
  await expect(items.filter({ hasText: 'Edited before signing in' })).toContainText('becomes a new project on Sunrise Solar, beside any of the same name there');
  await expect(items.filter({ hasText: 'Quote for the Okafor family' })).toContainText('becomes a new project on Sunrise Solar');
  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    await screenshotBothThemes(page, `local-work-offer-${size.width}x${size.height}`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });

  // Only the new project goes.
  await dialog.getByRole('checkbox', { name: /^All/ }).uncheck();
  await items.filter({ hasText: 'Quote for the Okafor family' }).getByRole('checkbox').check();
  await dialog.getByRole('button', { name: 'Send 1 to Sunrise Solar' }).click();
  await expect(dialog.getByTestId('local-work-sent')).toContainText('Sent 1 to Sunrise Solar: Quote for the Okafor family');
  await expect(items).toHaveCount(2);
  await expect
    .poll(async () => (await remote.api<{ title: string }[]>('GET', '/api/orgs/1/projects/?search=Okafor')).body.map((project) => project.title), { timeout: STATE_HANG_GUARD_MS })
    .toContain('Quote for the Okafor family');
  expect((await remote.api<{ title: string }>('GET', '/api/orgs/1/projects/12/')).body.title).not.toBe('Edited before signing in');
  expect(pageProblems(page)).toEqual([]);
});

test('"Keep on this computer" keeps the rest in a workspace the switcher opens again', async ({ page }) => {
  await openApp(page, app);
  // The offer stays reachable from the Sync screen until the user decides.
  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  await expect(page.getByTestId('local-work-card')).toContainText('2 records you made or changed here are not on Sunrise Solar');
  await page.getByTestId('local-work-card').getByRole('button', { name: 'Review and send…' }).click();
  const dialog = page.getByTestId('local-work-dialog');
  // Escape is "Decide later": the dialog closes and the offer stays (issue 28, 14).
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('local-work-card')).toContainText('2 records you made or changed here are not on Sunrise Solar');
  await page.getByTestId('local-work-card').getByRole('button', { name: 'Review and send…' }).click();
  await dialog.getByRole('button', { name: 'Keep on this computer' }).click();
  await expect(dialog).toBeHidden();

  const switcher = page.getByRole('combobox', { name: 'Workspace' });
  await expect(switcher).toHaveValue('remote');
  await switcher.selectOption({ label: 'On this computer' });
  await expect(switcher).toHaveValue('local', { timeout: STATE_HANG_GUARD_MS });
  await page.getByRole('button', { name: 'Projects' }).click();
  await page.getByRole('searchbox', { name: 'Search projects' }).fill('Edited before signing in');
  await expect(page.getByTestId('project-count')).toHaveText('1 project');
  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  await expect(page.getByTestId('local-only')).toContainText('On this computer — not synced');
  await screenshotBothThemes(page, 'local-work-local-workspace');

  // In a narrow window the sidebar is icons: the switcher is an icon button named for the
  // workspace, opening the two choices as a menu beside it, from the keyboard too.
  await page.setViewportSize({ width: 800, height: 600 });
  const sidebar = page.getByRole('navigation', { name: 'SolarDesk' });
  const icon = sidebar.getByRole('button', { name: 'Workspace: On this computer (your sign-in stays)' });
  await expect(icon).toHaveAttribute('title', 'Workspace: On this computer (your sign-in stays)');
  await expect(page.locator('#workspace')).toHaveCount(0);
  await icon.click();
  const menu = page.getByRole('menu', { name: 'Workspace' });
  await expect(menu.getByRole('menuitemradio', { name: 'On this computer' })).toBeFocused();
  await expect(menu.getByRole('menuitemradio', { name: 'On this computer' })).toHaveAttribute('aria-checked', 'true');
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(icon).toBeFocused();
  await page.keyboard.press('Enter');
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitemradio', { name: /^Sunrise Solar at / })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(sidebar.getByRole('button', { name: /^Workspace: Sunrise Solar at 127\.0\.0\.1:\d+$/ })).toBeVisible({ timeout: STATE_HANG_GUARD_MS });
  await expect(menu).toHaveCount(0);
  await screenshotBothThemes(page, 'local-work-switcher-icon');

  // Wide again: the select, its choice whole in its title.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(switcher).toHaveValue('remote');
  await expect(switcher).toHaveAttribute('title', /^Workspace: Sunrise Solar at 127\.0\.0\.1:\d+$/);
  await expect(page.getByTestId('sync-pill')).toHaveText(/Synced|Syncing/, { timeout: STATE_HANG_GUARD_MS });
  expect(pageProblems(page)).toEqual([]);
});

test('a file deleted just before switching workspace is deleted in neither: the same ids name other files there', async ({ page }) => {
  await openApp(page, app);
  await page.setViewportSize({ width: 1400, height: 900 });
  const switcher = page.getByRole('combobox', { name: 'Workspace' });
  await expect(switcher).toHaveValue('remote');
  // The demo data is the same on both sides, so this file has the same id in both workspaces.
  const files = (await app.api<{ id: number; title: string }[]>('GET', '/api/orgs/1/private_files/', undefined, { limit: 100 })).body;
  const switchboard = files.find((file) => file.title === 'Switchboard')!;
  await openProjectByIdentifier(page, 'SD-2025-0001');
  await page.getByRole('tab', { name: 'Files' }).click();
  const row = page.getByTestId('file-row').filter({ hasText: 'Switchboard' });
  await row.getByRole('button', { name: 'Delete' }).click();
  await page.getByTestId('delete-files-dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('undo-delete')).toContainText('Deleted Switchboard');
  // Within the undo window, the other workspace opens.
  await switcher.selectOption({ label: 'On this computer' });
  await expect(switcher).toHaveValue('local', { timeout: STATE_HANG_GUARD_MS });
  await expect(page.locator('.toasts')).toContainText('Not deleted: the workspace changed before the delete was sent', { timeout: STATE_HANG_GUARD_MS });
  expect((await app.api('GET', apiPaths.privateFile(1, switchboard.id))).status, 'on this computer').toBe(200);
  expect((await remote.api('GET', apiPaths.privateFile(1, switchboard.id))).status, 'on the remote').toBe(200);
  await switcher.selectOption('remote');
  await expect(switcher).toHaveValue('remote', { timeout: STATE_HANG_GUARD_MS });
  expect((await app.api('GET', apiPaths.privateFile(1, switchboard.id))).status, 'in the signed-in workspace').toBe(200);
});

test('signing out while a change has not reached the server asks first', async ({ page }) => {
  await openApp(page, app);
  await expect(page.getByTestId('sync-pill')).toHaveText(/Synced/, { timeout: STATE_HANG_GUARD_MS });
  remote.proxy.setOffline(true);
  await openProjectByIdentifier(page, 'SD-2026-0014');
  await page.getByTestId('project-panel').getByLabel('Notes', { exact: true }).fill('Written in a dead zone.');
  await expect(page.getByTestId('save-indicator')).toHaveText('All changes saved');
  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  const question = page.getByTestId('sign-out-question');
  await expect(question).toContainText(`1 change has not reached ${remote.url} yet. Sign out anyway? They stay on this computer`);
  await screenshotBothThemes(page, 'sign-out-question');
  await question.getByRole('button', { name: 'Cancel' }).click();
  await expect(question).toBeHidden();
  await expect(page.getByText(`Signed in to ${remote.url}`)).toBeVisible();
  // The sync screen says why in a sentence, not an error code.
  await expect(page.getByTestId('sync-status')).toContainText(`The server at ${remote.url} is not answering`, { timeout: STATE_HANG_GUARD_MS });
  remote.proxy.setOffline(false);
  await expect.poll(async () => (await remote.api<{ notes: string }>('GET', '/api/orgs/1/projects/14/')).body.notes, { timeout: STATE_HANG_GUARD_MS }).toBe('Written in a dead zone.');
  expect(pageProblems(page)).toEqual([]);
});
