// Issue 20 (the project editor): no edit is dropped silently, fields in people's
// terms (switches, number inputs, named values, read-only fields with a reason),
// contact removal with Undo, and the usage editor with cents, marked boxes, units,
// values kept across sources, and one annual figure across tabs.
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { apiPaths } from '../shared/api-paths.ts';
import { FIELD_EDITING } from '../shared/project-fields.ts';
import { openApp, openProjectByIdentifier, pageProblems, repoRoot, type RunningApp, SCREEN_SIZES, startSolarDesk } from './support/solardesk.ts';

let app: RunningApp;
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => app.stop());

interface Project {
  id: number;
  identifier: string;
  priority: number;
  lat: number;
  title: string;
  has_cellular_coverage: number;
  custom_data: Record<string, unknown> | null;
  usage: { usage_data_source: string; values: unknown } | null;
  usage_annual_or_guess: number;
  design: string | null;
  utility_tariff_current_data: unknown;
  contacts: string[];
  contacts_data: { id: number; display: string }[];
}

const projectPath = (id: number) => apiPaths.project(1, id);
const getProject = async (id: number) => (await app.api<Project>('GET', projectPath(id))).body;

/** Opens a demo project by id (its identifier depends on its country and year). */
async function openById(page: Page, id: number): Promise<void> {
  // From a cleared search, so "1 project" is not the list of the previous search.
  const search = page.getByRole('searchbox', { name: 'Search projects' });
  if ((await search.inputValue()) !== '') {
    await search.fill('');
    await expect(page.getByTestId('project-count')).not.toHaveText('1 project');
  }
  await openProjectByIdentifier(page, (await getProject(id)).identifier);
}

/** Screenshots of the editor at the smallest and a large window, light and dark. */
async function screenshotSizes(page: Page, name: string): Promise<void> {
  const dir = path.join(repoRoot, 'test-results', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      await page.screenshot({ path: path.join(dir, `${name}-${size.width}x${size.height}-${theme}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1400, height: 900 });
}

test('invalid values are kept as a draft when leaving the project, and come back with Save / Discard', async ({ page }) => {
  await openApp(page, app);
  await openById(page, 31);
  const panel = page.getByTestId('project-panel');
  const before = await getProject(31);

  const priority = panel.getByLabel('Priority', { exact: true });
  await expect(priority).toHaveAttribute('type', 'number');
  await priority.fill('1.5');
  await panel.getByLabel('Latitude', { exact: true }).fill('-34.97x');
  await expect(page.getByTestId('save-indicator')).toHaveText('2 fields to fix');

  // Another project: the invalid values are not sent, and the user is told they are kept.
  const other = await getProject(32);
  await openById(page, 32);
  await expect(page.getByText(/are kept as a draft: they come back when you open it again/)).toBeVisible();
  await expect(panel).toContainText(other.identifier);
  expect((await getProject(31)).priority).toBe(before.priority);

  // Back: the banner, and the values as typed, still marked.
  await openById(page, 31);
  const banner = page.getByTestId('draft-banner');
  await expect(banner).toContainText('Unsaved changes from');
  await expect(banner).toContainText('Priority');
  await expect(banner).toContainText('Latitude');
  await expect(panel.getByLabel('Priority', { exact: true })).toHaveValue('1.5');
  await expect(panel.getByLabel('Latitude', { exact: true })).toHaveValue('-34.97x');
  await expect(panel.getByLabel('Latitude', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await screenshotSizes(page, 'editor-draft-banner');

  // Another screen and back: still there. A reload (the window closed and opened): still there.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(panel).toHaveCount(0);
  await page.getByRole('button', { name: 'Projects', exact: true }).click();
  await expect(panel.getByLabel('Latitude', { exact: true })).toHaveValue('-34.97x');
  await page.reload();
  await openById(page, 31);
  await expect(page.getByTestId('draft-banner')).toBeVisible();
  await expect(panel.getByLabel('Priority', { exact: true })).toHaveValue('1.5');

  // Fixing one saves it; Discard drops the rest and shows the stored value.
  await panel.getByLabel('Priority', { exact: true }).fill('3');
  await expect.poll(async () => (await getProject(31)).priority).toBe(3);
  await expect(banner).not.toContainText('Priority');
  await banner.getByRole('button', { name: 'Discard' }).click();
  await expect(banner).toHaveCount(0);
  await expect(panel.getByLabel('Latitude', { exact: true })).toHaveValue(String(before.lat));
  await expect(page.getByTestId('save-indicator')).not.toContainText('to fix');
  expect((await getProject(31)).lat).toBe(before.lat);

  // Nothing comes back once discarded.
  await page.reload();
  await openById(page, 31);
  await expect(panel.getByLabel('Priority', { exact: true })).toHaveValue('3');
  await expect(page.getByTestId('draft-banner')).toHaveCount(0);
  expect(pageProblems(page)).toEqual([]);
});

test('a contact form left unsubmitted comes back with the project', async ({ page }) => {
  await openApp(page, app);
  await openById(page, 33);
  const panel = page.getByTestId('project-panel');
  await panel.getByRole('tab', { name: 'Contacts' }).click();
  await panel.getByRole('button', { name: 'Add a contact' }).click();
  await panel.getByLabel('First name').fill('Katherine');
  await page.reload();
  await openById(page, 33);
  await expect(page.getByTestId('draft-banner')).toContainText('New contact');
  await panel.getByRole('tab', { name: 'Contacts' }).click();
  await expect(panel.getByLabel('First name')).toHaveValue('Katherine');
  await panel.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('draft-banner')).toHaveCount(0);
});

test('fields in people’s terms: switches, number inputs, named values, read-only fields with their reason', async ({ page }) => {
  await openApp(page, app);
  await openById(page, 34);
  const panel = page.getByTestId('project-panel');
  for (const section of ['Site', 'Dates and sale', 'Custom fields', 'Lists']) {
    const summary = panel.locator('summary', { hasText: new RegExp(`^${section}$`) });
    if ((await summary.locator('xpath=..').getAttribute('open')) === null) await summary.click();
  }
  // No raw JSON anywhere in the editor.
  await expect(panel.locator('textarea.mono')).toHaveCount(0);
  await expect(panel).not.toContainText('JSON');

  const cellular = panel.getByRole('switch', { name: 'Has cellular coverage' });
  await expect(panel.getByRole('switch', { name: 'Residential' })).toBeVisible();
  const wasOn = (await getProject(34)).has_cellular_coverage !== 0;
  await expect(cellular).toBeChecked({ checked: wasOn });
  await cellular.click();
  await expect.poll(async () => (await getProject(34)).has_cellular_coverage).toBe(wasOn ? 0 : 1);

  for (const label of ['Priority', 'Number of phases', 'Years to simulate']) {
    await expect(panel.getByLabel(label, { exact: true })).toHaveAttribute('type', 'number');
  }
  await panel.getByLabel('Number of storeys', { exact: true }).fill('2');
  await expect.poll(async () => (await getProject(34) as unknown as { number_of_storeys: number }).number_of_storeys).toBe(2);

  // Values set elsewhere (a signed proposal, the office's online account): shown, with why, in an
  // installer's words: no API terms (issue 28, item 3).
  for (const field of ['system_sold', 'payment_option_sold', 'wind_region', 'tags'] as const) {
    const shown = panel.getByTestId(`read-only-${field}`);
    await expect(shown).toBeVisible();
    const hint = shown.locator('xpath=..').locator('.field-hint');
    const editing = FIELD_EDITING[field];
    await expect(hint).toContainText(editing?.control === 'read_only' ? editing.reason : 'a reason');
    await expect(hint).not.toContainText(/\bAPI\b|documented|null or value|hosted service/);
  }
  await expect(panel.getByTestId('read-only-assigned_designer_role_data').locator('xpath=..')).toContainText('SolarDesk shows who it is but cannot change it');

  // custom_data as named values.
  const named = panel.locator('fieldset.named-values');
  await named.getByRole('button', { name: 'Add a value' }).click();
  const rows = named.locator('.named-value');
  const last = rows.last();
  await last.getByPlaceholder('Name').fill('roof_colour');
  await last.getByPlaceholder('Value').fill('Monument grey');
  await expect.poll(async () => (await getProject(34)).custom_data?.roof_colour).toBe('Monument grey');
  await screenshotSizes(page, 'editor-details');
  expect(pageProblems(page)).toEqual([]);
});

test('removing a contact can be undone, and the activity log records the removal', async ({ page }) => {
  await openApp(page, app);
  let id = 35;
  while ((await getProject(id)).contacts_data.length === 0) id++;
  await openById(page, id);
  const panel = page.getByTestId('project-panel');
  const before = await getProject(id);
  const contact = before.contacts_data[0]!;

  await panel.getByRole('tab', { name: 'Contacts' }).click();
  const card = panel.getByTestId('contact-card').filter({ hasText: contact.display });
  await card.getByRole('button', { name: 'Remove' }).click();
  const undo = panel.getByTestId('contact-undo');
  await expect(undo).toContainText(`Removed ${contact.display}`);
  await expect.poll(async () => (await getProject(id)).contacts.length).toBe(before.contacts.length - 1);
  await screenshotSizes(page, 'editor-contacts-undo');
  await undo.getByRole('button', { name: 'Undo' }).click();
  await expect(undo).toHaveCount(0);
  await expect(card).toBeVisible();
  await expect.poll(async () => (await getProject(id)).contacts).toEqual(before.contacts);

  await panel.getByRole('tab', { name: 'Notes' }).click();
  await expect(panel.locator('.timeline')).toContainText(`Contact removed: ${contact.display}`);
  await expect(panel.locator('.timeline')).toContainText(`Contact added: ${contact.display}`);
  await screenshotSizes(page, 'editor-notes');
  expect(pageProblems(page)).toEqual([]);
});

test('usage: bills with cents, the box at fault marked, units labelled, values kept across sources', async ({ page }) => {
  await openApp(page, app);
  await openById(page, 36);
  const panel = page.getByTestId('project-panel');
  const usage = panel.getByTestId('usage-editor');
  const source = usage.getByLabel('Usage data source');
  const boxes = usage.locator('.usage-value input');

  await source.selectOption('kwh_monthly');
  await expect(boxes).toHaveCount(12);
  await expect(usage).not.toContainText('KWh');
  await expect(usage.locator('.usage-value').first()).toContainText('Jan (kWh)');
  for (let month = 0; month < 12; month++) await boxes.nth(month).fill(String(400 + month * 10));
  await expect.poll(async () => (await getProject(36)).usage).toEqual({ usage_data_source: 'kwh_monthly', values: Array.from({ length: 12 }, (_, month) => 400 + month * 10) });

  // Monthly kWh summed into the year; back to monthly restores the months.
  await source.selectOption('kwh_annual');
  await expect(boxes).toHaveCount(1);
  await expect(boxes.first()).toHaveValue('5460');
  await expect(usage).toContainText('Worked out from the kWh each month');
  // Saved before switching back (as on a loaded machine, or a person who pauses): the months typed are still kept.
  await expect.poll(async () => (await getProject(36)).usage).toEqual({ usage_data_source: 'kwh_annual', values: 5460 });
  await expect(page.getByTestId('save-indicator')).toHaveText('All changes saved');
  await source.selectOption('kwh_monthly');
  await expect(boxes.nth(11)).toHaveValue('510');

  // Bills: cents accepted, sent as whole amounts, in the project's currency; not converted from kWh.
  await source.selectOption('bill_monthly');
  await expect(boxes.first()).toHaveValue('');
  await expect(usage).toContainText('figures are kept: choose that source again to get them back');
  const project = await getProject(36);
  const currency = (project.utility_tariff_current_data as { currency?: string } | null)?.currency ?? 'AUD';
  await expect(usage.locator('.usage-value').first()).toContainText(`Jan (${currency})`);
  for (let month = 0; month < 12; month++) await boxes.nth(month).fill('226.40');
  await expect(usage).toContainText('cents are allowed and rounded to whole amounts when saved');
  await expect.poll(async () => (await getProject(36)).usage).toEqual({ usage_data_source: 'bill_monthly', values: Array(12).fill(226) });

  // A bad box: that box marked, a message in words, nothing sent.
  await boxes.nth(4).fill('22x');
  await expect(boxes.nth(4)).toHaveAttribute('aria-invalid', 'true');
  await expect(boxes.nth(3)).not.toHaveAttribute('aria-invalid', 'true');
  await expect(usage.locator('.usage-value').nth(4)).toContainText('Enter an amount such as 226.40.');
  await expect(usage).toContainText('One box needs fixing: it is marked.');
  await expect(usage).not.toContainText('bill_monthly');
  await screenshotSizes(page, 'editor-usage');
  await boxes.nth(4).fill('231.05');
  await expect.poll(async () => ((await getProject(36)).usage?.values as number[])[4]).toBe(231);
  expect(pageProblems(page)).toEqual([]);
});

test('Details and Design show one annual usage figure', async ({ page }) => {
  // A designed project billed on a known tariff: where the two figures used to differ.
  const list = (await app.api<Project[]>('GET', apiPaths.projects(1), undefined, { fieldset: 'studio', limit: 200 })).body;
  let chosen: Project | null = null;
  for (const row of list) {
    if (!row.usage?.usage_data_source.startsWith('bill_')) continue;
    const detail = await getProject(row.id);
    if (detail.design && detail.utility_tariff_current_data) {
      chosen = detail;
      break;
    }
  }
  expect(chosen, 'the demo data has a designed project billed on a tariff').not.toBeNull();
  await openApp(page, app);
  await openProjectByIdentifier(page, chosen!.identifier);
  const panel = page.getByTestId('project-panel');
  const figure = new Intl.NumberFormat('en-US').format(chosen!.usage_annual_or_guess);
  await expect(panel.getByTestId('usage-annual')).toContainText(`About ${figure} kWh a year.`);
  await panel.getByRole('tab', { name: 'Design' }).click();
  await expect(panel.locator('.system-specs').first()).toContainText(`${figure} kWh/yr`);
});
