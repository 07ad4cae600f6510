// Issue 27, item 3: the org's contacts (not only those inside a project's detail)
// sync both ways with field-level merge and conflicts, and attaching a contact to a
// project or detaching it (the project's `contacts`) syncs. A real server and a real
// agent on 127.0.0.1 with the fault proxy between them (the only fake: the network,
// taken offline and back).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';
import type { SyncConflictJson } from '../../../shared/sync-api.ts';
import { STATE_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API JSON

const PROJECT = 21;

/** Polls until `check` holds, failing after `timeoutMs`: what the change feed brings arrives on its own. */
async function within(timeoutMs: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + Math.max(timeoutMs, STATE_HANG_GUARD_MS); // a hang guard (issue 33)
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not there after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const contactIdsOf = (project: Json): number[] => (project.contacts as string[]).map((url) => Number(/\/(\d+)\/$/.exec(url)?.[1]));

describe("sync of the org's contacts (issue 27)", () => {
  let h: SyncHarness;
  /** The org contact made offline in the first test, under the id the server gave it. */
  let contactId: number;
  before(async () => {
    h = await startSyncHarness();
    await within(10_000, 'the feed listening', async () => h.agent.feed?.state === 'listening');
  });
  after(() => h.close());

  const conflictsOf = async (id: number): Promise<SyncConflictJson[]> =>
    ((await h.local('GET', syncPaths.conflicts(1))).json as SyncConflictJson[]).filter((row) => row.model === 'contact' && row.record_id === id);

  test('a contact made offline, on no project, reaches the server with every field', async () => {
    h.proxy.setOffline(true);
    const fields = {
      first_name: 'Oona',
      family_name: 'Testworth',
      email: 'oona.testworth@example.net',
      phone: '+61 400 111 222',
      custom_contact_info_1: 'gate code 4411',
      date_of_birth: '1980-02-29',
      gender: 2,
    };
    const made = await h.local('POST', apiPaths.contacts(1), fields);
    assert.equal(made.status, 201, made.text);
    h.proxy.setOffline(false);
    await h.synced();
    const onServer = ((await h.remote('GET', `${apiPaths.contacts(1)}?search=testworth&limit=100`)).json as Json[]).filter((contact) => contact.email === fields.email);
    assert.equal(onServer.length, 1, 'on the server once');
    contactId = onServer[0]!.id;
    for (const [field, value] of Object.entries(fields)) assert.equal(onServer[0]![field], value, field);
    assert.equal((await h.local('GET', apiPaths.contact(1, contactId))).json.email, fields.email, 'the replica holds it under the server\'s id');
  });

  test('a contact changed on the server by another client reaches the replica through the change feed', async () => {
    assert.equal((await h.remote('PATCH', apiPaths.contact(1, contactId), { custom_contact_info_2: 'prefers SMS' })).status, 200);
    await within(10_000, 'the change', async () => (await h.local('GET', apiPaths.contact(1, contactId))).json?.custom_contact_info_2 === 'prefers SMS');
  });

  test('different fields changed on each side merge; the same field becomes a conflict, settled by the user', async () => {
    const path = apiPaths.contact(1, contactId);
    h.proxy.setOffline(true);
    assert.equal((await h.local('PATCH', path, { phone: '+61 400 999 000', family_name: 'Testworth-Li' })).status, 200);
    assert.equal((await h.remote('PATCH', path, { email: 'oona@testworth.example', family_name: 'Tastworth' })).status, 200);
    h.proxy.setOffline(false);
    await h.synced();

    const server = (await h.remote('GET', path)).json;
    const replica = (await h.local('GET', path)).json;
    for (const side of [server, replica]) assert.deepEqual([side.phone, side.email], ['+61 400 999 000', 'oona@testworth.example'], 'the fields changed on one side each merge on both');
    assert.equal(server.family_name, 'Tastworth', 'the field changed on both keeps the server\'s value there');
    assert.equal(replica.family_name, 'Testworth-Li', 'and this computer\'s value here');
    const [conflict, ...more] = await conflictsOf(contactId);
    assert.deepEqual(more, []);
    assert.deepEqual([conflict?.field, conflict?.local_value, conflict?.remote_value], ['family_name', 'Testworth-Li', 'Tastworth']);

    const settled = await h.local('POST', syncPaths.resolveConflict(1, conflict!.id), { choice: 'remote', local_value: 'Testworth-Li' });
    assert.equal(settled.status, 200, settled.text);
    await h.synced();
    assert.equal((await h.local('GET', path)).json.family_name, 'Tastworth', 'the server\'s value taken here');
    assert.equal((await h.remote('GET', path)).json.family_name, 'Tastworth');
    assert.deepEqual(await conflictsOf(contactId), []);
  });

  test('attaching the contact to a project here, and detaching it on the server, both sync', async () => {
    const projectPath = apiPaths.project(1, PROJECT);
    const before = contactIdsOf((await h.local('GET', projectPath)).json);
    assert.ok(!before.includes(contactId));
    h.proxy.setOffline(true);
    const attached = await h.local('PATCH', projectPath, { contacts: [...before, contactId].map((id) => apiPaths.contact(1, id)) });
    assert.equal(attached.status, 200, attached.text);
    h.proxy.setOffline(false);
    await h.synced();
    assert.deepEqual(contactIdsOf((await h.remote('GET', projectPath)).json), [...before, contactId], 'attached on the server');

    const detached = await h.remote('PATCH', projectPath, { contacts: before.map((id) => apiPaths.contact(1, id)) });
    assert.equal(detached.status, 200, detached.text);
    await within(10_000, 'the detach', async () => !contactIdsOf((await h.local('GET', projectPath)).json).includes(contactId));
    assert.deepEqual(contactIdsOf((await h.local('GET', projectPath)).json), before);
    assert.equal((await h.local('GET', apiPaths.contact(1, contactId))).status, 200, 'the contact stays in the org');
  });

  test('a contact deleted on the server leaves the replica; one deleted here leaves the server', async () => {
    const there = await h.remote('POST', apiPaths.contacts(1), { first_name: 'Short', family_name: 'Lived' });
    assert.equal(there.status, 201, there.text);
    await within(10_000, 'the contact made there', async () => (await h.local('GET', apiPaths.contact(1, there.json.id))).status === 200);
    assert.equal((await h.remote('DELETE', apiPaths.contact(1, there.json.id))).status, 204);
    await within(10_000, 'its deletion', async () => (await h.local('GET', apiPaths.contact(1, there.json.id))).status === 404);

    assert.equal((await h.local('DELETE', apiPaths.contact(1, contactId))).status, 204);
    await h.synced();
    assert.equal((await h.remote('GET', apiPaths.contact(1, contactId))).status, 404, 'the deletion made here reached the server');
  });
});
