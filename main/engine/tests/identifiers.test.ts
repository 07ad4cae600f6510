// hosted-docs-facts.md 10: a project created without an identifier (absent, null or
// "") gets a generated unique one, a v4 UUID, in the record and in every delivery
// about it; an identifier the client sends is kept. Migration 0017 gives existing
// projects with a blank identifier one (not a sync replica's copies of remote ones).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { fillBlankIdentifiers } from '../store/migrations/0017-event-types-identifiers.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('generated identifiers', () => {
  let server: TestServer;
  let token: string;
  let receiver: WebhookReceiver | undefined;
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

  test('a project created without an identifier, or with null or "", gets a v4 UUID of its own', async () => {
    const identifiers: string[] = [];
    for (const body of [{ title: 'Absent' }, { title: 'Null', identifier: null }, { title: 'Blank', identifier: '' }]) {
      const created = await server.request('POST', apiPaths.projects(1), { token, body });
      assert.equal(created.status, 201, created.text);
      assert.match(created.json.identifier, UUID_V4, body.title);
      assert.equal((await server.request('GET', apiPaths.project(1, created.json.id), { token })).json.identifier, created.json.identifier);
      identifiers.push(created.json.identifier);
    }
    assert.equal(new Set(identifiers).size, 3);
  });

  test('an identifier the client sends is kept as sent', async () => {
    const created = await server.request('POST', apiPaths.projects(1), { token, body: { title: 'Explicit', identifier: 'CRM-000123' } });
    assert.equal(created.json.identifier, 'CRM-000123');
    const numeric = await server.request('POST', apiPaths.projects(1), { token, body: { title: 'Numeric', identifier: 42 } });
    assert.equal(numeric.json.identifier, '42');
  });

  test('a project with neither title nor address is titled "Untitled project", not by its generated identifier', async () => {
    const created = await server.request('POST', apiPaths.projects(1), { token, body: { notes: 'nothing else' } });
    assert.equal(created.json.title, 'Untitled project');
  });

  test('every delivery about the project carries the generated identifier, in the envelope and in its fields', async () => {
    receiver = await startWebhookReceiver();
    await server.request('POST', apiPaths.webhooks(1), { token, body: { endpoint: receiver.url, enabled: true, debug: false, trigger_fields: ['project.notes'], payload_fields: ['project.identifier'] } });
    const created = (await server.request('POST', apiPaths.projects(1), { token, body: { title: 'Delivered', notes: 'first' } })).json;
    await server.request('PATCH', apiPaths.project(1, created.id), { token, body: { notes: 'second' } });
    await server.request('DELETE', apiPaths.project(1, created.id), { token });
    const calls = await receiver.waitForCalls(3);
    assert.deepEqual(calls.map((call) => call.body.event), ['CREATE', 'UPDATE', 'DELETE']);
    for (const call of calls) assert.equal(call.body.identifier, created.identifier, call.body.event);
    assert.equal(calls[0]!.body.fields.identifier, created.identifier);
    assert.equal(calls[1]!.body.fields.identifier, created.identifier);
  });

  test('migration 0017 gives a stored project with a blank identifier a UUID and a new version; its next delivery carries it; a replica copy is left alone', async () => {
    const db = server.engine.context.db;
    const older = (await server.request('POST', apiPaths.projects(1), { token, body: { title: 'From before' } })).json;
    const remoteCopy = (await server.request('POST', apiPaths.projects(1), { token, body: { title: 'A remote copy' } })).json;
    // As a store from before the migration holds them: blank identifiers, one of them a sync replica's copy of a remote project.
    await db.updateTable('projects').set({ identifier: '' }).where('id', 'in', [older.id, remoteCopy.id]).execute();
    await db.insertInto('sync_records').values({ model: 'project', record_id: remoteCopy.id, base: '{}', remote_modified: remoteCopy.modified_date }).execute();
    await fillBlankIdentifiers(db as unknown as Kysely<unknown>);

    const filled = (await server.request('GET', apiPaths.project(1, older.id), { token })).json;
    assert.match(filled.identifier, UUID_V4);
    assert.notEqual(filled.identifier, older.identifier);
    assert.ok(filled.modified_date > older.modified_date, 'a new version, so agents and caches see the change');
    assert.equal((await server.request('GET', apiPaths.project(1, remoteCopy.id), { token })).json.identifier, '', 'the remote owns it');
    assert.equal((await db.selectFrom('projects').select('id').where('org_id', '=', 1).where('identifier', '=', '').execute()).length, 1, 'demo projects all have one');

    receiver = await startWebhookReceiver();
    await server.request('POST', apiPaths.webhooks(1), { token, body: { endpoint: receiver.url, enabled: true, debug: false, trigger_fields: ['project.notes'], payload_fields: ['project.id'] } });
    await server.request('PATCH', apiPaths.project(1, older.id), { token, body: { notes: 'after the migration' } });
    const [call] = await receiver.waitForCalls(1);
    assert.equal(call!.body.identifier, filled.identifier);
  });
});
