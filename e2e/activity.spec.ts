// The Activity screen (issue 32) in real Chromium, against real `solardesk web` and
// `solardesk server` processes with the real sync agent and folder watcher: a file
// dropped into a project folder is attached, then uploaded with its progress shown; a
// change made on the server arrives naming the field; a held delete is undone from its
// entry; the metered switch holds a file's download, its entry saying why, and Retry
// now brings it down; a conflict's entry opens the conflict; a new conflict shows a notification
// through the browser's Notification API (permission granted to the page). Only the
// network between the agent and the server is faked (the fault proxy holds one upload
// until the test has seen it under way: it waits for that state, never for time).
// Screenshots at 800x600 and 1920x1080, light and dark, in test-results/screenshots/.
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { apiPaths } from '../shared/api-paths.ts';
import { openApp, openProjectByIdentifier, pageProblems, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';
import { startRemoteServer, submitSignIn, type RemoteServer } from './support/remote-server.ts';
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

/** The Activity screen's entry of `kind` that names `text`. */
const entryOf = (page: Page, kind: string, text: string | RegExp) => page.getByTestId('activity-view').locator(`[data-kind="${kind}"]`).filter({ hasText: text });

/** Saves the page at both sizes in both themes, the entry in sight. */
async function screenshots(page: Page, name: string, inSight: ReturnType<Page['locator']>): Promise<void> {
  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    await inSight.scrollIntoViewIfNeeded();
    await expect(inSight).toBeInViewport();
    await screenshotBothThemes(page, `${name}-${width}x${height}`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });
}

/** The synced project folder of a project, once the watcher has made it (synced: right under the folder root). */
async function projectFolderOf(projectId: number): Promise<string> {
  const suffix = ` (${projectId})`;
  const find = () => (fs.existsSync(app.folderRoot) ? fs.readdirSync(app.folderRoot).find((name) => name.endsWith(suffix)) : undefined);
  await expect.poll(find, { timeout: 120_000 }).toBeTruthy();
  return path.join(app.folderRoot, find()!);
}

test('signed in, a file dropped into a project folder appears as attached, then uploaded with its progress', async ({ page }) => {
  await openApp(page, app);
  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  await submitSignIn(page, remote);
  await expect(page.getByTestId('sync-pill')).toHaveText(/Synced/, { timeout: 120_000 });
  const folder = await projectFolderOf(7);

  // The upload is held at the proxy until the page has shown it under way.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  remote.proxy.addRule({ method: 'POST', path: /\/private_files\/$/, action: { kind: 'hook', run: () => released }, times: 1 });
  const temp = path.join(app.dataDir, 'array-layout.txt');
  fs.writeFileSync(temp, 'Two strings of nine panels, east and west. '.repeat(200));
  fs.renameSync(temp, path.join(folder, 'array-layout.txt'));

  await page.getByRole('button', { name: 'Activity', exact: true }).click();
  await expect(entryOf(page, 'attached', 'array-layout.txt')).toBeVisible({ timeout: STATE_HANG_GUARD_MS });
  const upload = entryOf(page, 'upload', 'array-layout.txt');
  await expect(upload).toHaveAttribute('data-state', 'running', { timeout: STATE_HANG_GUARD_MS });
  await expect(upload.getByTestId('activity-state')).toHaveText(/^0% · 0 B of 8\.4 KB$/);
  await expect(upload.locator('progress')).toBeVisible();
  await screenshots(page, 'activity-uploading', upload);

  release();
  await expect(upload).toHaveAttribute('data-state', 'done', { timeout: STATE_HANG_GUARD_MS });
  await expect(upload).toContainText('Uploaded to the server.');
  // Newest first: the upload, which started after the attach, is above it.
  const kinds = await page
    .getByTestId('activity-view')
    .locator('[data-kind="upload"], [data-kind="attached"]')
    .filter({ hasText: 'array-layout.txt' })
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-kind')));
  expect(kinds).toEqual(['upload', 'attached']);
  await expect.poll(async () => (await remote.api<{ title: string }[]>('GET', `${apiPaths.privateFiles(1)}?project=7`)).body.map((file) => file.title), { timeout: STATE_HANG_GUARD_MS }).toContain('array-layout.txt');
  expect(pageProblems(page)).toEqual([]);
});

test('a change made on the server appears naming the field, never its code name', async ({ page }) => {
  await openApp(page, app);
  await page.getByRole('button', { name: 'Activity', exact: true }).click();
  expect((await remote.api('PATCH', apiPaths.project(1, 10), { zip: '94110' })).status).toBe(200);
  const change = entryOf(page, 'remote_change', 'Postal code');
  await expect(change).toBeVisible({ timeout: STATE_HANG_GUARD_MS });
  await expect(change).not.toContainText('zip');
  // Found by the field's name, and by kind.
  await page.getByRole('searchbox', { name: 'Search activity' }).fill('postal');
  await expect(page.getByTestId('activity-entry')).toHaveCount(1);
  await page.getByRole('searchbox', { name: 'Search activity' }).fill('');
  await page.getByLabel('Show').selectOption({ label: 'Changes from the server' });
  await expect(page.getByTestId('activity-entry').first()).toHaveAttribute('data-kind', 'remote_change');
  await expect(page.getByTestId('activity-entry').locator(':scope:not([data-kind="remote_change"])')).toHaveCount(0);
  await page.getByLabel('Show').selectOption({ label: 'Everything' });
  await screenshots(page, 'activity-remote-change', change);
  expect(pageProblems(page)).toEqual([]);
});

test('a file deleted in its folder waits as a held delete and is undone from its entry', async ({ page }) => {
  await openApp(page, app);
  await page.getByRole('button', { name: 'Activity', exact: true }).click();
  const folder = await projectFolderOf(7);
  fs.rmSync(path.join(folder, 'array-layout.txt'));
  const held = entryOf(page, 'delete_held', 'array-layout.txt');
  await expect(held).toHaveAttribute('data-state', 'waiting', { timeout: STATE_HANG_GUARD_MS });
  await expect(held.getByTestId('activity-state')).toHaveText('Waiting: a held delete. Undo it, or confirm it on the Sync screen.');
  await screenshots(page, 'activity-held-delete', held);
  await held.getByRole('button', { name: 'Undo the delete' }).click();
  await expect(held).toHaveAttribute('data-state', 'done', { timeout: STATE_HANG_GUARD_MS });
  await expect(held).toContainText('Undone: the file stays in the project.');
  // The file comes back into its folder, and was never deleted on the server.
  await expect.poll(() => fs.existsSync(path.join(folder, 'array-layout.txt')), { timeout: STATE_HANG_GUARD_MS }).toBe(true);
  expect((await remote.api<{ title: string }[]>('GET', `${apiPaths.privateFiles(1)}?project=7`)).body.map((file) => file.title)).toContain('array-layout.txt');
  expect(pageProblems(page)).toEqual([]);
});

test('the metered switch holds a download with its reason shown; Retry now brings it down as an open', async ({ page }) => {
  await openApp(page, app);
  await expect(page.getByTestId('sync-pill')).toHaveText(/Synced/, { timeout: STATE_HANG_GUARD_MS });
  // The server's file links name the server itself, a host besides the remote: allowed, as a user would in Settings.
  expect((await app.bridge.invoke('settings.set', { downloadHosts: [remote.serverHost] })).downloadHosts).toEqual([remote.serverHost]);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByTestId('transfers').getByRole('switch', { name: 'Metered connection' }).check();
  await expect(page.getByText('Metered: file contents now wait until you open a file or drop one in.')).toBeVisible();
  const folder = await projectFolderOf(7);

  const bytes = Buffer.alloc(256 * 1024, 'Roof plan, north face. ');
  await remote.attachFile(7, 'roof-plan-north.txt', bytes);
  await page.getByRole('button', { name: 'Activity', exact: true }).click();
  const download = entryOf(page, 'download', 'roof-plan-north.txt');
  await expect(download).toHaveAttribute('data-state', 'waiting', { timeout: STATE_HANG_GUARD_MS });
  await expect(download.getByTestId('activity-state')).toHaveText('Waiting: metered connection. File contents wait until you open the file or turn the metered switch off in Settings.');
  expect(fs.existsSync(path.join(folder, 'roof-plan-north.txt')), 'held: not in its folder yet').toBe(false);
  await screenshots(page, 'activity-metered-download', download);

  await download.getByRole('button', { name: 'Retry now' }).click();
  await expect(download).toHaveAttribute('data-state', 'done', { timeout: STATE_HANG_GUARD_MS });
  await expect(download).toContainText('Fetched from the server. Written into the project folder.', { timeout: STATE_HANG_GUARD_MS });
  await expect.poll(() => fs.existsSync(path.join(folder, 'roof-plan-north.txt')) && fs.readFileSync(path.join(folder, 'roof-plan-north.txt')).equals(bytes), { timeout: STATE_HANG_GUARD_MS }).toBe(true);

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page.getByTestId('transfers').getByRole('switch', { name: 'Metered connection' }).uncheck();
  await expect(page.getByTestId('transfers').getByRole('switch', { name: 'Metered connection' })).not.toBeChecked();
  expect(pageProblems(page)).toEqual([]);
});

test('a new conflict is notified through the browser, and its entry opens the conflict', async ({ page, context }) => {
  // Browser mode's notifications: the page is allowed to show them, and each one it shows is kept to be looked at and clicked.
  await context.grantPermissions(['notifications'], { origin: app.baseUrl });
  await page.addInitScript(() => {
    const shown: Notification[] = [];
    const Native = window.Notification;
    class Observed extends Native {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        shown.push(this);
      }
    }
    (window as unknown as { shownNotifications: Notification[] }).shownNotifications = shown;
    window.Notification = Observed as typeof Notification;
  });
  await openApp(page, app);
  await expect(page.getByTestId('sync-pill')).toHaveText(/Synced/, { timeout: STATE_HANG_GUARD_MS });
  remote.proxy.setOffline(true);
  await openProjectByIdentifier(page, 'SD-2026-0020');
  await page.getByTestId('project-panel').getByLabel('Notes', { exact: true }).fill('Slate roof, seen from the ladder.');
  await expect(page.getByTestId('save-indicator')).toHaveText('All changes saved');
  expect((await remote.api('PATCH', apiPaths.project(1, 20), { notes: 'Tile roof, from the office drawings.' })).status).toBe(200);

  // The project's own Activity tab: the edit waits, offline, and says so.
  await page.getByTestId('project-panel').getByRole('tab', { name: 'Activity' }).click();
  const waitingEdit = page.getByTestId('project-panel').locator('[data-kind="edit"]').first();
  await expect(waitingEdit.getByTestId('activity-state')).toHaveText(/Waiting: this computer is offline/, { timeout: STATE_HANG_GUARD_MS });
  await screenshots(page, 'activity-project-tab-offline', waitingEdit);
  remote.proxy.setOffline(false);

  const conflict = page.getByTestId('project-panel').locator('[data-kind="conflict"]').filter({ hasText: 'Notes' });
  await expect(conflict).toBeVisible({ timeout: STATE_HANG_GUARD_MS });
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { shownNotifications: Notification[] }).shownNotifications.map((shown) => `${shown.title} | ${shown.body}`)), { timeout: STATE_HANG_GUARD_MS })
    .toContainEqual(expect.stringMatching(/^A conflict waits for you \| Conflict: .*\(Notes\)$/));

  // Clicking the notification opens the app at the entry.
  await page.evaluate(() => (window as unknown as { shownNotifications: Notification[] }).shownNotifications.find((shown) => shown.title === 'A conflict waits for you')!.onclick?.(new Event('click')));
  const atEntry = page.getByTestId('activity-view').locator('[data-kind="conflict"].is-focused');
  await expect(atEntry).toBeVisible();
  await screenshots(page, 'activity-conflict', atEntry);

  await atEntry.getByRole('button', { name: 'Resolve the conflict' }).click();
  const opened = page.getByTestId('conflict').and(page.locator('[aria-current="true"]'));
  await expect(opened).toBeVisible();
  await expect(opened).toContainText('Slate roof, seen from the ladder.');
  await expect(opened).toContainText('Tile roof, from the office drawings.');
  await expect(opened).toBeInViewport();
  expect(pageProblems(page)).toEqual([]);
});

test('a file waiting for a project the server refused says so, naming the project', async ({ page }) => {
  // Signed in by the first test (the conflict the last one left still waits, so the pill reads "Needs attention").
  await openApp(page, app);
  // The server refuses the new project for good: the fault proxy answers its create with a 400, as a validation failure would.
  remote.proxy.addRule({ method: 'POST', path: /\/projects\/$/, action: { kind: 'status', status: 400, body: { title: ['Rejected by the remote for this test.'] } } });
  try {
    const made = await app.api<{ id: number }>('POST', apiPaths.projects(1), { title: 'Shed roof, made offline', address: '4 Refused Lane' });
    expect(made.status).toBe(201);
    await app.bridge.invoke('files.upload', { uploadId: 'e2e-refused-shed', projectId: made.body.id, fileName: 'shed-sketch.txt', bytes: new TextEncoder().encode('The shed, from the garden.') });
    await page.getByRole('button', { name: 'Activity', exact: true }).click();
    const upload = entryOf(page, 'upload', 'shed-sketch.txt');
    await expect(upload.getByTestId('activity-state')).toHaveText(
      'Waiting for its project "Shed roof, made offline", which the server refused: that project\'s entry says why. Once the project goes, this file follows.',
      { timeout: STATE_HANG_GUARD_MS },
    );
    await expect(upload).toHaveAttribute('data-state', 'waiting');
    // Retry on the file could not help: the project's entry has it, with the server's reason in words, not its raw answer.
    await expect(upload.getByRole('button', { name: 'Retry now' })).toHaveCount(0);
    const project = entryOf(page, 'edit', 'Shed roof, made offline');
    await expect(project.getByTestId('activity-state')).toHaveText(
      'Failed: The server refused it (Title: Rejected by the remote for this test). Press Retry now to send it again, or edit it first.',
    );
    await expect(project.getByRole('button', { name: 'Retry now' })).toBeVisible();
    await screenshots(page, 'activity-refused-project', upload);
    expect(pageProblems(page)).toEqual([]);
  } finally {
    remote.proxy.clearRules();
  }
});
