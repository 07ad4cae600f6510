// Issue 19, findings 1 and 2: no acknowledged edit is silently replaced. Two real
// agents (two users of the sunrise org) sync with one real server on 127.0.0.1
// through the fault proxy; the proxy's only role beyond forwarding is to land
// another client's write at an exact moment (the race a test cannot otherwise time).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTwoUserHarness, type SyncHarness, type SyncedAgent } from '../testing/sync-harness.ts';
import type { SyncConflictJson } from '../../../shared/sync-api.ts';
import { DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';

const conflictsOf = async (agent: Pick<SyncedAgent, 'local'>): Promise<SyncConflictJson[]> => (await agent.local('GET', '/api/orgs/1/sync/conflicts/')).json;

describe('sync conflicts and write preconditions', () => {
  let h: SyncHarness;
  /** The admin's agent (h.agent) and the member's, on the same server. */
  let admin: SyncedAgent;
  let member: SyncedAgent;
  /** Projects both users see, and a private file on one of them. */
  let shared: number[];
  let fileId: number;

  before(async () => {
    ({ h, admin, member, shared, fileId } = await startTwoUserHarness('shared roof photo', 'roof.jpg', 'Roof'));
    assert.ok(shared.length >= 4, `the member sees some projects: ${shared.join(', ')}`);
    assert.equal((await member.local('GET', apiPaths.privateFile(1, fileId))).json.title, 'Roof', 'the member has the file');
  });
  after(() => h.close());

  const pause = (agent: SyncedAgent) => agent.local('POST', '/api/orgs/1/sync/pause/');
  const resume = (agent: SyncedAgent) => agent.local('POST', '/api/orgs/1/sync/resume/');

  /** The admin (paused) and the member each set a project's notes; once the admin syncs, the admin's conflict on them. */
  async function notesConflict(id: number, adminNotes: string, memberNotes: string): Promise<SyncConflictJson | undefined> {
    const path = apiPaths.project(1, id);
    await pause(admin);
    assert.equal((await admin.local('PATCH', path, { notes: adminNotes })).status, 200);
    assert.equal((await member.local('PATCH', path, { notes: memberNotes })).status, 200);
    await member.synced();
    await resume(admin);
    await admin.synced();
    return (await conflictsOf(admin)).find((row) => row.record_id === id);
  }

  test('finding 1: an edit made after a conflict is what settling it "local" keeps', async () => {
    const id = shared[1]!;
    const path = apiPaths.project(1, id);
    const conflict = await notesConflict(id, 'X1', 'from the member');
    assert.ok(conflict, 'the conflict was raised');
    assert.deepEqual([conflict.field, conflict.local_value, conflict.remote_value], ['notes', 'X1', 'from the member']);

    const later = await admin.local('PATCH', path, { notes: 'X2' });
    assert.equal(later.status, 200);
    assert.equal(later.json.notes, 'X2', 'the app shows X2');
    const shown = (await conflictsOf(admin)).find((row) => row.id === conflict.id);
    assert.equal(shown?.local_value, 'X2', 'the conflict shows the local value as it is now');

    const stale = await admin.local('POST', syncPaths.resolveConflict(1, conflict.id), { choice: 'remote', local_value: 'X1' });
    assert.equal(stale.status, 409, 'a choice made looking at X1 does not replace X2');
    assert.match(stale.json.detail, /changed after you looked.*"X2"/);

    const resolved = await admin.local('POST', syncPaths.resolveConflict(1, conflict.id), { choice: 'local' });
    assert.equal(resolved.status, 200, resolved.text);
    await admin.synced();
    await member.synced();
    assert.equal((await h.remote('GET', path)).json.notes, 'X2', 'X2 reached the server');
    assert.equal((await admin.local('GET', path)).json.notes, 'X2');
    assert.equal((await member.local('GET', path)).json.notes, 'X2');
    assert.deepEqual((await conflictsOf(admin)).filter((row) => row.record_id === id), []);
  });

  test('a remote value that arrives after the user looked is not replaced unseen: "keep mine" on the older one is refused, and kept once looked at again', async () => {
    // The soak found it (seed 174214830): the pull put the newer remote value into the
    // open conflict, and "local", chosen looking at the older one, overwrote it unseen.
    const id = shared[2]!;
    const path = apiPaths.project(1, id);
    const looked = await notesConflict(id, 'mine', 'theirs 1');
    assert.deepEqual([looked?.local_value, looked?.remote_value], ['mine', 'theirs 1']);

    // The member writes again; the admin's agent pulls it into the open conflict.
    assert.equal((await member.local('PATCH', path, { notes: 'theirs 2' })).status, 200);
    await member.synced();
    await admin.synced();
    assert.equal((await conflictsOf(admin)).find((row) => row.id === looked!.id)?.remote_value, 'theirs 2');

    for (const stale of [{ choice: 'local' }, { choice: 'value', value: 'typed over it' }]) {
      const refused = await admin.local('POST', syncPaths.resolveConflict(1, looked!.id), { ...stale, local_value: 'mine', remote_value: 'theirs 1' });
      assert.equal(refused.status, 409, `${stale.choice} on the older remote value`);
      assert.match(refused.json.detail, /remote's value of notes changed after you looked.*"theirs 2"/);
    }
    assert.equal((await h.remote('GET', path)).json.notes, 'theirs 2', 'nothing replaced it');

    const resolved = await admin.local('POST', syncPaths.resolveConflict(1, looked!.id), { choice: 'local', local_value: 'mine', remote_value: 'theirs 2' });
    assert.equal(resolved.status, 200, resolved.text);
    await admin.synced();
    await member.synced();
    assert.equal((await h.remote('GET', path)).json.notes, 'mine', 'kept, having seen "theirs 2"');
    assert.equal((await member.local('GET', path)).json.notes, 'mine');
  });

  /**
   * Both agents paused, each edits the same field, both resumed at the same moment.
   * Exactly one value wins on the server; the other agent keeps its own value and
   * has a conflict showing both. Then the loser takes the remote value, for the next round.
   */
  async function concurrentEdits(model: 'project' | 'private_file', path: string, field: 'notes' | 'title', round: number): Promise<void> {
    const values = new Map([
      [admin, `admin ${model} ${round}`],
      [member, `member ${model} ${round}`],
    ]);
    await Promise.all([pause(admin), pause(member)]);
    for (const [agent, value] of values) assert.equal((await agent.local('PATCH', path, { [field]: value })).status, 200);
    await Promise.all([resume(admin), resume(member)]);
    await Promise.all([admin.synced(), member.synced()]);
    await Promise.all([admin.synced(), member.synced()]); // a second pass: whatever either still had to learn
    const onServer = (await h.remote('GET', path)).json[field];
    const winner = [...values].find(([, value]) => value === onServer)?.[0];
    assert.ok(winner, `round ${round}: the server holds one of the two edits, not ${JSON.stringify(onServer)}`);
    const loser = winner === admin ? member : admin;
    const lost = values.get(loser)!;
    assert.equal((await winner.local('GET', path)).json[field], onServer, `round ${round}: the winner agrees with the server`);
    assert.equal((await loser.local('GET', path)).json[field], lost, `round ${round}: the other edit is not silently replaced`);
    const recordId = Number(path.split('/').at(-2));
    const loserConflicts = (await conflictsOf(loser)).filter((row) => row.model === model && row.record_id === recordId && row.field === field);
    assert.equal(loserConflicts.length, 1, `round ${round}: the other agent has a conflict for ${field}`);
    assert.deepEqual([loserConflicts[0]!.local_value, loserConflicts[0]!.remote_value], [lost, onServer], `round ${round}: showing both values`);
    assert.deepEqual((await conflictsOf(winner)).filter((row) => row.record_id === recordId), [], `round ${round}: the winner has none`);

    const settled = await loser.local('POST', syncPaths.resolveConflict(1, loserConflicts[0]!.id), { choice: 'remote', local_value: lost });
    assert.equal(settled.status, 200, settled.text);
    await Promise.all([admin.synced(), member.synced()]);
    assert.equal((await loser.local('GET', path)).json[field], onServer);
  }

  test('finding 2: two agents edit one project field at the same moment: one wins, the other has the conflict (4 rounds)', async () => {
    for (let round = 1; round <= 4; round++) await concurrentEdits('project', apiPaths.project(1, shared[2]!), 'notes', round);
  });

  test('finding 2: two agents rename one private file at the same moment: one wins, the other has the conflict (3 rounds)', async () => {
    for (let round = 1; round <= 3; round++) await concurrentEdits('private_file', apiPaths.privateFile(1, fileId), 'title', round);
  });

  test('a PATCH whose record moved after the pull gets 412; the same field becomes a conflict, another field merges', async () => {
    const id = shared[3]!;
    const path = apiPaths.project(1, id);
    const patches = () => h.proxy.log.filter((entry) => entry.method === 'PATCH' && entry.path === path).map((entry) => entry.status);
    // Another user's write lands between this agent's pull and its PATCH.
    h.proxy.addRule({ method: 'PATCH', path: new RegExp(`^${path}$`), times: 1, action: { kind: 'hook', run: async () => void (await h.remote('PATCH', path, { notes: 'landed in between', site_notes: 'theirs' })) } });
    await admin.local('PATCH', path, { notes: 'mine', lead_source: 'mine too' });
    await admin.synced();
    h.proxy.clearRules();
    assert.deepEqual(patches(), [412, 200], 'refused once, then sent again with the new version');
    const remote = (await h.remote('GET', path)).json;
    assert.equal(remote.notes, 'landed in between', 'the field changed on both sides was not overwritten');
    assert.equal(remote.lead_source, 'mine too', 'the field changed only here went up');
    const local = (await admin.local('GET', path)).json;
    assert.equal(local.site_notes, 'theirs', 'their other field came down');
    assert.equal(local.notes, 'mine', 'this edit is kept here');
    const conflict = (await conflictsOf(admin)).find((row) => row.record_id === id);
    assert.deepEqual([conflict?.field, conflict?.local_value, conflict?.remote_value], ['notes', 'mine', 'landed in between']);
    await admin.local('POST', syncPaths.resolveConflict(1, conflict!.id), { choice: 'remote' });
    await admin.synced();
  });

  test('against a remote that ignores If-Match, the record is read again right before the PATCH', async () => {
    const hosted = await h.addAgent(DEMO_USERS.sunriseAdmin, { remotePreconditions: 'off' });
    const id = shared[3]!;
    const path = apiPaths.project(1, id);
    const before = h.proxy.log.length;
    await pause(hosted);
    await hosted.local('PATCH', path, { notes: 'from the hosted-mode agent' });
    // Another user's write lands after this agent's pull, as its re-read leaves.
    h.proxy.addRule({ method: 'GET', path: new RegExp(`^${path}$`), times: 1, action: { kind: 'hook', run: async () => void (await h.remote('PATCH', path, { notes: 'just before the write' })) } });
    await resume(hosted);
    await hosted.synced();
    h.proxy.clearRules();
    assert.equal((await h.remote('GET', path)).json.notes, 'just before the write', 'not overwritten');
    const conflict = (await conflictsOf(hosted)).find((row) => row.record_id === id);
    assert.deepEqual([conflict?.local_value, conflict?.remote_value], ['from the hosted-mode agent', 'just before the write']);
    assert.equal(h.proxy.log.slice(before).filter((entry) => entry.method === 'PATCH' && entry.path === path).length, 0, 'no PATCH went out for the conflicted field');
  });
});
