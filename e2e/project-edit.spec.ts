// Editing a project: fields validate as they are typed, save on their own, and the
// local API has the new values; usage, stage, roles and contacts too.
import { expect, test } from '@playwright/test';
import { openApp, openProjectByIdentifier, pageProblems, type RunningApp, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';

let app: RunningApp;
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => app.stop());

interface Project {
  title: string;
  notes: string;
  lat: number;
  usage: { usage_data_source: string; values: unknown };
  workflow: { active_stage_id: number };
  assigned_installer_role: string | null;
  contacts_data: { first_name: string; family_name: string; email: string }[];
}

test('an edit shows as saved and is in the local API', async ({ page }) => {
  await openApp(page, app);
  await openProjectByIdentifier(page, 'SD-2026-0025');
  const panel = page.getByTestId('project-panel');
  await expect(panel.getByRole('heading', { level: 1 })).toHaveText('137 Park Street, Paddington');

  await panel.getByLabel('Title', { exact: true }).fill('137 Park Street — new roof');
  await panel.getByLabel('Notes', { exact: true }).fill('Customer wants the battery quote by Friday.');
  await expect(page.getByTestId('save-indicator')).toHaveText('All changes saved');
  await expect(panel.getByRole('heading', { level: 1 })).toHaveText('137 Park Street — new roof');
  // The list row follows the edit.
  await expect(page.getByTestId('project-row').first()).toContainText('137 Park Street — new roof');

  const saved = await app.api<Project>('GET', '/api/orgs/1/projects/25/');
  expect(saved.body.title).toBe('137 Park Street — new roof');
  expect(saved.body.notes).toBe('Customer wants the battery quote by Friday.');

  // Validation as you type, with the engine's own message; nothing invalid is sent.
  const lat = panel.getByLabel('Latitude', { exact: true });
  await lat.fill('not a number');
  await expect(panel.getByText('Latitude must be a number, such as -33.86.')).toBeVisible();
  await expect(page.getByTestId('save-indicator')).toHaveText('1 field to fix');
  expect((await app.api<Project>('GET', '/api/orgs/1/projects/25/')).body.lat).toBe(-33.893169);
  await lat.fill('-33.9');
  await expect(page.getByTestId('save-indicator')).toHaveText('All changes saved');
  await expect.poll(async () => (await app.api<Project>('GET', '/api/orgs/1/projects/25/')).body.lat).toBe(-33.9);
  await screenshotBothThemes(page, 'project-details');
  expect(pageProblems(page)).toEqual([]);
});

test('usage, stage, roles and contacts are edited through their own controls', async ({ page }) => {
  await openApp(page, app);
  await openProjectByIdentifier(page, 'SD-2026-0020');
  const panel = page.getByTestId('project-panel');
  await expect(panel.getByRole('heading', { level: 1 })).toContainText('Waratah');

  const usage = panel.getByTestId('usage-editor');
  await usage.getByLabel('Usage data source').selectOption('kwh_quarterly');
  const quarters = usage.getByRole('textbox');
  await quarters.nth(0).fill('1500');
  await quarters.nth(1).fill('1400');
  await quarters.nth(2).fill('1.5x');
  await expect(usage.getByText('Enter a number of kWh such as 512.')).toBeVisible();
  await quarters.nth(2).fill('1600');
  await quarters.nth(3).fill('1700');
  await expect
    .poll(async () => (await app.api<Project>('GET', '/api/orgs/1/projects/20/')).body.usage)
    .toEqual({ usage_data_source: 'kwh_quarterly', values: [1500, 1400, 1600, 1700] });
  await expect(usage.getByText('About 6,200 kWh a year.')).toBeVisible();

  await panel.getByRole('combobox', { name: 'Stage' }).selectOption({ label: '5. Contract signed' });
  await expect.poll(async () => (await app.api<Project>('GET', '/api/orgs/1/projects/20/')).body.workflow.active_stage_id).toBe(5);

  await panel.getByLabel('Installer').selectOption({ label: 'Sam Nguyen — Installer' });
  await expect.poll(async () => (await app.api<Project>('GET', '/api/orgs/1/projects/20/')).body.assigned_installer_role).toMatch(/\/roles\/2\/$/);

  await panel.getByRole('tab', { name: 'Contacts' }).click();
  const before = (await app.api<Project>('GET', '/api/orgs/1/projects/20/')).body.contacts_data.length;
  await panel.getByRole('button', { name: 'Add a contact' }).click();
  await panel.getByLabel('First name').fill('Grace');
  await panel.getByLabel('Family name').fill('Hopper');
  await panel.getByLabel('Email').fill('grace@');
  await expect(panel.getByText('Enter a valid email address.')).toBeVisible();
  await expect(panel.getByRole('button', { name: 'Add contact' })).toBeDisabled();
  await panel.getByLabel('Email').fill('grace@example.com');
  await panel.getByRole('button', { name: 'Add contact' }).click();
  await expect(panel.getByTestId('contact-card').filter({ hasText: 'Grace Hopper' })).toBeVisible();
  const contacts = (await app.api<Project>('GET', '/api/orgs/1/projects/20/')).body.contacts_data;
  expect(contacts).toHaveLength(before + 1);
  expect(contacts.some((contact) => contact.email === 'grace@example.com')).toBe(true);
  await screenshotBothThemes(page, 'project-contacts');

  await panel.getByTestId('contact-card').filter({ hasText: 'Grace Hopper' }).getByRole('button', { name: 'Remove' }).click();
  await expect(panel.getByTestId('contact-card').filter({ hasText: 'Grace Hopper' })).toHaveCount(0);
  expect((await app.api<Project>('GET', '/api/orgs/1/projects/20/')).body.contacts_data).toHaveLength(before);

  await panel.getByRole('tab', { name: 'Notes' }).click();
  await panel.getByRole('textbox', { name: 'New note' }).fill('Called the customer about the new quote.');
  await panel.getByRole('button', { name: 'Add note' }).click();
  await expect(panel.locator('.timeline')).toContainText('Called the customer about the new quote.');
  expect(pageProblems(page)).toEqual([]);
});
