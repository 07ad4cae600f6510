// hosted-docs-facts.md 6 (PUT /api/orgs/:org_id/contacts/:id/ is the documented update;
// PATCH stays; the list takes page and limit) and 9 (a contact's record and its
// deliveries carry org, projects and user). PUT is the same update as PATCH, as the
// project PUT is: no contact field is required, so fields it does not carry keep
// their values (DRF's full update of a serializer without required fields).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, UNTHROTTLED_RATES, type TestServer } from '../testing/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

describe('contacts: PUT, the list and the record', () => {
  let server: TestServer;
  let token: string;
  let receiver: WebhookReceiver | undefined;
  const newContact = async (body: Record<string, unknown>) => {
    const created = await server.request('POST', apiPaths.contacts(1), { token, body });
    assert.equal(created.status, 201, created.text);
    return created.json as { id: number; url: string; modified_date: string };
  };
  before(async () => {
    server = await startTestServer({ webhookDelivery: { pollIntervalMs: 50 } });
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());
  afterEach(async () => {
    await server.engine.context.db.updateTable('webhooks').set({ enabled: 0 }).execute();
    await receiver?.close();
    receiver = undefined;
  });

  test('PUT updates the fields it carries and keeps the others, with or without the slash, and answers the record with its ETag', async () => {
    const contact = await newContact({ first_name: 'Grace', family_name: 'Hopper', email: 'grace@example.com', phone: '0400 000 000' });
    const put = await server.request('PUT', apiPaths.contact(1, contact.id).replace(/\/$/, ''), { token, body: { first_name: 'Amazing Grace', gender: '1', unknown: 'ignored' } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.first_name, 'Amazing Grace');
    assert.equal(put.json.gender, 1);
    assert.equal(put.json.family_name, 'Hopper', 'a field the PUT left out keeps its value, as the project PUT does');
    assert.equal(put.json.email, 'grace@example.com');
    assert.equal(put.json.unknown, undefined);
    assert.equal(put.headers.get('etag'), `"${put.json.modified_date}"`);
    assert.ok(put.json.modified_date > contact.modified_date);
    assert.deepEqual((await server.request('GET', apiPaths.contact(1, contact.id), { token })).json, put.json);
  });

  test('PUT with bad data is 400 per field and changes nothing', async () => {
    const contact = await newContact({ first_name: 'Unchanged', email: 'same@example.com' });
    const put = await server.request('PUT', apiPaths.contact(1, contact.id), { token, body: { first_name: 'Changed', email: 'not-an-email', gender: 7 } });
    assert.equal(put.status, 400);
    assert.ok(put.json.email && put.json.gender, put.text);
    const now = (await server.request('GET', apiPaths.contact(1, contact.id), { token })).json;
    assert.equal(now.first_name, 'Unchanged');
    assert.equal(now.modified_date, contact.modified_date);
  });

  test('PUT honours If-Match as PATCH does: a stale version is 412 and writes nothing', async () => {
    const contact = await newContact({ first_name: 'Versioned' });
    const moved = await server.request('PATCH', apiPaths.contact(1, contact.id), { token, body: { phone: '1' } });
    const stale = await server.request('PUT', apiPaths.contact(1, contact.id), { token, body: { first_name: 'Stale' }, headers: { 'if-match': `"${contact.modified_date}"` } });
    assert.equal(stale.status, 412, stale.text);
    assert.equal(stale.headers.get('etag'), `"${moved.json.modified_date}"`);
    assert.equal((await server.request('GET', apiPaths.contact(1, contact.id), { token })).json.first_name, 'Versioned');
    const current = await server.request('PUT', apiPaths.contact(1, contact.id), { token, body: { first_name: 'Current' }, headers: { 'if-match': `"${moved.json.modified_date}"` } });
    assert.equal(current.status, 200);
    assert.equal(current.json.first_name, 'Current');
  });

  test('PUT follows the contact access rule: 403 on a contact the member cannot see, 404 for none, 403 for a foreign org', async () => {
    const hidden = await newContact({ first_name: 'Hidden from the member' });
    const memberToken = await server.tokenFor(DEMO_USERS.sunriseMember);
    assert.equal((await server.request('PUT', apiPaths.contact(1, hidden.id), { token: memberToken, body: { first_name: 'x' } })).status, 403);
    assert.equal((await server.request('PUT', apiPaths.contact(1, 999_999), { token, body: { first_name: 'x' } })).status, 404);
    assert.equal((await server.request('PUT', apiPaths.contact(2, hidden.id), { token, body: { first_name: 'x' } })).status, 403);
    assert.equal((await server.request('GET', apiPaths.contact(1, hidden.id), { token })).json.first_name, 'Hidden from the member');
  });

  test('PUT of a contact delivers a Contact UPDATE whose fields carry org, projects and user', async () => {
    receiver = await startWebhookReceiver();
    const project = (await server.request('GET', apiPaths.project(1, 20), { token })).json;
    const contactId = project.contacts_data[0].id as number;
    const webhook = await server.request('POST', apiPaths.webhooks(1), { token, body: { endpoint: receiver.url, enabled: true, debug: false, trigger_fields: ['contact.phone'], payload_fields: ['project.id'] } });
    assert.equal(webhook.status, 201, webhook.text);
    const put = await server.request('PUT', apiPaths.contact(1, contactId), { token, body: { phone: '+61 400 123 456' } });
    assert.equal(put.status, 200);
    const [call] = await receiver.waitForCalls(1);
    assert.equal(call!.body.model, 'Contact');
    assert.equal(call!.body.event, 'UPDATE');
    assert.equal(call!.body.model_id, contactId);
    const fields = call!.body.fields;
    for (const field of ['display', 'email', 'family_name', 'first_name', 'id', 'phone', 'url']) assert.ok(field in fields, field);
    assert.equal(fields.phone, '+61 400 123 456');
    assert.equal(fields.org, `${server.baseUrl}${apiPaths.org(1)}`);
    assert.ok(fields.projects.includes(project.url), 'the URLs of its projects');
    assert.equal(fields.user, null);
  });

  test('payload_fields cut a Contact delivery to the paths named, org, projects and user among them', async () => {
    receiver = await startWebhookReceiver();
    await server.request('POST', apiPaths.webhooks(1), { token, body: { endpoint: receiver.url, enabled: true, debug: false, trigger_fields: ['contact.*'], payload_fields: ['contact.projects', 'contact.org'] } });
    const contact = await newContact({ first_name: 'Cut' });
    const [call] = await receiver.waitForCalls(1);
    assert.equal(call!.body.model_id, contact.id);
    assert.deepEqual(Object.keys(call!.body.fields).sort(), ['org', 'projects']);
    assert.deepEqual(call!.body.fields.projects, []);
  });

  test("a contact's record carries org, user, and the URLs of the projects its reader may see", async () => {
    const project1 = (await server.request('GET', apiPaths.project(1, 1), { token })).json;
    const project2 = (await server.request('GET', apiPaths.project(1, 2), { token })).json;
    const contact = await newContact({ first_name: 'On two projects' });
    await server.request('PATCH', apiPaths.project(1, 1), { token, body: { contacts: [...project1.contacts, contact.url] } });
    await server.request('PATCH', apiPaths.project(1, 2), { token, body: { contacts: [...project2.contacts, contact.url] } });
    const record = (await server.request('GET', apiPaths.contact(1, contact.id), { token })).json;
    assert.equal(record.org, `${server.baseUrl}${apiPaths.org(1)}`);
    assert.equal(record.user, null);
    assert.deepEqual(record.projects, [project1.url, project2.url]);
    // The member holds a role on project 1 only (demo data): project 2 is not named to them.
    const memberToken = await server.tokenFor(DEMO_USERS.sunriseMember);
    const asMember = await server.request('GET', apiPaths.contact(1, contact.id), { token: memberToken });
    assert.equal(asMember.status, 200, asMember.text);
    assert.deepEqual(asMember.json.projects, [project1.url]);
    const listed = (await server.request('GET', `${apiPaths.contacts(1)}?search=${encodeURIComponent('On two projects')}`, { token })).json;
    assert.deepEqual(listed[0].projects, [project1.url, project2.url]);
  });

  test('the contacts list takes page and limit: pages of that size, a page past the end is 200 []', async () => {
    const all = (await server.request('GET', `${apiPaths.contacts(1)}?limit=1000`, { token })).json as Array<{ id: number }>;
    assert.ok(all.length > 6);
    const page2 = (await server.request('GET', `${apiPaths.contacts(1)}?page=2&limit=3`, { token })).json as Array<{ id: number }>;
    assert.deepEqual(page2.map((contact) => contact.id), all.slice(3, 6).map((contact) => contact.id));
    const past = await server.request('GET', `${apiPaths.contacts(1)}?page=999&limit=50`, { token });
    assert.equal(past.status, 200);
    assert.deepEqual(past.json, []);
  });
});

describe('contacts: PUT counts in the same quota as PATCH', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ throttleRates: { ...UNTHROTTLED_RATES, default: { user: '2/min', org: null } } });
  });
  after(() => server.close());

  test('a PATCH and a PUT use up a quota of 2; the next PUT is 429 with Retry-After', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const project = (await server.request('GET', apiPaths.project(1, 3), { token })).json; // project detail: its own quota
    const contactPath = new URL(project.contacts[0]).pathname;
    assert.equal((await server.request('PATCH', contactPath, { token, body: { phone: '1' } })).status, 200);
    assert.equal((await server.request('PUT', contactPath, { token, body: { phone: '2' } })).status, 200);
    const throttled = await server.request('PUT', contactPath, { token, body: { phone: '3' } });
    assert.equal(throttled.status, 429);
    assert.match(throttled.headers.get('retry-after') ?? '', /^\d+$/);
    assert.match(throttled.json.detail, /^Request was throttled\. Expected available in \d+ seconds\.$/);
  });
});
