// Issue 20: setting up webhooks without knowing the API. Any path string is
// accepted and stored as sent (issue 25, item 12: a real integration's body,
// verbatim); paths SolarDesk does not know never fire; a test delivery reaches a real receiver on 127.0.0.1; a logged
// attempt can be redelivered and its payload read; the log names records by title.
// All on a real engine over HTTP with a real receiver (nothing faked).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { SOLARDESK_EXTENSION_TAG } from '../http/extensions.ts';
import { STATE_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

/** compatibility.md "Webhooks": the body a public integration creates its webhook with, character for character. */
const INTEGRATION_WEBHOOK_BODY = `{"endpoint": "...", "enabled": true, "debug": false,
  "trigger_fields": ["project.*", "project.workflow.active_stage_id",
  "project.updated_at", "event_type_id"],
  "payload_fields": ["id", "event_type_id", "project_id", "project.id",
  "project.identifier", "project.workflow.id",
  "project.workflow.active_stage_id", "project.contract_date",
  "project.installation_date", "project.price_total", "project.system_size_kw",
  "project.share_link", "customer.email", "customer.phone",
  "customer.first_name", "customer.last_name"], "secret": "..."}`;

const FAST = { retry: { firstDelayMs: 50, maxDelayMs: 200, giveUpAfterMs: 60_000, jitter: 0.2 }, pollIntervalMs: 100 };

describe('webhook setup', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let token: string;
  const create = async (body: Record<string, unknown>) =>
    server.request('POST', apiPaths.webhooks(1), { token, body: { endpoint: receiver.url, enabled: true, debug: false, ...body } });
  /** The log rows of one webhook, once there are at least `count`. */
  const logOf = async (webhookId: number, count: number) => {
    const deadline = Date.now() + STATE_HANG_GUARD_MS;
    for (;;) {
      await server.engine.context.webhookWorker!.idle();
      const rows = (await server.request('GET', `${apiPaths.webhookProcessLogs(1)}?webhook=${encodeURIComponent(apiPaths.webhook(1, webhookId))}`, { token })).json;
      if (rows.length >= count) return rows;
      if (Date.now() > deadline) throw new Error(`expected ${count} log rows, got ${rows.length}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  before(async () => {
    server = await startTestServer({ webhookDelivery: FAST });
    receiver = await startWebhookReceiver();
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  test('a real integration’s webhook body (compatibility.md "Webhooks", verbatim, with `secret`) is accepted and stored as sent', async () => {
    // The exact text the integration sends, only its endpoint pointed at our receiver (issue 25, item 12).
    const body = INTEGRATION_WEBHOOK_BODY.replace('"endpoint": "..."', `"endpoint": ${JSON.stringify(receiver.url)}`);
    const created = await server.request('POST', apiPaths.webhooks(1), {
      rawBody: body,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    assert.equal(created.status, 201, created.text);
    const sent = JSON.parse(body) as { trigger_fields: string[]; payload_fields: string[] };
    assert.equal(typeof created.json.id, 'number');
    assert.deepEqual(created.json.trigger_fields, sent.trigger_fields);
    assert.deepEqual(created.json.payload_fields, sent.payload_fields);
    assert.equal('secret' in created.json, false, 'an unknown key is ignored, not stored');
    const stored = await server.request('GET', apiPaths.webhook(1, created.json.id), { token });
    assert.deepEqual(stored.json.trigger_fields, sent.trigger_fields);
    assert.deepEqual(stored.json.payload_fields, sent.payload_fields);

    // It then expects a PATCH of a project to reach its endpoint, cut to the project paths it names.
    const calls = receiver.calls.length;
    const patched = await server.request('PATCH', apiPaths.project(1, 16), { token, body: { notes: 'integration check' } });
    assert.equal(patched.status, 200, patched.text);
    const [delivery] = (await receiver.waitForCalls(calls + 1)).slice(calls);
    assert.equal(delivery!.body.model, 'Project');
    assert.equal(delivery!.body.model_id, 16);
    assert.deepEqual(Object.keys(delivery!.body).sort(), ['event', 'event_id', 'fields', 'identifier', 'model', 'model_id', 'timestamp']);
    const fields = delivery!.body.fields as Record<string, unknown>;
    assert.equal(fields.id, 16);
    assert.ok('identifier' in fields && 'share_link' in fields && 'installation_date' in fields, JSON.stringify(fields));
    for (const unknown of ['event_type_id', 'project_id', 'customer', 'updated_at', 'email']) {
      assert.equal(unknown in fields, false, `${unknown} adds nothing to the payload: ${JSON.stringify(fields)}`);
    }
    await server.request('DELETE', apiPaths.webhook(1, created.json.id), { token });
  });

  test('any path string is accepted on create and PATCH, stored as sent; paths SolarDesk does not know never fire', async () => {
    const odd = ['id', 'event_type_id', 'project_id', 'customer.email', 'project.updated_at', 'bogus.field', 'projects.title', 'widget.*', ''];
    const created = await create({ trigger_fields: odd, payload_fields: ['project.title', ...odd] });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.trigger_fields, odd);
    assert.deepEqual(created.json.payload_fields, ['project.title', ...odd]);
    const patched = await server.request('PATCH', apiPaths.webhook(1, created.json.id), { token, body: { trigger_fields: ['event_type_id', 'project.updated_at'] } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.json.trigger_fields, ['event_type_id', 'project.updated_at']);

    // A project edit changes nothing those paths point at: no delivery, no log row.
    const project = await server.request('PATCH', apiPaths.project(1, 17), { token, body: { notes: 'no unknown path fires for this' } });
    assert.equal(project.status, 200, project.text);
    await server.engine.context.webhookWorker!.idle();
    const rows = (await server.request('GET', `${apiPaths.webhookProcessLogs(1)}?webhook=${encodeURIComponent(apiPaths.webhook(1, created.json.id))}`, { token })).json;
    assert.deepEqual(rows, []);
    await server.request('DELETE', apiPaths.webhook(1, created.json.id), { token });
  });

  test('unknown fields of known models are accepted (the hosted service has more fields than SolarDesk)', async () => {
    const created = await create({ trigger_fields: ['project.bogus_field', 'contact.nickname'], payload_fields: ['quoteactivitylog.*', 'event.something_new'] });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.trigger_fields, ['project.bogus_field', 'contact.nickname']);
    assert.deepEqual(created.json.payload_fields, ['quoteactivitylog.*', 'event.something_new']);
    await server.request('DELETE', apiPaths.webhook(1, created.json.id), { token });
  });

  test('an endpoint with a space is refused on its field, in words a person reads', async () => {
    const refused = await create({ endpoint: 'https://exa mple.com' });
    assert.equal(refused.status, 400);
    assert.deepEqual(Object.keys(refused.json), ['endpoint']);
    assert.match(refused.json.endpoint[0], /cannot contain spaces/);
  });

  test('a test delivery reaches a real receiver on 127.0.0.1 and answers its status and time; each shows in the delivery log', async () => {
    const webhook = (await create({ trigger_fields: ['project.site_notes'], payload_fields: ['project.id', 'project.title'], headers: '{"X-Api-Key": "k-1"}' })).json;
    const calls = receiver.calls.length;
    const tested = await server.request('POST', apiPaths.webhookTest(1, webhook.id), { token });
    assert.equal(tested.status, 200, tested.text);
    assert.equal(tested.json.successful, true);
    assert.equal(tested.json.status, 200);
    assert.ok(Number.isInteger(tested.json.duration_ms) && tested.json.duration_ms >= 0);
    const [call] = (await receiver.waitForCalls(calls + 1)).slice(calls);
    assert.equal(call!.headers['x-api-key'], 'k-1');
    assert.equal(call!.headers['x-solardesk-test'], '1');
    assert.deepEqual(call!.body, tested.json.payload);
    assert.equal(call!.body.model, 'Project');
    assert.equal(call!.body.event_id, 0);
    assert.deepEqual(Object.keys(call!.body.fields).sort(), ['id', 'title']);

    receiver.respondWith(() => 503);
    const refused = await server.request('POST', apiPaths.webhookTest(1, webhook.id), { token });
    receiver.respondWith(() => 200);
    assert.equal(refused.json.successful, false);
    assert.equal(refused.json.status, 503);
    assert.match(refused.json.notes, /^HTTP 503/);
    // Both tests are in the log (issue 28: "No deliveries yet" after a test read as if nothing had happened), as event 0.
    const logged = (await server.request('GET', `${apiPaths.webhookProcessLogs(1)}?webhook=${encodeURIComponent(webhook.url)}`, { token })).json as { successful: boolean; event_id: number; response_status: number | null }[];
    assert.deepEqual(
      logged.map((row) => [row.successful, row.event_id, row.response_status]).sort((a, b) => Number(b[0]) - Number(a[0])),
      [
        [true, 0, 200],
        [false, 0, 503],
      ],
    );

    const memberToken = await server.tokenFor(DEMO_USERS.sunriseMember);
    assert.equal((await server.request('POST', apiPaths.webhookTest(1, webhook.id), { token: memberToken })).status, 403);
    assert.equal((await server.request('POST', apiPaths.webhookTest(1, 999_999), { token })).status, 404);
    await server.request('PATCH', apiPaths.webhook(1, webhook.id), { token, body: { enabled: false } });
  });

  test('the log names records by title and status; each attempt’s payload is readable; an attempt can be redelivered', async () => {
    const webhook = (await create({ trigger_fields: ['project.site_notes'], payload_fields: ['project.site_notes', 'project.id'] })).json;
    const project = (await server.request('PATCH', apiPaths.project(1, 12), { token, body: { site_notes: 'Gate code 4411' } })).json;
    const [row] = await logOf(webhook.id, 1);
    assert.equal(row.record_title, project.title);
    assert.ok(project.title, 'the demo project has a title');
    assert.equal(row.response_status, 200);
    const delivered = receiver.calls.find((call) => call.body?.fields?.site_notes === 'Gate code 4411');
    assert.ok(delivered);

    const payload = await server.request('GET', apiPaths.webhookProcessLogPayload(1, row.id), { token });
    assert.equal(payload.status, 200);
    assert.deepEqual(payload.json.payload, delivered!.body);
    assert.equal(payload.json.response_status, 200);

    const calls = receiver.calls.length;
    const again = await server.request('POST', apiPaths.webhookProcessLogRedeliver(1, row.id), { token });
    assert.equal(again.status, 202, again.text);
    assert.equal(again.json.webhook_enabled, true);
    const [resent] = (await receiver.waitForCalls(calls + 1)).slice(calls);
    assert.deepEqual(resent!.body, delivered!.body, 'the same body, event_id included: it is the same change');
    const rows = await logOf(webhook.id, 2);
    assert.equal(rows[0].event_id, row.event_id);
    assert.equal(rows[0].successful, true);

    // A disabled webhook holds the redelivery until it is turned on again.
    await server.request('PATCH', apiPaths.webhook(1, webhook.id), { token, body: { enabled: false } });
    const held = await server.request('POST', apiPaths.webhookProcessLogRedeliver(1, row.id), { token });
    assert.equal(held.json.webhook_enabled, false);
    assert.match(held.json.detail, /turn the webhook on/);
    const pending = await server.engine.context.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', webhook.id).where('status', '=', 'pending').execute();
    assert.equal(pending.length, 1);

    const memberToken = await server.tokenFor(DEMO_USERS.sunriseMember);
    assert.equal((await server.request('POST', apiPaths.webhookProcessLogRedeliver(1, row.id), { token: memberToken })).status, 403);
    assert.equal((await server.request('GET', apiPaths.webhookProcessLogPayload(1, row.id), { token: memberToken })).status, 403);
    const otherOrg = await server.tokenFor(DEMO_USERS.basicAdmin);
    assert.equal((await server.request('GET', apiPaths.webhookProcessLogPayload(2, row.id), { token: otherOrg })).status, 404);
  });

  test('the new routes are SolarDesk extensions in the OpenAPI document, and throttled like the other webhook routes', async () => {
    const schema = (await server.request('GET', '/api/schema/')).json;
    for (const [route, method] of [
      ['/api/orgs/{org_id}/webhooks/{id}/test/', 'post'],
      ['/api/orgs/{org_id}/webhook_process_logs/{id}/payload/', 'get'],
      ['/api/orgs/{org_id}/webhook_process_logs/{id}/redeliver/', 'post'],
    ] as const) {
      const operation = schema.paths[route]?.[method];
      assert.ok(operation, `${route} is documented`);
      assert.ok(operation.tags.includes(SOLARDESK_EXTENSION_TAG), `${route} is tagged as an extension`);
    }
    const list = await server.request('GET', apiPaths.webhooks(1), { token });
    const tested = await server.request('POST', apiPaths.webhookTest(1, list.json[0].id), { token });
    assert.ok(list.headers.get('ratelimit-limit'), 'webhook routes are counted');
    assert.equal(tested.headers.get('ratelimit-limit'), list.headers.get('ratelimit-limit'));
    assert.equal(Number(tested.headers.get('ratelimit-remaining')), Number(list.headers.get('ratelimit-remaining')) - 1, 'counted in the same quota');
  });
});

describe('webhook setup: the private-address guard', () => {
  test('a test delivery to a loopback endpoint is refused unless the server allows private endpoints', async () => {
    const server = await startTestServer({ webhookDelivery: { allowPrivateEndpoints: false, ...FAST } });
    const receiver = await startWebhookReceiver();
    try {
      const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const webhook = (await server.request('POST', apiPaths.webhooks(1), { token, body: { endpoint: receiver.url, enabled: false, debug: false } })).json;
      const tested = await server.request('POST', apiPaths.webhookTest(1, webhook.id), { token });
      assert.equal(tested.status, 200);
      assert.equal(tested.json.successful, false);
      assert.equal(tested.json.status, null);
      assert.match(tested.json.notes, /refused: .*non-public address.*--allow-private-webhook-endpoints/);
      assert.equal(receiver.calls.length, 0);
    } finally {
      await receiver.close();
      await server.close();
    }
  });

  test('the switch may be a setting read at each delivery: turned on, the same endpoint is delivered to; the refusal says what the host advises', async () => {
    let isAllowed = false;
    const advice = 'Turn on the setting to deliver to it.';
    const server = await startTestServer({ webhookDelivery: { ...FAST, allowPrivateEndpoints: () => isAllowed, privateEndpointAdvice: advice } });
    const receiver = await startWebhookReceiver();
    try {
      const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const webhook = (await server.request('POST', apiPaths.webhooks(1), { token, body: { endpoint: receiver.url, enabled: false, debug: false } })).json;
      const refused = await server.request('POST', apiPaths.webhookTest(1, webhook.id), { token });
      assert.equal(refused.json.successful, false);
      assert.ok(refused.json.notes.endsWith(advice), refused.json.notes);
      assert.doesNotMatch(refused.json.notes, /--allow-private/);
      isAllowed = true;
      const delivered = await server.request('POST', apiPaths.webhookTest(1, webhook.id), { token });
      assert.equal(delivered.json.successful, true, delivered.json.notes);
      assert.equal(receiver.calls.length, 1);
    } finally {
      await receiver.close();
      await server.close();
    }
  });
});
