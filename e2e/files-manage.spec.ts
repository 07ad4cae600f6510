// The Files tab manages files (issue 17): rename, tag and untag, show customer,
// delete with its confirmation and undo window, multi-select (tag two, delete
// two), the keyboard, sort/filter/search, an upload that shows its progress and
// can be cancelled with nothing attached, and a refused upload that says why.
// Everything is real (solardesk web, its engine, Chromium); the only fake is the
// network's speed: CDP throttles the page's uploads so progress has time to show.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openApp, openProjectByIdentifier, pageProblems, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';
import type { PrivateFileJson } from '../shared/schemas/private-file.ts';
import { apiPaths } from '../shared/api-paths.ts';
import { STATE_HANG_GUARD_MS } from '../main/testing/hang-guards.ts';

let app: RunningApp;
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => app.stop());

let counter = 0;
/** Attaches a file through the bridge, as a drop would; answers the file. */
async function attach(projectId: number, fileName: string, content: string | Buffer): Promise<PrivateFileJson> {
  const bytes = new Uint8Array(typeof content === 'string' ? Buffer.from(content) : content);
  const answer = await app.bridge.invoke('files.upload', { uploadId: `e2e${++counter}`, projectId, fileName, bytes });
  expect(answer.status).toBe(201);
  return answer.body as PrivateFileJson;
}

/** A demo project of org 1 by id, with the identifier the project search finds it by (ids are stable; identifiers carry the year of creation). */
async function demoProject(id: number): Promise<{ id: number; identifier: string }> {
  const answer = await app.api<{ id: number; identifier: string }>('GET', apiPaths.project(1, id));
  expect(answer.status).toBe(200);
  return answer.body;
}

async function fileById(id: number) {
  return app.api<PrivateFileJson>('GET', apiPaths.privateFile(1, id));
}

async function projectFiles(projectId: number) {
  return (await app.api<PrivateFileJson[]>('GET', apiPaths.privateFiles(1), undefined, { project: projectId, limit: 1000 })).body;
}

async function openFiles(page: Page, project: { identifier: string }) {
  await openApp(page, app);
  await openProjectByIdentifier(page, project.identifier);
  await page.getByRole('tab', { name: 'Files' }).click();
  await expect(page.locator('.files-tab')).toBeVisible();
}

const row = (page: Page, title: string) => page.getByTestId('file-row').filter({ hasText: title });

test('rename, tag and untag, show customer', async ({ page }) => {
  const project = await demoProject(3);
  const file = await attach(project.id, 'site-plan.pdf', '%PDF-1.4 site plan');
  await openFiles(page, project);

  await row(page, 'site-plan.pdf').getByRole('button', { name: 'Rename' }).click();
  const input = page.getByRole('textbox', { name: 'New title for site-plan.pdf' });
  await expect(input).toBeFocused();
  // A blank title is refused in words and nothing changes.
  await input.fill('   ');
  await input.press('Enter');
  await expect(page.getByText('A file needs a title')).toBeVisible();
  await input.fill('Site plan v2.pdf');
  await input.press('Enter');
  await expect(row(page, 'Site plan v2.pdf')).toBeVisible();
  await expect.poll(async () => (await fileById(file.id)).body.title).toBe('Site plan v2.pdf');

  // Tag: select the row, Tags…, find the catalogue's System Contract by a word and tick it.
  await row(page, 'Site plan v2.pdf').click();
  await expect(page.getByTestId('file-selection-bar')).toContainText('1 file selected');
  await page.getByRole('button', { name: 'Tags…' }).click();
  const menu = page.getByTestId('tag-menu');
  await menu.getByRole('searchbox', { name: 'Find a tag' }).fill('contract');
  await expect(menu.getByRole('checkbox')).toHaveCount(1);
  await menu.getByRole('checkbox', { name: 'System Contract', exact: true }).check();
  await expect(row(page, 'Site plan v2.pdf')).toContainText('System Contract');
  await expect.poll(async () => (await fileById(file.id)).body.file_tags_data.map((tag) => tag.title)).toEqual(['System Contract']);
  await menu.getByRole('searchbox', { name: 'Find a tag' }).fill('');
  // A new tag of the org's own is made and put on at once.
  await menu.getByRole('textbox', { name: 'New tag' }).fill('Warranty card');
  await menu.getByRole('button', { name: 'Add' }).click();
  await expect(row(page, 'Site plan v2.pdf')).toContainText('Warranty card');
  // A "new" tag the catalogue already has is the catalogue's: put on, not made again.
  await menu.getByRole('textbox', { name: 'New tag' }).fill('roof plan');
  await menu.getByRole('button', { name: 'Add' }).click();
  await expect(row(page, 'Site plan v2.pdf')).toContainText('Roof Plan');
  // Untag.
  await menu.getByRole('checkbox', { name: 'System Contract', exact: true }).uncheck();
  await expect(row(page, 'Site plan v2.pdf')).not.toContainText('System Contract');
  await expect.poll(async () => (await fileById(file.id)).body.file_tags_data.map((tag) => tag.title)).toEqual(['Roof Plan', 'Warranty card']);
  await menu.press('Escape');
  await expect(menu).toBeHidden();

  // Show customer.
  expect((await fileById(file.id)).body.show_customer).toBe(false);
  await row(page, 'Site plan v2.pdf').getByRole('checkbox', { name: 'Customer' }).check();
  await expect.poll(async () => (await fileById(file.id)).body.show_customer).toBe(true);
  await row(page, 'Site plan v2.pdf').getByRole('checkbox', { name: 'Customer' }).uncheck();
  await expect.poll(async () => (await fileById(file.id)).body.show_customer).toBe(false);

  // A title without an extension still downloads as a file the system can open.
  await row(page, 'Site plan v2.pdf').getByRole('button', { name: 'Rename' }).click();
  await page.getByRole('textbox', { name: 'New title for Site plan v2.pdf' }).fill('Site plan');
  await page.keyboard.press('Enter');
  await row(page, 'Site plan').getByRole('button', { name: 'Download' }).click();
  await expect(page.getByText(/Saved Site plan to .*Site plan\.pdf/)).toBeVisible();
  const folder = fs.readdirSync(app.projectFoldersRoot).find((name) => name.endsWith(`(${project.id})`))!;
  expect(fs.readFileSync(path.join(app.projectFoldersRoot, folder, 'Site plan.pdf'), 'utf8')).toBe('%PDF-1.4 site plan');
  expect(pageProblems(page)).toEqual([]);
});

test('delete asks first, can be undone, and is sent when the undo window ends', async ({ page }) => {
  const project = await demoProject(4);
  const kept = await attach(project.id, 'inverter-label.jpg', 'label');
  const gone = await attach(project.id, 'old-quote.pdf', '%PDF-1.4 old quote');
  await openFiles(page, project);

  // Cancel in the dialog: nothing happens.
  await row(page, 'inverter-label.jpg').getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByTestId('delete-files-dialog');
  await expect(dialog).toContainText('Delete inverter-label.jpg?');
  await expect(dialog).toContainText('undo');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(row(page, 'inverter-label.jpg')).toBeVisible();

  // Delete, then Undo: the file is back and was never deleted.
  await row(page, 'inverter-label.jpg').getByRole('button', { name: 'Delete' }).click();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(row(page, 'inverter-label.jpg')).toHaveCount(0);
  const undo = page.getByTestId('undo-delete');
  await expect(undo).toContainText('Deleted inverter-label.jpg');
  await undo.getByRole('button', { name: 'Undo' }).click();
  await expect(row(page, 'inverter-label.jpg')).toBeVisible();
  expect((await fileById(kept.id)).status).toBe(200);

  // Delete and let the window pass: the delete reaches the store.
  await row(page, 'old-quote.pdf').getByRole('button', { name: 'Delete' }).click();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(row(page, 'old-quote.pdf')).toHaveCount(0);
  expect((await fileById(gone.id)).status).toBe(200);
  await expect(undo).toBeHidden({ timeout: STATE_HANG_GUARD_MS });
  await expect.poll(async () => (await fileById(gone.id)).status).toBe(404);
  await expect(row(page, 'inverter-label.jpg')).toBeVisible();
  expect(pageProblems(page)).toEqual([]);
});

test('multi-select: tag two files at once, then delete two', async ({ page }) => {
  const project = await demoProject(5);
  const files = [await attach(project.id, 'multi a.jpg', 'a'), await attach(project.id, 'multi b.jpg', 'b'), await attach(project.id, 'multi c.jpg', 'c')];
  await openFiles(page, project);
  await page.getByRole('searchbox', { name: 'Search titles' }).fill('multi');
  await page.getByRole('combobox', { name: 'Sort files' }).selectOption({ label: 'Title A–Z' });
  await expect(page.getByTestId('file-row')).toHaveCount(3);

  // Click one, ctrl-click another.
  await row(page, 'multi a.jpg').click();
  await row(page, 'multi c.jpg').click({ modifiers: ['ControlOrMeta'] });
  await expect(page.getByTestId('file-selection-bar')).toContainText('2 files selected');
  await page.getByRole('button', { name: 'Tags…' }).click();
  await page.getByTestId('tag-menu').getByRole('checkbox', { name: 'Site - Photo', exact: true }).check();
  await expect(row(page, 'multi a.jpg')).toContainText('Site - Photo');
  await expect(row(page, 'multi c.jpg')).toContainText('Site - Photo');
  await expect(row(page, 'multi b.jpg')).not.toContainText('Site - Photo');
  await expect.poll(async () => (await fileById(files[2]!.id)).body.file_tags_data.map((tag) => tag.title)).toEqual(['Site - Photo']);
  await page.getByTestId('tag-menu').press('Escape');

  // Shift-click makes a range: a..b; the checkbox adds c.
  await row(page, 'multi a.jpg').click();
  await row(page, 'multi b.jpg').click({ modifiers: ['Shift'] });
  await expect(page.getByTestId('file-selection-bar')).toContainText('2 files selected');
  await expect(row(page, 'multi a.jpg')).toHaveAttribute('aria-selected', 'true');
  await expect(row(page, 'multi c.jpg')).toHaveAttribute('aria-selected', 'false');

  await page.getByTestId('file-selection-bar').getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByTestId('delete-files-dialog');
  await expect(dialog).toContainText('Delete 2 files?');
  await expect(dialog).toContainText('multi a.jpg');
  await expect(dialog).toContainText('multi b.jpg');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('file-row')).toHaveCount(1);
  await expect(page.getByTestId('undo-delete')).toContainText('Deleted 2 files');
  await expect(page.getByTestId('undo-delete')).toBeHidden({ timeout: STATE_HANG_GUARD_MS });
  await expect.poll(async () => (await projectFiles(project.id)).filter((file) => file.title.startsWith('multi')).map((file) => file.title)).toEqual(['multi c.jpg']);
  expect(pageProblems(page)).toEqual([]);
});

test('keyboard: arrows move, Enter and Space open the viewer, Ctrl+A, Delete asks, F2 renames', async ({ page }) => {
  const project = await demoProject(6);
  await attach(project.id, 'key 1.jpg', '1');
  await attach(project.id, 'key 2.jpg', '2');
  await attach(project.id, 'key 3.jpg', '3');
  await openFiles(page, project);
  await page.getByRole('searchbox', { name: 'Search titles' }).fill('key');
  await page.getByRole('combobox', { name: 'Sort files' }).selectOption({ label: 'Title A–Z' });
  const table = page.getByTestId('files-table');
  await table.focus();
  await page.keyboard.press('ArrowDown');
  await expect(row(page, 'key 2.jpg')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowUp');
  await expect(row(page, 'key 1.jpg')).toHaveAttribute('aria-selected', 'true');
  await expect(row(page, 'key 2.jpg')).toHaveAttribute('aria-selected', 'false');
  await page.keyboard.press('Shift+ArrowDown');
  await expect(page.getByTestId('file-selection-bar')).toContainText('2 files selected');

  const idOf = async (title: string) => row(page, title).getAttribute('data-file-id');
  // Enter and Space open the viewer on the active file (viewer-store; the viewer itself is another part's,
  // and takes Escape to close: with or without it, Escape and a click back on the list carry on).
  await page.keyboard.press('Enter');
  await expect(page.locator('.files-tab')).toHaveAttribute('data-viewing', (await idOf('key 2.jpg'))!);
  await page.keyboard.press('Escape');
  await table.focus();
  await page.keyboard.press('ArrowDown');
  await expect(row(page, 'key 3.jpg')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Space');
  await expect(page.locator('.files-tab')).toHaveAttribute('data-viewing', (await idOf('key 3.jpg'))!);
  await page.keyboard.press('Escape');
  await table.focus();

  await page.keyboard.press('ControlOrMeta+a');
  await expect(page.getByTestId('file-selection-bar')).toContainText('3 files selected');
  await page.keyboard.press('Delete');
  const dialog = page.getByTestId('delete-files-dialog');
  await expect(dialog).toContainText('Delete 3 files?');
  await expect(dialog.getByRole('button', { name: 'Delete' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('file-row')).toHaveCount(3);

  await table.focus();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('file-selection-bar')).toBeHidden();
  await page.keyboard.press('End');
  await page.keyboard.press('F2');
  const input = page.getByRole('textbox', { name: 'New title for key 3.jpg' });
  await expect(input).toBeFocused();
  await page.keyboard.type('key 3 renamed');
  await page.keyboard.press('Enter');
  await expect(row(page, 'key 3 renamed.jpg')).toBeVisible();
  await expect(table).toBeFocused();
  expect(pageProblems(page)).toEqual([]);
});

test('sort (natural titles, size, type), filter by tag, type and date, search by every word', async ({ page }) => {
  const project = await demoProject(9);
  await attach(project.id, 'sortcase photo 10.jpg', 'x'.repeat(3000));
  await attach(project.id, 'sortcase photo 2.jpg', 'x'.repeat(1000));
  await attach(project.id, 'sortcase bill.csv', 'x'.repeat(2000));
  await openFiles(page, project);
  const titles = () => page.getByTestId('file-row').locator('.file-title').allTextContents();
  await page.getByRole('searchbox', { name: 'Search titles' }).fill('sortcase');
  await expect(page.getByTestId('file-row')).toHaveCount(3);

  await page.getByRole('combobox', { name: 'Sort files' }).selectOption({ label: 'Title A–Z' });
  await expect.poll(titles).toEqual(['sortcase bill.csv', 'sortcase photo 2.jpg', 'sortcase photo 10.jpg']);
  await page.getByRole('combobox', { name: 'Sort files' }).selectOption({ label: 'Largest first' });
  await expect.poll(titles).toEqual(['sortcase photo 10.jpg', 'sortcase bill.csv', 'sortcase photo 2.jpg']);
  await page.getByRole('combobox', { name: 'Sort files' }).selectOption({ label: 'Type' });
  await expect.poll(titles).toEqual(['sortcase photo 2.jpg', 'sortcase photo 10.jpg', 'sortcase bill.csv']);

  // Every word, any order, any case.
  await page.getByRole('searchbox', { name: 'Search titles' }).fill('PHOTO sortcase 10');
  await expect.poll(titles).toEqual(['sortcase photo 10.jpg']);
  await expect(page.getByTestId('file-count')).toContainText('1 of');

  await page.getByRole('searchbox', { name: 'Search titles' }).fill('sortcase');
  await page.getByRole('combobox', { name: 'Filter by type' }).selectOption({ label: 'Spreadsheets' });
  await expect.poll(titles).toEqual(['sortcase bill.csv']);
  await page.getByRole('combobox', { name: 'Filter by type' }).selectOption({ label: 'Any type' });

  // Tag filter: tag one of them Site - Utility Bill first.
  await row(page, 'sortcase bill.csv').click();
  await page.getByRole('button', { name: 'Tags…' }).click();
  await page.getByTestId('tag-menu').getByRole('checkbox', { name: 'Site - Utility Bill', exact: true }).check();
  await expect(row(page, 'sortcase bill.csv')).toContainText('Site - Utility Bill');
  await page.getByTestId('tag-menu').press('Escape');
  await page.getByRole('searchbox', { name: 'Search titles' }).fill('');
  await page.getByRole('combobox', { name: 'Filter by tag' }).selectOption({ label: 'Site - Utility Bill' });
  await expect(row(page, 'sortcase bill.csv')).toBeVisible();
  await expect(row(page, 'sortcase photo')).toHaveCount(0);
  await page.getByRole('combobox', { name: 'Filter by tag' }).selectOption({ label: 'Any tag' });

  // Date range: the files changed today; from tomorrow, none.
  await page.getByRole('searchbox', { name: 'Search titles' }).fill('sortcase');
  const day = (offset: number) => {
    const date = new Date(Date.now() + offset * 86_400_000);
    return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
  };
  await page.getByLabel('Changed from').fill(day(0));
  await page.getByLabel('Changed until').fill(day(0));
  await expect(page.getByTestId('file-row')).toHaveCount(3);
  await page.getByLabel('Changed until').fill('');
  await page.getByLabel('Changed from').fill(day(1));
  await expect(page.getByText('No file matches these filters.')).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(page.getByRole('searchbox', { name: 'Search titles' })).toHaveValue('');
  expect(pageProblems(page)).toEqual([]);
});

/** Slows the page's uploads (CDP), so a 20 MB upload takes a few seconds and its progress can be seen. */
async function throttleUploads(page: Page, bytesPerSecond: number) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond });
  return cdp;
}

/**
 * Records, in the page, every text an upload row shows. A finished row leaves the list
 * 2.5 s after it ends (SHOW_FINISHED_MS), so on a loaded machine a slow step (two themes'
 * screenshots) can outlast it: the test then asks what was shown, not what still is.
 */
async function recordUploadRowTexts(page: Page): Promise<(fileName: string) => Promise<string[]>> {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { uploadRowTexts: string[] }).uploadRowTexts = seen;
    const record = () => {
      for (const row of document.querySelectorAll('[data-testid=upload-progress]')) {
        const text = row.textContent ?? '';
        if (!seen.includes(text)) seen.push(text);
      }
    };
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  return async (fileName) => (await page.evaluate(() => (window as unknown as { uploadRowTexts: string[] }).uploadRowTexts)).filter((text) => text.includes(fileName));
}

const partFilesOf = (dataDir: string): string[] => {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (full.includes(`${path.sep}uploads${path.sep}`) && entry.name.endsWith('.part')) found.push(full);
    }
  };
  walk(dataDir);
  return found;
};

test('an upload shows bytes and time left; a cancelled one leaves nothing attached', async ({ page }) => {
  const project = await demoProject(10);
  await openFiles(page, project);
  const big = Buffer.alloc(20 * 1024 * 1024, 7);
  const cdp = await throttleUploads(page, 6 * 1024 * 1024);
  const uploadRowTexts = await recordUploadRowTexts(page);

  await page.locator('.files-actions input[type=file]').setInputFiles({ name: 'drone-survey.bin', mimeType: 'application/octet-stream', buffer: big });
  // Polled from the record: at 6 MB/s the upload takes about 3 s, and a loaded machine can
  // take longer than that to look, by which time the row already says Attached.
  await expect.poll(() => uploadRowTexts('drone-survey.bin')).toContainEqual(expect.stringMatching(/MB of 20 MB, about \d+ s left/));
  await screenshotBothThemes(page, 'files-upload-progress');
  await expect(row(page, 'drone-survey.bin')).toBeVisible({ timeout: STATE_HANG_GUARD_MS });
  await expect.poll(() => uploadRowTexts('drone-survey.bin')).toContainEqual(expect.stringContaining('Attached'));
  await expect.poll(async () => (await projectFiles(project.id)).find((file) => file.title === 'drone-survey.bin')?.filesize).toBe(big.length);

  // Cancel halfway: no file, and no part left on disk. At 6 MB/s the whole upload can end
  // before a loaded machine gets to the click (then there is no Cancel to press); at
  // 512 KB/s it takes 40 s, and a cancel lands after the part in flight (1 MB, 2 s).
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 512 * 1024 });
  await page.locator('.files-actions input[type=file]').setInputFiles({ name: 'cancelled-survey.bin', mimeType: 'application/octet-stream', buffer: big });
  const cancelled = page.getByTestId('upload-progress').filter({ hasText: 'cancelled-survey.bin' });
  await expect(cancelled).toContainText(/[1-9][\d.]* MB of 20 MB/);
  await cancelled.getByRole('button', { name: 'Cancel' }).click();
  await expect.poll(() => uploadRowTexts('cancelled-survey.bin'), { timeout: STATE_HANG_GUARD_MS }).toContainEqual(expect.stringContaining('Cancelled: nothing was attached'));
  await cdp.detach();
  expect((await projectFiles(project.id)).some((file) => file.title === 'cancelled-survey.bin')).toBe(false);
  expect(partFilesOf(app.dataDir)).toEqual([]);
  expect(pageProblems(page)).toEqual([]);
});

test('screens at 800x600 and 1920x1080, light and dark, with a selection', async ({ page }) => {
  const project = await demoProject(13);
  await attach(project.id, 'Roof north face.jpg', 'r');
  await attach(project.id, 'Signed contract 2026-05.pdf', '%PDF-1.4 c');
  await attach(project.id, 'Electricity bill Q2 with a long title that wraps in a narrow window.csv', 'b');
  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    await openFiles(page, project);
    await row(page, 'Roof north face.jpg').click();
    await row(page, 'Signed contract').click({ modifiers: ['ControlOrMeta'] });
    await expect(page.getByTestId('file-selection-bar')).toContainText('2 files selected');
    await screenshotBothThemes(page, `files-manage-${width}x${height}`);
    // Nothing scrolls sideways.
    const overflow = await page.getByTestId('files-table').evaluate((table) => table.scrollWidth - (table.parentElement?.clientWidth ?? table.scrollWidth));
    expect(overflow).toBeLessThanOrEqual(1);
  }
  expect(pageProblems(page)).toEqual([]);
});

test.describe('a server with a small upload limit', () => {
  let small: RunningApp;
  test.beforeAll(async () => {
    small = await startSolarDesk({ extraArgs: ['--max-upload-size', '2M'] });
  });
  test.afterAll(async () => small.stop());

  test('a refused upload says why and what to do, and nothing is attached', async ({ page }) => {
    await openApp(page, small);
    await openProjectByIdentifier(page, 'SD-2026-0007');
    await page.getByRole('tab', { name: 'Files' }).click();
    await page.locator('.files-actions input[type=file]').setInputFiles({ name: 'huge-scan.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(3 * 1024 * 1024, 1) });
    const refused = page.getByTestId('upload-progress').filter({ hasText: 'huge-scan.pdf' });
    await expect(refused).toHaveAttribute('data-state', 'failed');
    await expect(refused.getByRole('alert')).toContainText('huge-scan.pdf was not uploaded: it is too large for this server.');
    await expect(refused.getByRole('alert')).toContainText('at most 2 MiB');
    await expect(refused.getByRole('alert')).toContainText('Make it smaller');
    await screenshotBothThemes(page, 'files-upload-refused');
    const files = await small.api<PrivateFileJson[]>('GET', apiPaths.privateFiles(1), undefined, { project: 7 });
    expect(files.body.some((file) => file.title === 'huge-scan.pdf')).toBe(false);
    expect(partFilesOf(small.dataDir)).toEqual([]);
    await refused.getByRole('button', { name: 'Dismiss' }).click();
    await expect(refused).toHaveCount(0);
    // The refused files.uploadStart is the bridge's 500 answer, which Chromium logs; nothing else may be.
    expect(pageProblems(page).filter((problem) => !/status of 500/.test(problem))).toEqual([]);
  });
});

test('the tag menu offers the shared catalogue, narrowed by the words typed (800x600 and 1920x1080)', async ({ page }) => {
  const project = await demoProject(5);
  await attach(project.id, 'catalogue check.pdf', '%PDF-1.4 catalogue');
  for (const { width, height } of SCREEN_SIZES) {
    await page.setViewportSize({ width, height });
    await openFiles(page, project);
    await row(page, 'catalogue check.pdf').click();
    await page.getByRole('button', { name: 'Tags…' }).click();
    const menu = page.getByTestId('tag-menu');
    await expect(menu.getByRole('checkbox', { name: 'AC Disconnect Location', exact: true })).toBeVisible();
    expect(await menu.getByRole('checkbox').count()).toBeGreaterThanOrEqual(53);
    await screenshotBothThemes(page, `files-tag-menu-${width}x${height}`);
    await menu.getByRole('searchbox', { name: 'Find a tag' }).fill("owner's manual photo");
    await expect(menu.getByRole('checkbox')).toHaveCount(1);
    await expect(menu.getByRole('checkbox', { name: "Owner's Manual - Post-Install Photograph", exact: true })).toBeVisible();
    await screenshotBothThemes(page, `files-tag-menu-found-${width}x${height}`);
    await menu.press('Escape');
  }
  expect(pageProblems(page)).toEqual([]);
});
