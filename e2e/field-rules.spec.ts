// Issue 27, "Validation", in the app: a value that breaks a rule of shared/field-rules.ts
// is shown with its message beside its box and never sent (the last good value stays
// in the API); a postal code that does not look like its country's gets a warning and
// is saved all the same. Both in the project Details tab (which saves as you type) and
// in the contact editor of the Contacts tab.
import { expect, test, type Page } from '@playwright/test';
import { apiPaths } from '../shared/api-paths.ts';
import { openApp, openProjectByIdentifier, pageProblems, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';

let app: RunningApp;
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => app.stop());

interface Project {
  lat: number | null;
  zip: string;
  country_iso2: string;
  notes: string;
  modified_date: string;
  contacts_data: { id: number; first_name: string; family_name: string; email: string }[];
}

const PROJECT_PATH = apiPaths.project(1, 25);

/** Every body the page sends through the bridge (browser mode: POST /bridge/invoke), to show what never left it. */
function recordSentBodies(page: Page): string[] {
  const bodies: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname.startsWith('/bridge/')) bodies.push(request.postData() ?? '');
  });
  return bodies;
}

/** Screenshots at the two sizes the brief names, light and dark, with `focus` in view. */
async function screenshotAtBothSizes(page: Page, name: string, focus: ReturnType<Page['locator']>): Promise<void> {
  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    // Centred, so the boxes around it (the zip above the latitude) are in the picture too.
    await focus.evaluate((element) => element.scrollIntoView({ block: 'center' }));
    await screenshotBothThemes(page, `${name}-${size.width}x${size.height}`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });
}

test('a latitude of 134 and a bad email are shown at their boxes and never sent; a zip that does not fit its country is a warning and is saved', async ({ page }) => {
  const sent = recordSentBodies(page);
  await openApp(page, app);
  await openProjectByIdentifier(page, 'SD-2026-0025');
  const panel = page.getByTestId('project-panel');
  const stored = (await app.api<Project>('GET', PROJECT_PATH)).body;
  expect(stored.lat).toBe(-33.893169);
  expect(stored.country_iso2).toBe('AU');

  // The Details tab saves as you type: a latitude off the globe stays in the box with its message, unsent.
  const lat = panel.getByLabel('Latitude', { exact: true });
  // The message is in the box's own field (the has-locator is relative to each .field).
  const latField = panel.locator('.field').filter({ has: page.getByLabel('Latitude', { exact: true }) });
  await lat.fill('134');
  await expect(latField.locator('.field-error')).toHaveText('Latitude must be between -90 and 90.');
  await expect(lat).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('save-indicator')).toHaveText('1 field to fix');
  // Another field typed meanwhile is saved on its own; the bad latitude does not go with it.
  await panel.getByLabel('Notes', { exact: true }).fill('Roof checked from the street.');
  await expect.poll(async () => (await app.api<Project>('GET', PROJECT_PATH)).body.notes).toBe('Roof checked from the street.');
  await expect(page.getByTestId('save-indicator')).toHaveText('1 field to fix');
  expect((await app.api<Project>('GET', PROJECT_PATH)).body.lat).toBe(-33.893169);

  // A postcode that is not 4 digits in Australia: a warning at the box, and it is saved.
  const zip = panel.getByLabel('Postal code', { exact: true });
  await zip.fill('50x45');
  await expect(panel.getByTestId('warning-zip')).toHaveText('Postal codes in Australia are 4 digits, such as 2000: check "50x45" before it goes on a proposal.');
  await expect.poll(async () => (await app.api<Project>('GET', PROJECT_PATH)).body.zip).toBe('50x45');
  await screenshotAtBothSizes(page, 'field-rules-details', latField);

  await zip.fill(stored.zip);
  await expect(panel.getByTestId('warning-zip')).toHaveCount(0);
  await expect.poll(async () => (await app.api<Project>('GET', PROJECT_PATH)).body.zip).toBe(stored.zip);

  // The contact editor: a bad email is shown at its box, and Save cannot send it.
  await panel.getByRole('tab', { name: 'Contacts' }).click();
  const card = panel.getByTestId('contact-card').first();
  const contact = stored.contacts_data[0]!;
  await card.getByRole('button', { name: 'Edit' }).click();
  const email = card.getByLabel('Email');
  await email.fill('zara@');
  await expect(card.locator('.field').filter({ has: page.getByLabel('Email') }).locator('.field-error')).toHaveText('Enter a valid email address.');
  await expect(card.getByRole('button', { name: 'Save contact' })).toBeDisabled();
  await email.press('Enter');
  await screenshotAtBothSizes(page, 'field-rules-contact', card);

  const contactRead = await app.api<{ email: string }>('GET', apiPaths.contact(1, contact.id));
  expect(contactRead.body.email).toBe(contact.email);
  const after = (await app.api<Project>('GET', PROJECT_PATH)).body;
  expect(after.lat).toBe(-33.893169);
  // Nothing the page sent carried the latitude or the bad email: they never left the boxes.
  expect(sent.some((body) => body.includes('"notes"'))).toBe(true);
  expect(sent.filter((body) => /"lat"\s*:/.test(body))).toEqual([]);
  expect(sent.filter((body) => body.includes('zara@'))).toEqual([]);
  expect(pageProblems(page)).toEqual([]);
});
