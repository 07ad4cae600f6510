// Webhooks to this computer and the local network as a setting in the app (issue 28,
// item 5): off by default with the reason beside it; the editor warns before saving an
// endpoint it would refuse; a test delivery's result reads as one sentence and shows in the
// delivery log; turned on, a test to a receiver this test starts on 127.0.0.1 arrives. The
// app is started without --allow-private-webhook-endpoints: the setting alone decides.
import { expect, test, type Page } from '@playwright/test';
import { startWebhookReceiver, type WebhookReceiver } from '../main/engine/testing/webhook-receiver.ts';
import { LOCAL_WEBHOOKS_SETTING } from '../shared/local-webhooks.ts';
import { openApp, pageProblems, type RunningApp, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';

let app: RunningApp;
let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
  app = await startSolarDesk();
});
test.afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

async function localWebhooksSwitch(page: Page) {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  return page.getByTestId('local-webhooks').getByRole('switch', { name: LOCAL_WEBHOOKS_SETTING });
}

/** Whether two boxes share any area. */
function overlaps(a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

test('the local-endpoint setting: off, the editor warns and a test says why in one sentence, logged; on, a test to 127.0.0.1 arrives and is logged', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openApp(page, app);

  // Off by default, with the reason given.
  const localSwitch = await localWebhooksSwitch(page);
  await expect(localSwitch).not.toBeChecked();
  await expect(page.getByTestId('local-webhooks')).toContainText('services on this computer or your office network');

  // The editor warns while the endpoint is typed, before anything is saved.
  await page.getByRole('button', { name: 'Webhooks', exact: true }).click();
  await page.getByRole('button', { name: 'New webhook' }).click();
  const editor = page.getByTestId('webhook-editor');
  await editor.getByLabel('Endpoint').fill('https://hooks.example.com/solar');
  await expect(editor.getByTestId('local-endpoint-warning')).toHaveCount(0);
  await editor.getByLabel('Endpoint').fill(`${receiver.url}/hooks/local`);
  await expect(editor.getByTestId('local-endpoint-warning')).toContainText(`turn on “${LOCAL_WEBHOOKS_SETTING}” in Settings`);
  await editor.getByRole('button', { name: 'Create webhook' }).click();

  // "Webhook created" sits in its own strip: it covers no control, Download CSV included (item 10). Both boxes
  // are read in one go in the page while the toast shows (it goes after a few seconds).
  const boxes = await page.waitForFunction(() => {
    const toast = [...document.querySelectorAll('.toast')].find((element) => element.textContent?.includes('Webhook created'));
    const download = [...document.querySelectorAll('button')].find((element) => element.textContent?.trim() === 'Download CSV');
    if (!toast || !download) return null;
    const box = (element: Element) => {
      const { x, y, width, height } = element.getBoundingClientRect();
      return { x, y, width, height };
    };
    return { toast: box(toast), download: box(download) };
  });
  const { toast, download } = (await boxes.jsonValue())!;
  expect(overlaps(toast, download)).toBe(false);
  await expect(page.getByText('No deliveries yet')).toBeVisible();

  // A test is refused, in one sentence that says what to do, with no time beside it; the log shows it.
  await editor.getByRole('button', { name: 'Send test delivery' }).click();
  const result = page.getByTestId('test-result');
  await expect(result).toContainText(`Not delivered: the endpoint resolves to a non-public address (127.0.0.1); to deliver to it, turn on “${LOCAL_WEBHOOKS_SETTING}” in Settings.`);
  await expect(result).not.toContainText(/\d+ ms|no answer|--allow/);
  const rows = page.getByTestId('delivery-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Test delivery');
  await expect(rows.first()).toContainText('Failed');
  await expect(page.getByText('No deliveries yet')).toHaveCount(0);
  expect(receiver.calls).toHaveLength(0);
  await screenshotBothThemes(page, 'webhooks-local-refused');

  // Turned on: no warning, and a test reaches the receiver on 127.0.0.1 and is logged as delivered.
  // A click, then the state: the switch follows the saved setting once the app has kept it (check() wants it at once).
  await (await localWebhooksSwitch(page)).click();
  await expect(await localWebhooksSwitch(page)).toBeChecked();
  await page.getByRole('button', { name: 'Webhooks', exact: true }).click();
  await page.getByTestId('webhook-item').filter({ hasText: '/hooks/local' }).getByRole('button').first().click();
  await expect(editor.getByTestId('local-endpoint-warning')).toHaveCount(0);
  await editor.getByRole('button', { name: 'Send test delivery' }).click();
  await expect(result).toContainText(/^Delivered: the endpoint answered HTTP 200 in \d+ ms\./);
  const [arrived] = await receiver.waitForCalls(1, 30_000);
  expect(arrived!.headers['x-solardesk-test']).toBe('1');
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText('Delivered');
  await expect(rows.first()).toContainText('Test delivery');
  await screenshotBothThemes(page, 'webhooks-local-delivered');

  // The setting survives a reload (it is kept with the other settings, not in the page).
  await page.reload();
  await expect(await localWebhooksSwitch(page)).toBeChecked();
  expect(pageProblems(page)).toEqual([]);
});
