// Issue 27: events can now be changed (PATCH, PUT), also on a desktop replica. A
// change made offline waits in the outbox; when the agent reconnects, the remote's
// newer copy of the event's project (whose events_data carries the event) must not
// overwrite the waiting change before it is pushed. A real server and a real agent
// on 127.0.0.1 with the fault proxy between them (the only fake: the network).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

const PROJECT = 21;

describe('sync of changed events', () => {
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness();
  });
  after(() => h.close());

  test("an event changed offline keeps its change when the remote's copy of its project is pulled first", async () => {
    const created = await h.remote('POST', apiPaths.events(1), { project: apiPaths.project(1, PROJECT), title: 'Site visit', notes: 'as booked' });
    assert.equal(created.status, 201, created.text);
    // An event reaches a replica inside its project's detail, pulled when the project's version moves.
    await h.remote('PATCH', apiPaths.project(1, PROJECT), { notes: 'visit booked' });
    await h.synced();
    const pulled = await h.local('GET', apiPaths.event(1, created.json.id));
    assert.equal(pulled.json.title, 'Site visit', `the replica has it: ${pulled.status} ${pulled.text}`);

    h.proxy.setOffline(true);
    const renamed = await h.local('PATCH', apiPaths.event(1, created.json.id), { title: 'Site visit: moved to Friday' });
    assert.equal(renamed.status, 200, renamed.text);
    // Meanwhile someone in the office changes the project: the agent will pull it on reconnect.
    await h.remote('PATCH', apiPaths.project(1, PROJECT), { notes: 'changed in the office' });
    h.proxy.setOffline(false);
    await h.synced();

    assert.equal((await h.remote('GET', apiPaths.event(1, created.json.id))).json.title, 'Site visit: moved to Friday', 'the change reached the server');
    assert.equal((await h.local('GET', apiPaths.event(1, created.json.id))).json.title, 'Site visit: moved to Friday', 'and stayed here');
    assert.equal((await h.local('GET', apiPaths.project(1, PROJECT))).json.notes, 'changed in the office', "the project's own change came down");
  });
});
