// Documents made in the app (issue 29, docs/documents.md "In the app"): from the
// project's Documents menu a proposal is made on this computer (the local engine;
// no remote exists here), looked at in the in-app PDF viewer, saved to the project,
// and then shows in the Files tab and in the project folder on disk. At 800x600 and
// 1920x1080, light and dark; the screenshots and the proposal's pages rasterised
// by pdf.js (as the app's thumbnails are) land in test-results/ for a person to look at.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { apiPaths } from '../shared/api-paths.ts';
import { openApp, openProjectByIdentifier, pageProblems, repoRoot, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';
import { STATE_HANG_GUARD_MS } from '../main/testing/hang-guards.ts';
import { renderPdfPages } from '../main/core/pdf-render.ts';

const PROJECT_ID = 1;
const rasterDir = path.join(repoRoot, 'test-results/documents');

let app: RunningApp;
let identifier: string;
test.beforeAll(async () => {
  app = await startSolarDesk();
  identifier = (await app.api<{ identifier: string }>('GET', apiPaths.project(1, PROJECT_ID))).body.identifier;
});
test.afterAll(async () => app.stop());

/** Every file under `folder`, with its path. */
function filesUnder(folder: string): string[] {
  if (!fs.existsSync(folder)) return [];
  return fs.readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

async function openDocumentsMenu(page: Page) {
  await openApp(page, app);
  await openProjectByIdentifier(page, identifier);
  const button = page.getByRole('button', { name: 'Documents…' });
  // Reached from the keyboard: focus it and press Enter.
  await button.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByTestId('documents-dialog');
  await expect(dialog).toBeVisible();
  return { button, dialog };
}

for (const size of SCREEN_SIZES) {
  test(`at ${size.width}x${size.height}: a proposal is made on this computer, seen in the viewer, saved, then in Files and in the project folder`, async ({ page }) => {
    await page.setViewportSize(size);
    const { dialog } = await openDocumentsMenu(page);
    // Defaults are picked: a proposal, the project's system.
    await expect(dialog.getByLabel('Document')).toHaveValue('proposal');
    await expect(dialog.getByLabel('Document').locator('option:checked')).toHaveText('Proposal');
    await screenshotBothThemes(page, `documents-menu-${size.width}x${size.height}`);

    await dialog.getByRole('button', { name: 'Preview' }).click();
    const viewer = dialog.getByTestId('pdf-viewer');
    await expect(viewer).toBeVisible({ timeout: STATE_HANG_GUARD_MS });
    await expect(dialog.getByTestId('pdf-page')).toHaveAttribute('data-rendered-page', '1');
    const pages = Number(await viewer.getAttribute('data-pages'));
    expect(pages).toBeGreaterThan(1);
    // Its pages can be walked from the viewer.
    await dialog.getByRole('button', { name: 'Next page' }).click();
    await expect(dialog.getByTestId('pdf-page-number')).toHaveText(`Page 2 of ${pages}`);
    await expect(dialog.getByTestId('pdf-page')).toHaveAttribute('data-rendered-page', '2');
    await screenshotBothThemes(page, `documents-preview-${size.width}x${size.height}`);

    const before = (await app.api<{ id: number }[]>('GET', apiPaths.privateFiles(1), undefined, { project: PROJECT_ID, limit: 1000 })).body.map((file) => file.id);
    await dialog.getByRole('button', { name: 'Save to project' }).click();
    await expect(dialog.getByTestId('documents-saved')).toContainText('Saved “Proposal:');
    await screenshotBothThemes(page, `documents-saved-${size.width}x${size.height}`);
    const files = (await app.api<{ id: number; title: string; file_hash: string; file_contents: string }[]>('GET', apiPaths.privateFiles(1), undefined, { project: PROJECT_ID, limit: 1000 })).body;
    const saved = files.find((file) => file.title.startsWith('Proposal:') && (!before.includes(file.id) || size.width === 1920));
    expect(saved, 'the proposal is a private file of the project').toBeTruthy();

    await dialog.getByRole('button', { name: 'Show in Files' }).click();
    await expect(dialog).toHaveCount(0);
    const row = page.getByTestId('file-row').filter({ hasText: saved!.title });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText('Generated Document');

    // In the project folder on disk: the same bytes, brought there by the folder watcher's mirror, not by the test.
    const bytes = Buffer.from(await (await fetch(saved!.file_contents)).arrayBuffer());
    await expect
      .poll(() => filesUnder(app.projectFoldersRoot).some((file) => file.endsWith('.pdf') && fs.readFileSync(file).equals(bytes)), { timeout: STATE_HANG_GUARD_MS })
      .toBe(true);

    // Its pages as a customer sees them, for a person to look at.
    fs.mkdirSync(rasterDir, { recursive: true });
    fs.writeFileSync(path.join(rasterDir, `proposal-${size.width}.pdf`), bytes);
    // 702 pixels high: an A4 page at 60 dpi.
    for (const [index, png] of (await renderPdfPages(bytes, 702)).entries()) fs.writeFileSync(path.join(rasterDir, `proposal-${size.width}-${index + 1}.png`), png);
    expect(fs.readdirSync(rasterDir).filter((name) => name.startsWith(`proposal-${size.width}-`) && name.endsWith('.png'))).toHaveLength(pages);
    expect(pageProblems(page)).toEqual([]);
  });
}

test('the menu is keyboard-reachable and Escape closes it; a CSV type previews as a table; a saved document made before the project changed is marked in Files and Regenerate makes a new one', async ({ page }) => {
  const { button, dialog } = await openDocumentsMenu(page);
  await expect(dialog.getByLabel('Document')).toBeFocused();
  await dialog.getByLabel('Document').selectOption({ label: 'Bill calculations' });
  // A type that prints no payment option does not ask for one.
  await expect(dialog.getByLabel('Payment option')).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Preview' }).click();
  const table = dialog.getByTestId('documents-preview').locator('table');
  await expect(table).toBeVisible({ timeout: STATE_HANG_GUARD_MS });
  await expect(table.locator('thead th').first()).toHaveText('Month');
  await expect(table.locator('tbody tr').last()).toContainText('Total');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(button).toBeFocused();

  // A contract saved, then the project's printed facts change: the Files tab marks it and Regenerate makes a new one.
  const saved = await app.api<{ id: number; title: string }>('POST', apiPaths.generateDocument(1, PROJECT_ID, 'contract_only'), undefined, { action: 'save' });
  expect(saved.status).toBe(201);
  expect((await app.api('PATCH', apiPaths.project(1, PROJECT_ID), { title: 'Zara Wang, 21 Victoria Parade (new roof)' })).status).toBe(200);
  await page.getByRole('tab', { name: 'Files' }).click();
  const contracts = page.getByTestId('file-row').filter({ hasText: saved.body.title });
  await expect(contracts).toHaveCount(1);
  const mark = contracts.getByTestId('stale-document');
  await expect(mark).toContainText('Made from older project details');
  await screenshotBothThemes(page, 'documents-stale-in-files');
  await mark.getByRole('button', { name: 'Regenerate' }).click();
  // The new file arrives through the engine's change event; the old one stays, still marked.
  await expect(contracts).toHaveCount(2);
  await expect(page.getByTestId('file-row').filter({ hasText: saved.body.title }).getByTestId('stale-document')).toHaveCount(1);
  await expect(page.locator(`[data-file-id="${saved.body.id}"]`).getByTestId('stale-document')).toBeVisible();
  expect(pageProblems(page)).toEqual([]);
});
