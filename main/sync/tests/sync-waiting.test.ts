// Changes that wait (issue 19 soak): a change held for the user must neither spin
// the sync loop nor leave a record stuck. Two real agents (the admin's and the
// member's) sync with one real server on 127.0.0.1 through the fault proxy, whose
// log counts the requests that reach the server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTwoUserHarness, type SyncHarness, type SyncedAgent } from '../testing/sync-harness.ts';
import { heldDeleteOf, holdDelete } from '../outbox.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('sync: changes that wait for the user', () => {
  let h: SyncHarness;
  let admin: SyncedAgent;
  let member: SyncedAgent;
  let shared: number[];
  let fileId: number;

  before(async () => {
    // The harness polls once an hour: every cycle here is one that was asked for.
    ({ h, admin, member, shared, fileId } = await startTwoUserHarness('site plan bytes', 'plan.pdf', 'Plan'));
  });
  after(() => h.close());

  test('a change held by an open conflict does not make the agent sync over and over', async () => {
    const path = apiPaths.project(1, shared[1]!);
    await admin.local('POST', '/api/orgs/1/sync/pause/');
    await admin.local('PATCH', path, { notes: 'admin, offline' });
    await member.local('PATCH', path, { notes: 'member' });
    await member.synced();
    await admin.local('POST', '/api/orgs/1/sync/resume/');
    await admin.synced();
    const conflicts = (await admin.local('GET', '/api/orgs/1/sync/conflicts/')).json as Array<{ id: number; record_id: number }>;
    assert.equal(conflicts.filter((conflict) => conflict.record_id === shared[1]).length, 1, 'the conflict is open');

    const before = h.proxy.log.length;
    await sleep(1500);
    const requests = h.proxy.log.length - before;
    assert.ok(requests <= 10, `${requests} requests in 1.5 s while only a conflicted change waits (a cycle every 50 ms before the fix)`);
    const status = (await admin.local('GET', '/api/orgs/1/sync/status/')).json;
    assert.ok(status.next_attempt_at === null || Date.parse(status.next_attempt_at) > Date.now(), `next attempt ${status.next_attempt_at} is not in the past`);

    // Settling it still sends the change at once.
    const settled = await admin.local('POST', syncPaths.resolveConflict(1, conflicts[0]!.id), { choice: 'local' });
    assert.equal(settled.status, 200, settled.text);
    await admin.synced(5000);
    assert.equal((await h.remote('GET', path)).json.notes, 'admin, offline');
  });

  test('a file whose deletion is held still follows the remote, and a later edit of it goes up', async () => {
    const path = apiPaths.privateFile(1, fileId);
    // Deleted in the admin's project folder: the deletion waits for confirmation, the file stays.
    await holdDelete(admin.agent.context.db, fileId, 'Deleted in the project folder (test).', new Date().toISOString());
    await member.local('PATCH', path, { title: 'Plan, renamed by the member' });
    await member.synced();
    await admin.synced(5000);
    assert.equal((await admin.local('GET', path)).json.title, 'Plan, renamed by the member', 'the remote rename came down');

    await admin.local('PATCH', path, { title: 'Plan, renamed by the admin' });
    await admin.synced(5000); // before the fix: 412 on every round (the version never moved), retried forever
    assert.equal((await h.remote('GET', path)).json.title, 'Plan, renamed by the admin', 'the edit reached the server');
    assert.ok(await heldDeleteOf(admin.agent.context.db, fileId), 'the deletion is still held for the user');
    const conflicts = (await admin.local('GET', '/api/orgs/1/sync/conflicts/')).json as Array<{ record_id: number; model: string }>;
    assert.deepEqual(conflicts.filter((conflict) => conflict.model === 'private_file'), [], 'nothing to settle: the admin had seen the rename');
  });
});
