// Webhooks: create one with the pickers, see it listed, change a watched field,
// and see the delivery in the log and at a real receiver on 127.0.0.1.
import { expect, test } from '@playwright/test';
import { startWebhookReceiver, type WebhookReceiver } from '../main/engine/testing/webhook-receiver.ts';
import { openApp, pageProblems, type RunningApp, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';

let app: RunningApp;
let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // The receiver is on loopback, which the engine refuses by default.
  app = await startSolarDesk({ extraArgs: ['--allow-private-webhook-endpoints'] });
});
test.afterAll(async () => {
  await app.stop();
  await receiver.close();
});

test('a webhook is created, listed, delivers on a change, and shows the delivery', async ({ page }) => {
  await openApp(page, app);
  await page.getByRole('button', { name: 'Webhooks' }).click();
  await expect(page.getByText('No webhooks yet')).toBeVisible();
  await page.getByRole('button', { name: 'New webhook' }).click();
  const editor = page.getByTestId('webhook-editor');

  // The pickers start from the documented defaults.
  await expect(editor.getByTestId('picker-trigger-fields')).toContainText('project.notes');
  await expect(editor.getByTestId('picker-payload-fields')).toContainText('project.contacts_data.email');
  await expect(editor.getByRole('button', { name: 'Create webhook' })).toBeDisabled();

  await editor.getByLabel('Endpoint').fill('not a url');
  await expect(editor.getByText('Enter a full URL')).toBeVisible();
  await editor.getByLabel('Endpoint').fill(`${receiver.url}/hooks/solar`);

  // Narrow the triggers to one path, offered from the documented list.
  const triggers = editor.getByTestId('picker-trigger-fields');
  await triggers.getByRole('button', { name: 'Clear' }).click();
  await triggers.getByRole('combobox').fill('project.site_notes');
  await triggers.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(triggers.locator('.chip')).toHaveText(['project.site_notes×']);
  await triggers.getByRole('combobox').fill('nonsense');
  await expect(triggers.getByText('A path starts with a model')).toBeVisible();
  await triggers.getByRole('combobox').fill('');

  const headers = editor.getByLabel('Headers (JSON)');
  await headers.fill('{"X-Api-Key": ');
  await expect(editor.getByText(/Not valid JSON/)).toBeVisible();
  await expect(editor.getByRole('button', { name: 'Create webhook' })).toBeDisabled();
  await headers.fill('{"X-Api-Key": "e2e-secret"}');
  await editor.getByRole('button', { name: 'Create webhook' }).click();

  const item = page.getByTestId('webhook-item').filter({ hasText: '/hooks/solar' });
  await expect(item).toBeVisible();
  await expect(item).toContainText('1 triggers');
  const listed = await app.api<{ endpoint: string; trigger_fields: string[] }[]>('GET', '/api/orgs/1/webhooks/');
  expect(listed.body.map((webhook) => webhook.trigger_fields)).toEqual([['project.site_notes']]);

  // A change to the watched field is delivered, with the headers, and logged.
  await app.api('PATCH', '/api/orgs/1/projects/3/', { site_notes: 'Ladder access on the east side.' });
  const [call] = await receiver.waitForCalls(1, 30_000);
  expect(call!.headers['x-api-key']).toBe('e2e-secret');
  await expect(page.getByTestId('delivery-row').first()).toContainText('Delivered');
  await screenshotBothThemes(page, 'webhooks');

  // Disabled from the list: the engine stores it.
  await item.getByRole('checkbox').uncheck();
  await expect.poll(async () => (await app.api<{ enabled: boolean }[]>('GET', '/api/orgs/1/webhooks/')).body[0]!.enabled).toBe(false);
  expect(pageProblems(page)).toEqual([]);
});
