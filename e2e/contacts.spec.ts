// The org's contacts as an installer uses them (issue 27): the Contacts screen finds
// a person by a word of her email, shows the projects she is on and attaches her to
// a second one from that project's Contacts tab; a new contact with an existing
// email or phone is offered as that person instead of made twice (in the project's
// Contacts tab and the New-project form); a delete asks first and names her
// projects. On the embedded store, through the local engine only; nothing is faked.
import { expect, type Page, test } from '@playwright/test';
import { apiPaths } from '../shared/api-paths.ts';
import type { ContactRecordJson } from '../shared/schemas/contact.ts';
import { expectNoSidewaysOverflow, openApp, openProjectByIdentifier, pageProblems, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';

interface Project {
  id: number;
  url: string;
  title: string;
  identifier: string;
  contacts: string[];
  contacts_data: { id: number; url: string; email: string }[];
}

let app: RunningApp;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => {
  await app.stop();
});

async function contactsMatching(words: string): Promise<ContactRecordJson[]> {
  return (await app.api<ContactRecordJson[]>('GET', apiPaths.contacts(1), undefined, { search: words, limit: 1000 })).body;
}
async function allContacts(): Promise<ContactRecordJson[]> {
  return contactsMatching('');
}
async function getProject(id: number): Promise<Project> {
  return (await app.api<Project>('GET', apiPaths.project(1, id))).body;
}
async function projectIdsOf(contact: ContactRecordJson): Promise<number[]> {
  return contact.projects.map((url) => Number(/\/projects\/(\d+)\/?$/.exec(url)![1]));
}
/** A project she is not on. */
async function projectWithout(contact: ContactRecordJson): Promise<Project> {
  const projects = (await app.api<Project[]>('GET', apiPaths.projects(1), undefined, { limit: 1000, ordering: 'id' })).body;
  const hers = new Set(await projectIdsOf(contact));
  return getProject(projects.find((project) => !hers.has(project.id))!.id);
}

async function showContacts(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'SolarDesk' }).getByRole('button', { name: 'Contacts' }).click();
  await expect(page.getByRole('heading', { name: 'Contacts' })).toBeVisible();
}

test('the Contacts screen finds Zara by a word of her email, shows her projects, and she is attached to a second project', async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 600 });
  await openApp(page, app);
  const [zara] = await contactsMatching('zara.wang');
  expect(zara).toBeDefined();
  const hersBefore = await projectIdsOf(zara!);
  expect(hersBefore.length).toBeGreaterThan(0);
  const firstProject = await getProject(hersBefore[0]!);
  const second = await projectWithout(zara!);

  await showContacts(page);
  await page.getByRole('searchbox', { name: 'Search by name, email or phone' }).fill('zara.wang');
  const row = page.getByTestId('contacts-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Zara Wang');
  await expect(row.getByRole('button', { name: firstProject.title, exact: true })).toBeVisible();
  await expectNoSidewaysOverflow(page, { pane: 'main', part: 'main' });
  await screenshotBothThemes(page, 'contacts-800x600');

  // To a second project: its Contacts tab, "Add an existing contact", found as you type.
  await page.getByRole('navigation', { name: 'SolarDesk' }).getByRole('button', { name: 'Projects' }).click();
  await openProjectByIdentifier(page, second.identifier);
  const panel = page.getByTestId('project-panel');
  await panel.getByRole('tab', { name: 'Contacts' }).click();
  await panel.getByRole('button', { name: 'Add an existing contact' }).click();
  const search = panel.getByRole('combobox', { name: 'Find a contact by name, email or phone' });
  await expect(search).toBeFocused();
  await search.fill('wang zara');
  await expect(panel.getByTestId('contact-result')).toHaveCount(1);
  await expectNoSidewaysOverflow(page, { pane: 'main', part: 'main' });
  await screenshotBothThemes(page, 'contacts-attach-800x600');
  await search.press('Enter');
  await expect(panel.getByTestId('contact-card').filter({ hasText: 'Zara Wang' })).toBeVisible();
  await expect.poll(async () => (await getProject(second.id)).contacts_data.map((contact) => contact.id)).toContain(zara!.id);
  expect((await contactsMatching('zara.wang')).length).toBe(1);

  // Back on the Contacts screen she is on the second project too, and its title opens it.
  await page.setViewportSize({ width: 1920, height: 1080 });
  await showContacts(page);
  await page.getByRole('searchbox', { name: 'Search by name, email or phone' }).fill('zara.wang@example');
  await expect(row).toHaveCount(1);
  await expect(row.getByRole('button', { name: second.title, exact: true })).toBeVisible();
  await expectNoSidewaysOverflow(page, { pane: 'main', part: 'main' });
  await screenshotBothThemes(page, 'contacts-1920x1080');
  await row.getByRole('button', { name: second.title, exact: true }).click();
  await expect(panel).toContainText(second.identifier);
  await expect(panel.getByRole('tab', { name: 'Contacts' })).toHaveAttribute('aria-selected', 'true');

  // Detached there, she stays in the org's contacts.
  await panel.getByTestId('contact-card').filter({ hasText: 'Zara Wang' }).getByRole('button', { name: 'Remove' }).click();
  await expect.poll(async () => (await getProject(second.id)).contacts_data.map((contact) => contact.id)).not.toContain(zara!.id);
  expect((await contactsMatching('zara.wang')).length).toBe(1);
  expect(pageProblems(page)).toEqual([]);
});

test('a contact is edited in place: a bad email is shown at its box and never sent, a good edit is saved', async ({ page }) => {
  await openApp(page, app);
  const daniel = (await app.api<ContactRecordJson>('POST', apiPaths.contacts(1), { first_name: 'Daniel', family_name: 'Editable', email: 'daniel.editable@example.com' })).body;
  await showContacts(page);
  await page.getByRole('searchbox', { name: 'Search by name, email or phone' }).fill('editable');
  const row = page.getByTestId('contacts-row');
  await expect(row).toHaveCount(1);
  await row.getByRole('button', { name: /^Edit / }).click();
  await row.getByLabel('Email').fill('daniel@');
  await expect(row.locator('.field-error')).toHaveText('Enter a valid email address.');
  await expect(row.getByRole('button', { name: 'Save contact' })).toBeDisabled();
  await row.getByLabel('Phone').fill('0499 000 111');
  await row.getByLabel('Email').fill('daniel.renamed@example.com');
  await row.getByRole('button', { name: 'Save contact' }).click();
  await expect(row.getByRole('button', { name: 'Save contact' })).toHaveCount(0);
  await expect(row).toContainText('daniel.renamed@example.com');
  const saved = (await app.api<ContactRecordJson>('GET', apiPaths.contact(1, daniel.id))).body;
  expect([saved.email, saved.phone]).toEqual(['daniel.renamed@example.com', '0499 000 111']);
  expect(pageProblems(page)).toEqual([]);
});

test('a new contact with an existing email or phone is offered as that person', async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 600 });
  await openApp(page, app);
  const [zara] = await contactsMatching('zara.wang');
  // The offer speaks of her as her record says (the demo data leaves gender unset: "use them?").
  expect((await app.api('PATCH', apiPaths.contact(1, zara!.id), { gender: 1 })).status).toBe(200);
  const project = await projectWithout(zara!);
  const countBefore = (await allContacts()).length;

  // In a project's Contacts tab: her email, typed in another letter case.
  await openProjectByIdentifier(page, project.identifier);
  const panel = page.getByTestId('project-panel');
  await panel.getByRole('tab', { name: 'Contacts' }).click();
  await panel.getByRole('button', { name: 'Add a contact' }).click();
  await panel.getByLabel('First name').fill('Zara');
  await panel.getByLabel('Email').fill('Zara.Wang@example.com');
  const offer = panel.getByTestId('duplicate-offer');
  await expect(offer).toHaveText(/Zara Wang already has this email: use her\?/);
  await expectNoSidewaysOverflow(page, { pane: 'main', part: 'main' });
  await offer.scrollIntoViewIfNeeded();
  await screenshotBothThemes(page, 'contacts-duplicate-800x600');
  await offer.getByRole('button', { name: 'Use Zara Wang' }).click();
  await expect(panel.getByTestId('contact-card').filter({ hasText: 'Zara Wang' })).toBeVisible();
  await expect(panel.getByLabel('First name')).toHaveCount(0);
  await expect.poll(async () => (await getProject(project.id)).contacts_data.map((contact) => contact.id)).toContain(zara!.id);
  expect((await allContacts()).length).toBe(countBefore);

  // In the New-project form's new customer: her phone, typed without its spaces.
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.getByRole('button', { name: 'New project' }).click();
  const form = page.getByTestId('new-project-form');
  await form.getByLabel('Street address').fill('5 Duplicate Way');
  await form.getByLabel('First name').fill('Z');
  await form.getByLabel('Phone').fill(zara!.phone.replace(/\D/g, ''));
  await expect(form.getByTestId('duplicate-offer')).toHaveText(/Zara Wang already has this phone: use her\?/);
  await form.getByTestId('duplicate-offer').scrollIntoViewIfNeeded();
  await screenshotBothThemes(page, 'contacts-duplicate-new-project-1920x1080');
  await form.getByRole('button', { name: 'Use Zara Wang' }).click();
  await expect(form.getByTestId('chosen-contact')).toContainText('Zara Wang');
  await form.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByTestId('project-panel')).toContainText('5 Duplicate Way');
  expect((await allContacts()).length).toBe(countBefore);
  expect(pageProblems(page)).toEqual([]);
});

test('a delete asks first and names the projects the contact is on', async ({ page }) => {
  await openApp(page, app);
  const projects = (await app.api<Project[]>('GET', apiPaths.projects(1), undefined, { limit: 2, ordering: 'id' })).body;
  const created = (
    await app.api<ContactRecordJson>('POST', apiPaths.contacts(1), { first_name: 'Olive', family_name: 'Departing', email: 'olive.departing@example.com', gender: 1 })
  ).body;
  for (const project of projects) {
    const full = await getProject(project.id);
    expect((await app.api('PATCH', apiPaths.project(1, project.id), { contacts: [...full.contacts_data.map((contact) => contact.url), created.url] })).status).toBe(200);
  }

  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    await showContacts(page);
    await page.getByRole('searchbox', { name: 'Search by name, email or phone' }).fill('departing');
    const row = page.getByTestId('contacts-row');
    await expect(row).toHaveCount(1);
    await row.getByRole('button', { name: 'Delete Olive Departing' }).click();
    const question = row.getByTestId('contact-delete-question');
    await expect(question).toContainText('Delete Olive Departing? She is on 2 projects:');
    for (const project of projects) await expect(question).toContainText(`“${project.title}”`);
    await expectNoSidewaysOverflow(page, { pane: 'main', part: 'main' });
    await screenshotBothThemes(page, `contacts-delete-${size.width}x${size.height}`);
    // Keep: nothing is deleted.
    await question.getByRole('button', { name: 'Keep' }).click();
    await expect(question).toHaveCount(0);
    expect((await app.api('GET', apiPaths.contact(1, created.id))).status).toBe(200);
  }

  const row = page.getByTestId('contacts-row');
  await row.getByRole('button', { name: 'Delete Olive Departing' }).click();
  await row.getByTestId('contact-delete-question').getByRole('button', { name: 'Delete Olive Departing' }).click();
  await expect(page.getByText('Nobody matches “departing”')).toBeVisible();
  expect((await app.api('GET', apiPaths.contact(1, created.id))).status).toBe(404);
  for (const project of projects) expect((await getProject(project.id)).contacts_data.map((contact) => contact.id)).not.toContain(created.id);
  expect(pageProblems(page)).toEqual([]);
});
