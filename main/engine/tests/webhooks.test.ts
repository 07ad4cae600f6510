// service.md 2.3, 4.3 and 6 and compatibility.md "Webhooks": settings, change
// capture, payloads, delivery, retries, the log and the private-address guard.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { DEFAULT_PAYLOAD_FIELDS, DEFAULT_TRIGGER_FIELDS } from '../../../shared/webhook-fields.ts';
import { retryDelayMs, DEFAULT_RETRY_POLICY } from '../webhooks/delivery-worker.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { makeTestCertificates } from '../testing/test-certificates.ts';

const FAST_RETRIES = { retry: { firstDelayMs: 50, maxDelayMs: 200, giveUpAfterMs: 60_000, jitter: 0.2 }, pollIntervalMs: 100 };

describe('webhook settings', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer();
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());

  test('endpoint, enabled and debug are required, each named', async () => {
    const response = await server.request('POST', '/api/orgs/1/webhooks/', { token, body: { trigger_fields: [] } });
    assert.equal(response.status, 400);
    for (const field of ['endpoint', 'enabled', 'debug']) assert.deepEqual(response.json[field], ['This field is required.'], response.text);
  });

  test('endpoint must be an http(s) URL; headers a JSON-encoded object of strings', async () => {
    const base = { enabled: true, debug: false };
    for (const endpoint of ['ftp://example.com/hook', 'not a url', 'javascript:alert(1)']) {
      const response = await server.request('POST', '/api/orgs/1/webhooks/', { token, body: { ...base, endpoint } });
      assert.equal(response.status, 400, endpoint);
      assert.ok(response.json.endpoint);
    }
    for (const headers of ['{not json', '[1,2]', '{"X-Count": 3}', '{"Bad Name": "x"}', '{"X-A": "a\\r\\nInjected: yes"}', '{"Content-Type": "text/plain"}', '{"a": "b"}'.replace('"b"', '{}')]) {
      const response = await server.request('POST', '/api/orgs/1/webhooks/', { token, body: { ...base, endpoint: 'https://example.com/hook', headers } });
      assert.equal(response.status, 400, headers);
      assert.ok(response.json.headers, response.text);
    }
  });

  test('blank lists on create take the defaults; unknown keys and unknown fields of known models are accepted', async () => {
    const created = await server.request('POST', '/api/orgs/1/webhooks/', {
      token,
      body: { endpoint: 'https://example.com/a', enabled: true, debug: false, trigger_fields: [], payload_fields: '', secret: 'ignored', headers: '{"X-Api-Key": "k"}' },
    });
    assert.equal(created.status, 201);
    assert.equal(typeof created.json.id, 'number');
    assert.deepEqual(created.json.trigger_fields, [...DEFAULT_TRIGGER_FIELDS]);
    assert.deepEqual(created.json.payload_fields, [...DEFAULT_PAYLOAD_FIELDS]);
    assert.equal(created.json.headers, '{"X-Api-Key": "k"}');
    const omitted = await server.request('POST', '/api/orgs/1/webhooks/', { token, body: { endpoint: 'https://example.com/b', enabled: false, debug: true } });
    assert.deepEqual(omitted.json.trigger_fields, [...DEFAULT_TRIGGER_FIELDS]);
    const unknownPaths = await server.request('POST', '/api/orgs/1/webhooks/', {
      token,
      body: { endpoint: 'https://example.com/c', enabled: true, debug: false, trigger_fields: ['project.no_such_field', 'quote.*'] },
    });
    assert.equal(unknownPaths.status, 201);
    assert.deepEqual(unknownPaths.json.trigger_fields, ['project.no_such_field', 'quote.*']);
  });

  test('PATCH is partial, with or without the slash; blank or null is stored as null', async () => {
    const created = (await server.request('POST', '/api/orgs/1/webhooks/', { token, body: { endpoint: 'https://example.com/d', enabled: true, debug: false } })).json;
    const patched = await server.request('PATCH', apiPaths.webhook(1, created.id).replace(/\/$/, ''), { token, body: { trigger_fields: null, enabled: false } });
    assert.equal(patched.status, 200);
    assert.equal(patched.json.trigger_fields, null);
    assert.equal(patched.json.enabled, false);
    assert.deepEqual(patched.json.payload_fields, [...DEFAULT_PAYLOAD_FIELDS]);
    assert.equal(patched.json.endpoint, 'https://example.com/d');
    const blank = await server.request('PATCH', apiPaths.webhook(1, created.id), { token, body: { payload_fields: '' } });
    assert.equal(blank.json.payload_fields, null);
    const list = await server.request('GET', '/api/orgs/1/webhooks/', { token });
    assert.ok(Array.isArray(list.json));
    assert.ok(list.json.some((webhook: { id: number }) => webhook.id === created.id));
  });

  test('only admins see or change webhooks', async () => {
    const memberToken = await server.tokenFor(DEMO_USERS.sunriseMember);
    assert.equal((await server.request('GET', '/api/orgs/1/webhooks/', { token: memberToken })).status, 403);
    assert.equal((await server.request('POST', '/api/orgs/1/webhooks/', { token: memberToken, body: { endpoint: 'https://example.com', enabled: true, debug: false } })).status, 403);
    assert.equal((await server.request('GET', '/api/orgs/1/webhook_process_logs/', { token: memberToken })).status, 403);
  });

  test('the first retry comes within 10 seconds and backoff grows to give up after about a day', () => {
    const first = [0, 0.5, 1].map((random) => retryDelayMs(DEFAULT_RETRY_POLICY, 1, () => random));
    assert.ok(first.every((delay) => delay > 0 && delay <= 10_000), String(first));
    let elapsed = 0;
    let attempts = 1;
    while (elapsed < DEFAULT_RETRY_POLICY.giveUpAfterMs) elapsed += retryDelayMs(DEFAULT_RETRY_POLICY, attempts++, () => 0.5);
    assert.ok(attempts > 10 && attempts < 60, `gives up after ${attempts} attempts`);
  });
});

describe('webhook delivery', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let token: string;
  const createWebhook = async (body: Record<string, unknown>, endpoint = receiver.url) => {
    const response = await server.request('POST', '/api/orgs/1/webhooks/', { token, body: { endpoint, enabled: true, debug: false, ...body } });
    assert.equal(response.status, 201, response.text);
    return response.json;
  };
  before(async () => {
    server = await startTestServer({ webhookDelivery: FAST_RETRIES });
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());
  afterEach(async () => {
    await server.engine.context.db.updateTable('webhooks').set({ enabled: 0 }).execute();
    await receiver?.close();
  });

  test('a change to a trigger field delivers the documented body with the webhook’s headers', async () => {
    receiver = await startWebhookReceiver();
    await createWebhook({ trigger_fields: ['project.address'], payload_fields: ['project.address', 'project.id'], headers: '{"X-Api-Key": "secret-123", "X-Tenant": "sunrise"}' });
    const patched = await server.request('PATCH', '/api/orgs/1/projects/12/', { token, body: { address: '99 Delivery Road' } });
    assert.equal(patched.status, 200);
    const [call] = await receiver.waitForCalls(1);
    assert.equal(call!.method, 'POST');
    assert.equal(call!.headers['content-type'], 'application/json');
    assert.equal(call!.headers['x-api-key'], 'secret-123');
    assert.equal(call!.headers['x-tenant'], 'sunrise');
    const body = call!.body;
    assert.deepEqual(Object.keys(body).sort(), ['event', 'event_id', 'fields', 'identifier', 'model', 'model_id', 'timestamp']);
    assert.match(body.timestamp, /^\d{10}$/);
    assert.equal(body.model, 'Project');
    assert.equal(body.model_id, 12);
    assert.equal(body.identifier, patched.json.identifier);
    assert.equal(body.event, 'UPDATE');
    assert.equal(typeof body.event_id, 'number');
    assert.deepEqual(body.fields, { address: '99 Delivery Road', id: 12 });
  });

  test('a change to another field does not fire; deliveries stay in order', async () => {
    receiver = await startWebhookReceiver();
    await createWebhook({ trigger_fields: ['project.notes'], payload_fields: ['project.notes'] });
    await server.request('PATCH', '/api/orgs/1/projects/13/', { token, body: { site_notes: 'not a trigger' } });
    for (const notes of ['first', 'second', 'third']) await server.request('PATCH', '/api/orgs/1/projects/13/', { token, body: { notes } });
    const calls = await receiver.waitForCalls(3);
    assert.deepEqual(calls.map((call) => call.body.fields.notes), ['first', 'second', 'third'], 'the site_notes change sent nothing');
    const ids = calls.map((call) => call.body.event_id);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
    assert.ok(ids[0] < ids[1] && ids[1] < ids[2], 'event_id increases');
    await server.request('PATCH', '/api/orgs/1/projects/13/', { token, body: { notes: 'third' } }); // unchanged value
    await server.request('PATCH', '/api/orgs/1/projects/13/', { token, body: { notes: 'fourth' } });
    const after = await receiver.waitForCalls(4);
    assert.equal(after[3]!.body.fields.notes, 'fourth', 'writing the same value again is not a change');
  });

  test('nested paths: a contact’s new email changes project.contacts_data.email', async () => {
    receiver = await startWebhookReceiver();
    await createWebhook({ trigger_fields: ['project.contacts_data.email'], payload_fields: ['project.contacts_data.email', 'project.id'] });
    const project = (await server.request('GET', '/api/orgs/1/projects/14/', { token })).json;
    const contact = project.contacts_data[0];
    await server.request('PATCH', apiPaths.contact(1, contact.id), { token, body: { phone: '0400 999 999' } }); // not a trigger
    await server.request('PATCH', apiPaths.contact(1, contact.id), { token, body: { email: 'new-address@example.com' } });
    const [call] = await receiver.waitForCalls(1);
    assert.equal(call!.body.model, 'Project');
    assert.equal(call!.body.model_id, 14);
    assert.equal(call!.body.fields.id, 14);
    assert.equal(call!.body.fields.contacts_data[0].email, 'new-address@example.com');
    assert.deepEqual(Object.keys(call!.body.fields.contacts_data[0]), ['email'], 'cut to the payload paths');
  });

  test('model.* fires on any change of that model; an absent model never fires; absent from payload is sent whole', async () => {
    receiver = await startWebhookReceiver();
    await createWebhook({ trigger_fields: ['contact.*'], payload_fields: ['project.id'] });
    await server.request('PATCH', '/api/orgs/1/projects/15/', { token, body: { address: '1 Ignored Street' } }); // project absent from triggers
    const created = await server.request('POST', '/api/orgs/1/contacts/', { token, body: { first_name: 'Webhook', family_name: 'Person', email: 'wp@example.com' } });
    const [call] = await receiver.waitForCalls(1);
    assert.equal(call!.body.model, 'Contact');
    assert.equal(call!.body.event, 'CREATE');
    assert.equal(call!.body.model_id, created.json.id);
    assert.equal(call!.body.fields.email, 'wp@example.com', 'contact is absent from payload_fields, so sent whole');
    assert.equal(call!.body.fields.family_name, 'Person');
    await server.request('DELETE', apiPaths.contact(1, created.json.id), { token });
    const [, deleted] = await receiver.waitForCalls(2);
    assert.equal(deleted!.body.event, 'DELETE');
    assert.equal(deleted!.body.fields, undefined, 'fields only on CREATE and UPDATE');
  });

  test('project create records an event; stage changes and added contacts record events; event.* fires', async () => {
    receiver = await startWebhookReceiver();
    await createWebhook({ trigger_fields: ['event.*', 'project.events_data'], payload_fields: ['project.events_data', 'project.id'] });
    const created = (await server.request('POST', '/api/orgs/1/projects/', { token, body: { title: 'Evented', contacts_new: [{ first_name: 'Eve' }] } })).json;
    const calls = await receiver.waitForCalls(3); // project CREATE, and two events (project created, contact added)
    const byModel = (model: string) => calls.filter((call) => call.body.model === model);
    assert.equal(byModel('Project').length, 1);
    assert.deepEqual(byModel('Event').map((call) => call.body.fields.event_type).sort(), ['contact_added', 'project_created']);
    assert.deepEqual(byModel('Event').map((call) => call.body.fields.event_type_id), [29, 29], 'the hosted kind: activity (hosted-docs-facts.md 9)');
    assert.equal(byModel('Project')[0]!.body.fields.events_data.length, 2, 'the project already carries its events');

    const workflows = (await server.request('GET', '/api/orgs/1/workflows/', { token })).json;
    const sold = workflows[0].workflow_stages.find((stage: { milestone: number }) => stage.milestone === 2);
    await server.request('PATCH', apiPaths.project(1, created.id), { token, body: { active_stage_id: sold.id } });
    const events = (await server.request('GET', `${apiPaths.events(1)}?project=${created.id}`, { token })).json;
    assert.deepEqual(events.map((event: { event_type: string }) => event.event_type), ['stage_changed', 'contact_added', 'project_created']);
    assert.match(events[0].title, new RegExp(sold.title));
    const note = await server.request('POST', '/api/orgs/1/events/', { token, body: { project: created.url, title: 'Called the customer', notes: 'Prefers mornings' } });
    assert.equal(note.status, 201);
    assert.equal(note.json.event_type, 'note');
    assert.equal(note.json.event_type_id, 31);
    const detail = (await server.request('GET', apiPaths.project(1, created.id), { token })).json;
    assert.equal(detail.events_data.length, 4);
    assert.equal(detail.events.length, 4);
    assert.equal((await server.request('GET', `${apiPaths.events(1)}?project=${apiPaths.project(1, created.id)}`, { token })).json.length, 4);
  });

  test('failed deliveries are retried with backoff, and every attempt is logged', async () => {
    receiver = await startWebhookReceiver((_call, index) => (index < 2 ? 500 : 200));
    const webhook = await createWebhook({ trigger_fields: ['project.zip'], payload_fields: ['project.zip'] });
    await server.request('PATCH', '/api/orgs/1/projects/16/', { token, body: { zip: '2999' } });
    const calls = await receiver.waitForCalls(3);
    assert.ok(calls.every((call) => call.body.event_id === calls[0]!.body.event_id), 'the same change, retried');
    await server.engine.context.webhookWorker!.idle();
    const log = (await server.request('GET', `${apiPaths.webhookProcessLogs(1)}?webhook=${webhook.id}`, { token })).json;
    assert.equal(log.length, 3);
    assert.deepEqual(log.map((row: { successful: boolean }) => row.successful), [true, false, false], 'newest first');
    for (const row of log) {
      for (const field of ['url', 'org', 'webhook', 'created_date', 'modified_date', 'successful', 'model_name', 'model_pk', 'event_queue_name', 'event_id', 'event_name', 'event_timestamp', 'notes', 'id']) assert.ok(field in row, field);
      assert.match(row.event_timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'an ISO 8601 date-time (hosted docs: Webhooks Logs)');
      assert.equal(row.webhook, webhook.url);
      assert.equal(row.model_name, 'Project');
      assert.equal(row.model_pk, 16);
    }
    assert.match(log[2].notes, /HTTP 500/);
    const paged = (await server.request('GET', `${apiPaths.webhookProcessLogs(1)}?webhook=${webhook.id}&limit=1&page=2`, { token })).json;
    assert.equal(paged.length, 1);
    assert.equal(paged[0].id, log[1].id);
  });

  test('a hanging endpoint slows neither the request nor other webhooks', async () => {
    let release: () => void = () => {};
    const hanging = new Promise<number>((resolve) => (release = () => resolve(200)));
    receiver = await startWebhookReceiver();
    const stuck = await startWebhookReceiver(() => hanging);
    try {
      await createWebhook({ trigger_fields: ['project.state'] }, stuck.url);
      await createWebhook({ trigger_fields: ['project.state'] });
      const patched = await server.request('PATCH', '/api/orgs/1/projects/17/', { token, body: { state: 'VIC' } });
      assert.equal(patched.status, 200, 'answered while the stuck endpoint holds its delivery');
      await stuck.waitForCalls(1);
      const [call] = await receiver.waitForCalls(1);
      assert.equal(call!.body.fields.state, 'VIC');
    } finally {
      release();
      await stuck.close();
    }
  });
});

describe('private-address guard', () => {
  type LogRow = { successful: boolean; notes: string };
  /** The delivery log of the webhook once its first attempt is written (bounded: 100 polls of 50 ms). */
  async function firstAttempts(server: TestServer, token: string, webhookId: number): Promise<LogRow[]> {
    let log: LogRow[] = [];
    for (let i = 0; i < 100 && log.length === 0; i++) {
      await server.engine.context.webhookWorker!.idle();
      log = (await server.request('GET', `${apiPaths.webhookProcessLogs(1)}?webhook=${webhookId}`, { token })).json;
      if (log.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return log;
  }

  test('by default an endpoint on a loopback address is refused at delivery and logged', async () => {
    const server = await startTestServer({ webhookDelivery: { allowPrivateEndpoints: false, ...FAST_RETRIES } });
    const receiver = await startWebhookReceiver();
    try {
      const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      for (const endpoint of [receiver.url, receiver.url.replace('127.0.0.1', 'localhost')]) {
        const webhook = (await server.request('POST', '/api/orgs/1/webhooks/', { token, body: { endpoint, enabled: true, debug: false, trigger_fields: ['project.notes'] } })).json;
        await server.request('PATCH', '/api/orgs/1/projects/18/', { token, body: { notes: `guarded ${endpoint}` } });
        const log = await firstAttempts(server, token, webhook.id);
        assert.equal(log.length, 1, endpoint);
        assert.equal(log[0]!.successful, false);
        assert.match(log[0]!.notes, /refused: .*non-public address.*--allow-private-webhook-endpoints/);
        await server.engine.context.db.updateTable('webhooks').set({ enabled: 0 }).where('id', '=', webhook.id).execute();
      }
      assert.equal(receiver.calls.length, 0, 'nothing reached the private endpoint');
    } finally {
      await receiver.close();
      await server.close();
    }
  });

  // Issue 19, finding 11. Each endpoint hides 127.0.0.1 (with the receiver's port) in
  // an IPv6 form; the guard must refuse it before any connection is attempted.
  test('an IPv6 endpoint that embeds a private IPv4 address is refused before connecting, naming the address', async () => {
    const server = await startTestServer({ webhookDelivery: { allowPrivateEndpoints: false, ...FAST_RETRIES } });
    const receiver = await startWebhookReceiver();
    try {
      const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const port = new URL(receiver.url).port;
      const forms = ['64:ff9b::7f00:1', '::127.0.0.1', '0:0:0:0:0:ffff:7f00:1', '::ffff:0:7f00:1', '2002:7f00:1::1', '2001:0:808:808::80ff:fffe'];
      for (const [index, form] of forms.entries()) {
        const endpoint = `http://[${form}]:${port}/hook`;
        const created = await server.request('POST', '/api/orgs/1/webhooks/', { token, body: { endpoint, enabled: true, debug: false, trigger_fields: ['project.notes'] } });
        assert.equal(created.status, 201, `${endpoint}: ${created.text}`);
        await server.request('PATCH', '/api/orgs/1/projects/18/', { token, body: { notes: `guarded ${index}` } });
        const log = await firstAttempts(server, token, created.json.id);
        assert.equal(log.length, 1, endpoint);
        assert.equal(log[0]!.successful, false, endpoint);
        assert.match(log[0]!.notes, /^refused: the endpoint resolves to a non-public address \(.+, which embeds 127\.0\.0\.1\); start the server with --allow-private-webhook-endpoints to deliver to it; gave up after 1 attempt$/, endpoint);
        await server.engine.context.db.updateTable('webhooks').set({ enabled: 0 }).where('id', '=', created.json.id).execute();
      }
      assert.equal(receiver.calls.length, 0, 'nothing reached the private endpoint');
    } finally {
      await receiver.close();
      await server.close();
    }
  });
});

// Issue 25, item 1: an https endpoint whose certificate, from a trusted authority,
// names another host once ended the server process at the first retry. Now each
// attempt is logged as failed with the reason and retried on schedule. The authority
// is made with openssl in the test and trusted through the worker's option (a server
// process trusts one through NODE_EXTRA_CA_CERTS).
describe('an https endpoint with a certificate for another name', () => {
  test('every attempt is logged as failed, saying so, and retried on schedule; the server keeps answering', async () => {
    const certificates = makeTestCertificates('other.example');
    const endpoint = tls.createServer({ key: certificates.key, cert: certificates.certificate }, (socket) => socket.on('error', () => {}));
    endpoint.listen(0, '127.0.0.1');
    await once(endpoint, 'listening');
    const server = await startTestServer({ webhookDelivery: { ...FAST_RETRIES, extraTrustedCertificates: [certificates.authority] } });
    try {
      const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const url = `https://localhost:${(endpoint.address() as AddressInfo).port}/hook`;
      const webhook = (await server.request('POST', '/api/orgs/1/webhooks/', { token, body: { endpoint: url, enabled: true, debug: false, trigger_fields: ['project.notes'] } })).json;
      assert.equal((await server.request('PATCH', '/api/orgs/1/projects/19/', { token, body: { notes: 'to a misnamed endpoint' } })).status, 200);
      type LogRow = { successful: boolean; notes: string; event_id: number };
      let log: LogRow[] = [];
      // Bounded: 200 polls of 50 ms; retries come every 50-200 ms here.
      for (let i = 0; i < 200 && log.length < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        log = (await server.request('GET', `${apiPaths.webhookProcessLogs(1)}?webhook=${webhook.id}`, { token })).json;
      }
      assert.ok(log.length >= 3, `three attempts logged (${log.length})`);
      for (const row of log) {
        assert.equal(row.successful, false);
        assert.match(row.notes, /TLS certificate is for another host name/);
        assert.equal(row.event_id, log[0]!.event_id, 'the same change, retried');
      }
      assert.equal((await server.request('GET', '/api/orgs/1/projects/19/', { token })).status, 200, 'still serving');
    } finally {
      await server.engine.context.db.updateTable('webhooks').set({ enabled: 0 }).execute();
      await server.close();
      endpoint.close();
      certificates.remove();
    }
  });
});
