// Webhook settings both ways through a replica (issue 26: the replica stores a
// remote webhook through the engine's one mapper, webhook-columns.ts). Each
// setting's type survives the trip: flags, field lists (null is "not set"), and the
// headers' JSON text. A real server and a real agent on 127.0.0.1 with the fault
// proxy between them (the only fake: the network).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

const SETTINGS = ['endpoint', 'enabled', 'debug', 'trigger_fields', 'payload_fields', 'headers'] as const;
const settingsOf = (json: Record<string, unknown>) => Object.fromEntries(SETTINGS.map((field) => [field, json[field]]));

describe('sync of webhook settings', () => {
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness();
  });
  after(() => h.close());

  test("a remote webhook reaches the replica with every setting's type, and a change made here goes back", async () => {
    const created = await h.remote('POST', apiPaths.webhooks(1), {
      endpoint: 'https://hooks.example.com/crm',
      enabled: true,
      debug: true,
      trigger_fields: ['project.notes', 'project.stage'],
      payload_fields: ['project.id', 'project.notes'],
      headers: '{"X-Api-Key": "abc"}',
    });
    assert.equal(created.status, 201, created.text);
    const id = created.json.id as number;
    await h.synced();
    const pulled = await h.local('GET', apiPaths.webhook(1, id));
    assert.equal(pulled.status, 200, pulled.text);
    assert.deepEqual(settingsOf(pulled.json), settingsOf(created.json));

    // Offline here: disabled, its payload list cleared (blank is null on an existing webhook), new headers.
    h.proxy.setOffline(true);
    const changed = await h.local('PATCH', apiPaths.webhook(1, id), { enabled: false, payload_fields: '', headers: '{"X-Api-Key": "xyz"}' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.json.payload_fields, null);
    // Meanwhile the office changes what it triggers on: both changes must hold after the reconnect.
    const office = await h.remote('PATCH', apiPaths.webhook(1, id), { trigger_fields: ['project.title'] });
    assert.equal(office.status, 200, office.text);
    h.proxy.setOffline(false);
    await h.synced();

    const expected = { ...settingsOf(created.json), enabled: false, payload_fields: null, headers: '{"X-Api-Key": "xyz"}', trigger_fields: ['project.title'] };
    assert.deepEqual(settingsOf((await h.remote('GET', apiPaths.webhook(1, id))).json), expected, 'the remote');
    assert.deepEqual(settingsOf((await h.local('GET', apiPaths.webhook(1, id))).json), expected, 'the replica');
  });
});
