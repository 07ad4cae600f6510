// Issue 5's guarantees, with a real server and a real agent on 127.0.0.1 and the
// fault proxy between them (the only fake: the network's failures).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';

const PROJECT_PATCH = /^\/api\/orgs\/1\/projects\/\d+\/$/;

describe('sync', () => {
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness();
  });
  after(() => h.close());

  test('the replica holds the org: projects, contacts, roles, workflows', async () => {
    const local = await h.local('GET', '/api/orgs/1/projects/?limit=100&ordering=id');
    const remote = await h.remote('GET', '/api/orgs/1/projects/?limit=100&ordering=id');
    assert.deepEqual(local.json.map((p: { id: number }) => p.id), remote.json.map((p: { id: number }) => p.id));
    const localDetail = (await h.local('GET', '/api/orgs/1/projects/1/')).json;
    const remoteDetail = (await h.remote('GET', '/api/orgs/1/projects/1/')).json;
    for (const field of ['title', 'address', 'notes', 'usage', 'design', 'stage', 'active_stage_id', 'custom_data', 'assigned_role_id']) {
      assert.deepEqual(localDetail[field], remoteDetail[field], field);
    }
    assert.deepEqual(localDetail.contacts_data.map((c: { email: string }) => c.email), remoteDetail.contacts_data.map((c: { email: string }) => c.email));
    assert.equal((await h.local('GET', '/api/orgs/1/roles/')).json.length, (await h.remote('GET', '/api/orgs/1/roles/')).json.length);
    assert.deepEqual((await h.local('GET', '/api/orgs/1/workflows/')).json[0].workflow_stages, (await h.remote('GET', '/api/orgs/1/workflows/')).json[0].workflow_stages);
    const status = (await h.local('GET', '/api/orgs/1/sync/status/')).json;
    for (const field of ['state', 'pending', 'conflicts', 'last_synced_at', 'next_attempt_at', 'remote_reachable']) assert.ok(field in status, field);
    assert.equal(status.remote_reachable, true);
  });

  test('offline edits and creates work locally and converge after reconnect, with the minimum of requests', async () => {
    h.proxy.setOffline(true);
    const before = h.proxy.count('PATCH', PROJECT_PATCH);
    // Five edits to two projects...
    await h.local('PATCH', '/api/orgs/1/projects/21/', { notes: 'offline 1' });
    await h.local('PATCH', '/api/orgs/1/projects/22/', { site_notes: 'offline 2' });
    await h.local('PATCH', '/api/orgs/1/projects/21/', { notes: 'offline 3', priority: 1 });
    await h.local('PATCH', '/api/orgs/1/projects/22/', { lead_source: 'Referral' });
    await h.local('PATCH', '/api/orgs/1/projects/21/', { usage: { usage_data_source: 'kwh_annual', values: 5400 } });
    // ...and a project and a contact created offline.
    const created = await h.local('POST', '/api/orgs/1/projects/', { title: 'Made in the van', address: '5 Field Road', contacts_new: [{ first_name: 'Vera', family_name: 'Van', email: 'vera@example.com' }] });
    assert.equal(created.status, 201);
    assert.ok(created.json.id >= 1_000_000_000_000, 'a provisional id');
    assert.match(created.json.identifier, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'its identifier is generated offline (hosted-docs-facts.md 10)');
    const contact = await h.local('POST', '/api/orgs/1/contacts/', { first_name: 'Olly', family_name: 'Offline' });
    assert.equal((await h.local('GET', apiPaths.project(1, created.json.id))).json.title, 'Made in the van', 'reads work offline');

    h.agent.sync.wake();
    await h.agent.sync.settled();
    const status = (await h.local('GET', '/api/orgs/1/sync/status/')).json;
    assert.equal(status.state, 'offline');
    assert.equal(status.remote_reachable, false);
    const pending = (await h.local('GET', '/api/orgs/1/sync/pending/')).json;
    assert.ok(pending.length >= 7);
    assert.ok(pending.every((row: { reason: string }) => /cannot be reached/.test(row.reason)), JSON.stringify(pending[0]));

    h.proxy.setOffline(false);
    await h.synced();
    assert.equal(h.proxy.count('PATCH', PROJECT_PATCH) - before, 2, 'five edits to two projects are two PATCHes');
    const p21 = (await h.remote('GET', '/api/orgs/1/projects/21/')).json;
    assert.equal(p21.notes, 'offline 3');
    assert.equal(p21.priority, 1);
    assert.deepEqual(p21.usage, { usage_data_source: 'kwh_annual', values: 5400 });
    const p22 = (await h.remote('GET', '/api/orgs/1/projects/22/')).json;
    assert.equal(p22.site_notes, 'offline 2');
    assert.equal(p22.lead_source, 'Referral');

    const remoteMade = (await h.remote('GET', '/api/orgs/1/projects/?search=Made%20in%20the%20van')).json;
    assert.equal(remoteMade.length, 1);
    const remoteId = remoteMade[0].id;
    assert.ok(remoteId < 1_000_000_000_000);
    assert.equal(remoteMade[0].contacts_data[0].email, 'vera@example.com', 'sent with contacts_new');
    assert.equal((await h.local('GET', apiPaths.project(1, created.json.id))).status, 404, 're-keyed away from the provisional id');
    const rekeyed = (await h.local('GET', apiPaths.project(1, remoteId))).json;
    assert.equal(rekeyed.title, 'Made in the van');
    assert.equal(rekeyed.contacts_data[0].id, remoteMade[0].contacts_data[0].id, 'its contact re-keyed too');
    assert.equal(rekeyed.custom_data, null, 'the client op marker stays out of the local copy');
    assert.equal((await h.remote('GET', apiPaths.project(1, remoteId))).json.identifier, created.json.identifier, 'the remote keeps the identifier made offline');
    assert.equal(rekeyed.identifier, created.json.identifier);
    const remoteContacts = (await h.remote('GET', '/api/orgs/1/contacts/?search=Olly')).json;
    assert.equal(remoteContacts.length, 1);
    assert.equal((await h.local('GET', apiPaths.contact(1, contact.json.id))).status, 404);
    assert.equal((await h.local('GET', apiPaths.contact(1, remoteContacts[0].id))).json.first_name, 'Olly');
  });

  test('a create whose response was lost is not created twice; nor is a contact', async () => {
    h.proxy.addRule({ method: 'POST', path: /\/projects\/$/, action: { kind: 'drop_response' }, times: 1 });
    h.proxy.addRule({ method: 'POST', path: /\/contacts\/$/, action: { kind: 'drop_response' }, times: 1 });
    await h.local('POST', '/api/orgs/1/projects/', { title: 'Lost answer project' });
    await h.local('POST', '/api/orgs/1/contacts/', { first_name: 'Lost', family_name: 'Answer', email: 'lost@example.com' });
    await h.synced();
    h.proxy.clearRules();
    assert.ok(h.proxy.log.some((entry) => entry.status === 'dropped'), 'the proxy did lose a response');
    assert.equal((await h.remote('GET', '/api/orgs/1/projects/?search=Lost%20answer%20project')).json.length, 1);
    assert.equal((await h.remote('GET', '/api/orgs/1/contacts/?search=lost@example.com')).json.length, 1);
    assert.equal((await h.local('GET', '/api/orgs/1/projects/?search=Lost%20answer%20project')).json.length, 1);
  });

  test('changes to different fields merge; the same field changed on both sides is a conflict with both values', async () => {
    h.proxy.setOffline(true);
    await h.local('PATCH', '/api/orgs/1/projects/23/', { notes: 'local notes', site_notes: 'local site notes' });
    await h.remote('PATCH', '/api/orgs/1/projects/23/', { lead_source: 'remote lead source', notes: 'remote notes' });
    h.proxy.setOffline(false);
    await h.synced();
    const remote = (await h.remote('GET', '/api/orgs/1/projects/23/')).json;
    const local = (await h.local('GET', '/api/orgs/1/projects/23/')).json;
    assert.equal(remote.site_notes, 'local site notes', 'a local-only change went up');
    assert.equal(local.lead_source, 'remote lead source', 'a remote-only change came down');
    assert.equal(remote.notes, 'remote notes', 'the conflicting field was not overwritten');
    assert.equal(local.notes, 'local notes', 'nor silently dropped locally');
    const conflicts = (await h.local('GET', '/api/orgs/1/sync/conflicts/')).json;
    assert.equal(conflicts.length, 1);
    assert.deepEqual(
      { model: conflicts[0].model, record_id: conflicts[0].record_id, field: conflicts[0].field, local: conflicts[0].local_value, remote: conflicts[0].remote_value },
      { model: 'project', record_id: 23, field: 'notes', local: 'local notes', remote: 'remote notes' },
    );
    assert.equal((await h.local('GET', '/api/orgs/1/sync/status/')).json.conflicts, 1);

    const resolved = await h.local('POST', syncPaths.resolveConflict(1, conflicts[0].id), { choice: 'local' });
    assert.equal(resolved.status, 200);
    await h.synced();
    assert.equal((await h.remote('GET', '/api/orgs/1/projects/23/')).json.notes, 'local notes');
    assert.deepEqual((await h.local('GET', '/api/orgs/1/sync/conflicts/')).json, []);
  });

  test('a conflict settled with the remote value, or with a typed value', async () => {
    for (const [choice, value, expected] of [['remote', undefined, 'remote remote'], ['value', 'typed by hand', 'typed by hand']] as const) {
      h.proxy.setOffline(true);
      await h.local('PATCH', '/api/orgs/1/projects/24/', { notes: `local ${choice}` });
      await h.remote('PATCH', '/api/orgs/1/projects/24/', { notes: `remote ${choice}` });
      h.proxy.setOffline(false);
      await h.synced();
      const [conflict] = (await h.local('GET', '/api/orgs/1/sync/conflicts/')).json;
      assert.equal(conflict.field, 'notes');
      const resolved = await h.local('POST', syncPaths.resolveConflict(1, conflict.id), { choice, value });
      assert.equal(resolved.status, 200, resolved.text);
      await h.synced();
      assert.equal((await h.local('GET', '/api/orgs/1/projects/24/')).json.notes, expected);
      assert.equal((await h.remote('GET', '/api/orgs/1/projects/24/')).json.notes, expected);
    }
    const bad = await h.local('POST', '/api/orgs/1/sync/conflicts/999/resolve/', { choice: 'local' });
    assert.equal(bad.status, 404);
  });

  test('a change the remote rejects is parked with its error and blocks nothing else', async () => {
    h.proxy.addRule({ method: 'PATCH', path: /\/projects\/25\/$/, action: { kind: 'status', status: 400, body: { notes: ['Rejected by the remote for this test.'] } } });
    await h.local('PATCH', '/api/orgs/1/projects/25/', { notes: 'will be rejected' });
    await h.local('PATCH', '/api/orgs/1/projects/26/', { notes: 'goes through' });
    await h.synced();
    assert.equal((await h.remote('GET', '/api/orgs/1/projects/26/')).json.notes, 'goes through');
    const pending = (await h.local('GET', '/api/orgs/1/sync/pending/')).json;
    const parked = pending.find((row: { record_id: number }) => row.record_id === 25);
    assert.equal(parked.status, 'parked');
    // A sentence, not the raw answer (remote-errors.ts): the field and the remote's words.
    assert.equal(parked.reason, 'Not sent: the server refused it (Notes: Rejected by the remote for this test). Press Retry to send it again, or edit the record.');
    h.proxy.clearRules();
  });

  test('a 429 from the remote is honoured: the change waits for Retry-After, then goes', async () => {
    // Long enough that the waiting change is still there when this test looks, even on a loaded machine.
    h.proxy.addRule({ method: 'PATCH', path: /\/projects\/27\/$/, action: { kind: 'status', status: 429, body: { detail: 'Request was throttled. Expected available in 4 seconds.' }, headers: { 'retry-after': '4' } }, times: 1 });
    await h.local('PATCH', '/api/orgs/1/projects/27/', { notes: 'after a 429' });
    h.agent.sync.wake();
    await h.agent.sync.settled();
    const waiting = (await h.local('GET', '/api/orgs/1/sync/pending/')).json.find((row: { record_id: number }) => row.record_id === 27);
    assert.ok(waiting.waiting_until, 'it says until when');
    assert.match(waiting.reason, /asked to wait 4 s/);
    await h.synced();
    assert.equal((await h.remote('GET', '/api/orgs/1/projects/27/')).json.notes, 'after a 429');
    assert.equal(h.proxy.log.filter((entry) => entry.path === '/api/orgs/1/projects/27/' && entry.method === 'PATCH').length, 2);
  });

  test('a 429 on a pull leaves the remote reachable and the state idle, and the pull is tried again', async () => {
    h.proxy.addRule({ method: 'GET', path: /\/workflows\/$/, action: { kind: 'status', status: 429, body: { detail: 'Request was throttled. Expected available in 1 seconds.' }, headers: { 'retry-after': '1' } }, times: 1 });
    await h.remote('PATCH', '/api/orgs/1/projects/31/', { notes: 'after a throttled pull' });
    h.agent.sync.wake();
    await h.agent.sync.settled();
    const status = (await h.local('GET', '/api/orgs/1/sync/status/')).json;
    assert.equal(status.remote_reachable, true);
    assert.match(status.detail ?? '', /asked to wait/);
    await h.synced();
    assert.equal((await h.local('GET', '/api/orgs/1/projects/31/')).json.notes, 'after a throttled pull');
  });

  test('pause holds changes back; resume sends them', async () => {
    assert.equal((await h.local('POST', '/api/orgs/1/sync/pause/')).json.state, 'paused');
    const before = h.proxy.count('PATCH', PROJECT_PATCH);
    await h.local('PATCH', '/api/orgs/1/projects/28/', { notes: 'while paused' });
    h.agent.sync.wake();
    await h.agent.sync.settled();
    assert.equal(h.proxy.count('PATCH', PROJECT_PATCH), before);
    const held = (await h.local('GET', '/api/orgs/1/sync/pending/')).json.find((row: { record_id: number }) => row.record_id === 28);
    assert.match(held.reason, /paused/);
    assert.equal((await h.local('POST', '/api/orgs/1/sync/resume/')).status, 200);
    await h.synced();
    assert.equal((await h.remote('GET', '/api/orgs/1/projects/28/')).json.notes, 'while paused');
  });

  test('remote changes and deletions come down; started again it resumes with what it saved', async () => {
    await h.remote('PATCH', '/api/orgs/1/projects/29/', { title: 'Renamed on the remote' });
    const doomed = (await h.remote('POST', '/api/orgs/1/projects/', { title: 'Short-lived' })).json;
    await h.synced();
    assert.equal((await h.local('GET', apiPaths.project(1, doomed.id))).status, 200);
    assert.equal((await h.local('GET', '/api/orgs/1/projects/29/')).json.title, 'Renamed on the remote');
    await h.remote('DELETE', apiPaths.project(1, doomed.id));
    await h.restartAgent(); // --data only: same replica, same tokens
    await h.agent.context.db.updateTable('sync_state').set({ value: '0' }).where('key', '=', 'pull_count').execute(); // make the next pull sweep for deletions
    await h.synced();
    assert.equal((await h.local('GET', apiPaths.project(1, doomed.id))).status, 404, 'the remote deletion was noticed');
    assert.equal((await h.local('GET', '/api/orgs/1/projects/29/')).json.title, 'Renamed on the remote');
  });
});
