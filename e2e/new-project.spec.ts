// "New project" as an installer uses it (issue 27): from the project list on the
// embedded store, with a new customer and with one found by a word of her email;
// the project shows in the list and its folder appears on disk. Signed in to a real
// `solardesk server` with the network cut, a project made in the van reaches the
// server with its customer once the network is back. What the engine refuses shows
// beside its box. Only the network between the agent and the server is faked (the
// sync suite's fault proxy).
import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { apiPaths } from '../shared/api-paths.ts';
import type { ContactJson } from '../shared/schemas/contact.ts';
import { expectNoSidewaysOverflow, openApp, pageProblems, type RunningApp, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';
import { startRemoteServer, submitSignIn, type RemoteServer } from './support/remote-server.ts';
import { STATE_HANG_GUARD_MS } from '../main/testing/hang-guards.ts';

interface CreatedProject {
  id: number;
  title: string;
  address: string;
  contacts_data: ContactJson[];
}

let app: RunningApp;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => {
  await app.stop();
});

/** The embedded store's projects whose text matches `words`, through the local API. */
async function localProjects(words: string): Promise<CreatedProject[]> {
  return (await app.api<CreatedProject[]>('GET', apiPaths.projects(1), undefined, { search: words })).body;
}

/** The folder the watcher made for a project of this title, once it exists (`<title> (<id>)`). */
async function expectFolderFor(root: string, title: string): Promise<void> {
  await expect.poll(() => (fs.existsSync(root) ? fs.readdirSync(root) : []).some((name) => name.startsWith(`${title} (`)), { timeout: STATE_HANG_GUARD_MS }).toBe(true);
}

test('a project with a new customer is created from the list button, shows in the list, and gets its folder', async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 600 });
  await openApp(page, app);
  await expect(page.getByTestId('project-count')).toHaveText('48 projects');
  await page.getByRole('button', { name: 'New project' }).click();
  const form = page.getByTestId('new-project-form');
  await expect(form.getByLabel('Street address')).toBeFocused();

  // Every box is reached by Tab, in order, from the address.
  const order: string[] = [];
  for (let step = 0; step < 5; step++) {
    order.push(await page.evaluate(() => document.activeElement?.id ? document.querySelector(`label[for="${document.activeElement.id}"]`)?.textContent ?? '' : ''));
    await page.keyboard.press('Tab');
  }
  expect(order).toEqual(['Street address', 'Suburb or town', 'State', 'Postcode', 'Country']);

  await form.getByLabel('Street address').fill('14 Banksia Rise');
  await form.getByLabel('Suburb or town').fill('Bowral');
  await form.getByLabel('State').fill('NSW');
  await form.getByLabel('Postcode').fill('2576');
  await form.getByLabel('Country').selectOption({ label: 'Australia' });
  await form.getByLabel('Kind of site').selectOption({ label: 'Commercial' });
  await form.getByLabel('Lead source').fill('Home show');
  await form.getByLabel('Roof type').selectOption({ label: 'Tile Clay' });
  await form.getByLabel('Assigned to').selectOption({ index: 1 });
  const assignee = await form.getByLabel('Assigned to').evaluate((select: HTMLSelectElement) => select.value);
  await form.getByLabel('Notes').fill('Dog in the yard.');
  await form.getByLabel('First name').fill('Priya');
  await form.getByLabel('Family name').fill('Raman');
  await form.getByLabel('Email').fill('priya.raman@example.com');
  await form.getByLabel('Phone').fill('0412 345 678');
  await expectNoSidewaysOverflow(page, { pane: '.detail-pane', part: '[data-testid="new-project-form"]' });
  await form.getByLabel('Street address').scrollIntoViewIfNeeded();
  await screenshotBothThemes(page, 'new-project-form-800x600');
  await form.getByLabel('Email').scrollIntoViewIfNeeded();
  await screenshotBothThemes(page, 'new-project-form-800x600-customer');

  await form.getByLabel('Phone').press('Enter');
  await expect(form).toHaveCount(0);
  await expect(page.getByTestId('project-panel')).toContainText('14 Banksia Rise');
  await page.getByRole('searchbox', { name: 'Search projects' }).fill('Banksia Rise');
  await expect(page.getByTestId('project-count')).toHaveText('1 project');
  await expect(page.getByTestId('project-row')).toContainText('Priya Raman');

  const [created] = await localProjects('Banksia Rise');
  const project = (await app.api<Record<string, unknown> & CreatedProject>('GET', apiPaths.project(1, created!.id))).body;
  expect([project.locality, project.state, project.zip, project.country_iso2, project.is_residential, project.lead_source, project.notes, project.assigned_role]).toEqual([
    'Bowral', 'NSW', '2576', 'AU', false, 'Home show', 'Dog in the yard.', assignee,
  ]);
  expect(String(project.roof_type)).toMatch(/\/api\/roof_types\/19\/$/);
  expect(project.contacts_data.map((contact) => [contact.first_name, contact.family_name, contact.email])).toEqual([['Priya', 'Raman', 'priya.raman@example.com']]);
  await expectFolderFor(app.projectFoldersRoot, '14 Banksia Rise');
  expect(pageProblems(page)).toEqual([]);
});

test('Ctrl+N starts a project for an existing customer, found by a word of her email', async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  await openApp(page, app);
  await expect(page.getByTestId('project-list')).toBeVisible();
  const zara = (await app.api<ContactJson[]>('GET', apiPaths.contacts(1), undefined, { search: 'zara.wang' })).body;
  expect(zara).toHaveLength(1);
  const contactCount = async () => (await app.api<ContactJson[]>('GET', apiPaths.contacts(1), undefined, { limit: 1000 })).body.length;
  const contactsBefore = await contactCount();

  await page.getByTestId('project-list').focus();
  await page.keyboard.press('Control+n');
  const form = page.getByTestId('new-project-form');
  await expect(form.getByLabel('Street address')).toBeFocused();
  await form.getByLabel('Street address').fill('2 Wattle Lane');
  await form.getByRole('radio', { name: 'Existing contact' }).click();
  const search = form.getByRole('combobox', { name: 'Find a contact by name, email or phone' });
  await search.fill('zara.wang');
  await expect(form.getByTestId('contact-result')).toHaveCount(1);
  await expect(form.getByTestId('contact-result')).toContainText('Zara Wang');
  await expect(form.getByTestId('contact-result')).toContainText('zara.wang@example.com');
  await search.press('Enter');
  await expect(form.getByTestId('chosen-contact')).toContainText('Zara Wang');
  await expectNoSidewaysOverflow(page, { pane: '.detail-pane', part: '[data-testid="new-project-form"]' });
  await screenshotBothThemes(page, 'new-project-form-1920x1080');

  await form.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByTestId('project-panel')).toContainText('2 Wattle Lane');
  const [created] = await localProjects('Wattle Lane');
  expect(created!.contacts_data.map((contact) => contact.id)).toEqual([zara[0]!.id]);
  expect(await contactCount()).toBe(contactsBefore);
  await page.getByRole('searchbox', { name: 'Search projects' }).fill('Wattle Lane');
  await expect(page.getByTestId('project-count')).toHaveText('1 project');
  await expectFolderFor(app.projectFoldersRoot, '2 Wattle Lane');
  expect(pageProblems(page)).toEqual([]);
});

test('a search with no result offers a new project; what the engine refuses shows beside its box and nothing is made', async ({ page }) => {
  await openApp(page, app);
  await page.getByRole('searchbox', { name: 'Search projects' }).fill('Quokka Crescent');
  await expect(page.getByText('No project matches “Quokka Crescent”')).toBeVisible();
  await page.getByTestId('project-list-empty').getByRole('button', { name: 'New project' }).click();
  const form = page.getByTestId('new-project-form');
  await form.getByLabel('Street address').fill('9 Quokka Crescent');
  await form.getByRole('radio', { name: 'Not yet' }).click();
  await form.getByText('Exact location (optional)').click();
  // A postcode unlike the country's is a warning beside its box, never a refusal.
  await form.getByLabel('Country').selectOption('AU');
  await form.getByLabel('Postcode').fill('50x45');
  await expect(form.locator('[data-box="zip"] .field-warning')).toContainText('Postal codes in Australia are 4 digits');
  // A latitude of 134 cannot be true: the engine's own rule (shared/field-rules.ts) says so at the box, before anything is sent.
  await form.getByLabel('Latitude').fill('134');
  await form.getByLabel('Street address').press('Enter');
  const latitudeError = form.locator('[data-box="lat"] .field-error');
  await expect(latitudeError).toHaveText('Latitude must be between -90 and 90.');
  await expect(form.getByLabel('Latitude')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByLabel('Latitude')).toBeFocused();
  expect(await localProjects('Quokka Crescent')).toEqual([]);

  // A bad email is refused before anything is sent, beside the Email box.
  await form.getByLabel('Latitude').fill('-34.48');
  await expect(latitudeError).toHaveCount(0);
  await form.getByRole('radio', { name: 'New customer' }).click();
  await form.getByLabel('First name').fill('Zed');
  await form.getByLabel('Email').fill('zed@');
  await form.getByLabel('Email').press('Enter');
  await expect(form.locator('[data-box="contact.email"] .field-error')).toHaveText('Enter a valid email address.');
  expect(await localProjects('Quokka Crescent')).toEqual([]);
  await screenshotBothThemes(page, 'new-project-form-refused');

  // Esc cancels: the form goes, nothing was made.
  await page.keyboard.press('Escape');
  await expect(form).toHaveCount(0);
  expect(await localProjects('Quokka Crescent')).toEqual([]);
  expect(pageProblems(page)).toEqual([]);
});

test.describe('signed in to a server', () => {
  let remote: RemoteServer;
  let synced: RunningApp;
  test.beforeAll(async () => {
    remote = await startRemoteServer();
    // A short sync interval, so the test waits seconds, not the default half minute, for the agent to notice the network.
    synced = await startSolarDesk({ extraArgs: ['--sync-interval', '2'] });
  });
  test.afterAll(async () => {
    await synced?.stop();
    await remote?.stop();
  });

  test('a project created with the network cut reaches the server with its customer once the network is back', async ({ page }) => {
    await openApp(page, synced);
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    await submitSignIn(page, remote);
    await expect(page.getByTestId('sync-pill')).toHaveText(/Synced/, { timeout: STATE_HANG_GUARD_MS });
    await page.getByRole('button', { name: 'Projects' }).click();
    await expect(page.getByTestId('project-count')).toHaveText('48 projects', { timeout: STATE_HANG_GUARD_MS });

    remote.proxy.setOffline(true);
    await page.getByRole('button', { name: 'New project' }).click();
    const form = page.getByTestId('new-project-form');
    await form.getByLabel('Street address').fill('3 Offline Court');
    await form.getByLabel('Suburb or town').fill('Mudgee');
    await form.getByLabel('First name').fill('Noor');
    await form.getByLabel('Family name').fill('Haddad');
    await form.getByLabel('Email').fill('noor.haddad@example.com');
    await form.getByLabel('Email').press('Enter');
    await expect(page.getByTestId('project-panel')).toContainText('3 Offline Court');
    await expect(page.getByTestId('sync-pill')).toHaveText(/Offline/, { timeout: STATE_HANG_GUARD_MS });
    const onServer = async () => (await remote.api<CreatedProject[]>('GET', `${apiPaths.projects(1)}?search=${encodeURIComponent('Offline Court')}`)).body;
    expect(await onServer()).toEqual([]);

    remote.proxy.setOffline(false);
    await expect.poll(async () => (await onServer()).length, { timeout: STATE_HANG_GUARD_MS }).toBe(1);
    const [project] = await onServer();
    expect(project!.address).toBe('3 Offline Court');
    expect(project!.contacts_data.map((contact) => [contact.first_name, contact.family_name, contact.email])).toEqual([['Noor', 'Haddad', 'noor.haddad@example.com']]);
    await expect(page.getByTestId('sync-pill')).toHaveText('Synced', { timeout: STATE_HANG_GUARD_MS });
    expect(pageProblems(page)).toEqual([]);
  });
});
