// Issue 27: events can now be changed (PATCH, PUT), also on a desktop replica. A
// change made offline waits in the outbox; when the agent reconnects, the remote's
// newer copy of the event's project (whose events_data carries the event) must not
// overwrite the waiting change before it is pushed. A real server and a real agent
// on 127.0.0.1 with the fault proxy between them (the only fake: the network).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';
import { eventFieldLabel } from '../../../shared/event-fields.ts';
import type { SyncConflictJson } from '../../../shared/sync-api.ts';
import { STATE_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

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

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API JSON

/** Polls until `check` holds, failing after `timeoutMs`: what the change feed brings arrives on its own, not on a cycle the test asks for. */
async function within(timeoutMs: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + Math.max(timeoutMs, STATE_HANG_GUARD_MS); // a hang guard (issue 33)
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not there after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every schedule field of an event as the API answers it, references reduced to their ids. */
function scheduleOf(event: Json): Json {
  const idOf = (url: string | null) => (url === null ? null : Number(/\/(\d+)\/$/.exec(url)?.[1]));
  return {
    title: event.title,
    notes: event.notes,
    event_type_id: event.event_type_id,
    project: idOf(event.project),
    contact: idOf(event.contact),
    team_members: (event.team_members as string[]).map(idOf).sort(),
    start: event.start,
    end: event.end,
    duration: event.duration,
    is_complete: event.is_complete,
    completion_date: event.completion_date,
    is_archived: event.is_archived,
    task_status: event.task_status,
    repeat: event.repeat,
    location_override: event.location_override,
  };
}

describe('sync carries every field of an event both ways (issue 27)', () => {
  let h: SyncHarness;
  let roleIds: number[];
  let contactId: number;
  before(async () => {
    h = await startSyncHarness();
    roleIds = ((await h.remote('GET', apiPaths.roles(1))).json as Json[]).map((role) => role.id as number);
    assert.ok(roleIds.length >= 2, 'the org has two roles to send');
    contactId = (await h.remote('GET', apiPaths.contacts(1))).json[0].id;
    await within(10_000, 'the feed listening', async () => h.agent.feed?.state === 'listening');
  });
  after(() => h.close());

  test('an event booked offline with every field reaches the remote with every field', async () => {
    h.proxy.setOffline(true);
    const booked = await h.local('POST', apiPaths.events(1), {
      project: apiPaths.project(1, PROJECT),
      title: 'Installation',
      notes: 'bring the long ladder',
      event_type_id: 40,
      contact: apiPaths.contact(1, contactId),
      team_members: [apiPaths.role(1, roleIds[1]!), apiPaths.role(1, roleIds[0]!)],
      start: '2026-12-01T09:00:00+01:00',
      end: '2026-12-01T13:30:00+01:00',
      duration: '04:30:00',
      is_complete: true,
      completion_date: '2026-12-01T12:45:00Z',
      task_status: 2,
      repeat: { frequency: 'weekly', count: 3 },
      location_override: 'the barn behind the house',
    });
    assert.equal(booked.status, 201, booked.text);
    h.proxy.setOffline(false);
    await h.synced();
    const remoteList = (await h.remote('GET', `${apiPaths.events(1)}?project=${PROJECT}&limit=100`)).json as Json[];
    const arrived = remoteList.find((event) => event.title === 'Installation');
    assert.ok(arrived, 'the event is on the server');
    const expected = {
      title: 'Installation',
      notes: 'bring the long ladder',
      event_type_id: 40,
      project: PROJECT,
      contact: contactId,
      team_members: [roleIds[0], roleIds[1]].sort(),
      start: '2026-12-01T08:00:00.000Z',
      end: '2026-12-01T12:30:00.000Z',
      duration: '04:30:00',
      is_complete: true,
      completion_date: '2026-12-01T12:45:00.000Z',
      is_archived: false,
      task_status: 2,
      repeat: { frequency: 'weekly', count: 3 },
      location_override: 'the barn behind the house',
    };
    assert.deepEqual(scheduleOf(arrived), expected, 'every field reached the server');
    const local = await h.local('GET', apiPaths.event(1, arrived.id));
    assert.equal(local.status, 200, 'the replica holds it under the id the server gave it');
    assert.deepEqual(scheduleOf(local.json), expected, 'and keeps every field');
    assert.ok(booked.json.who?.email, 'the booking names who made it');
    assert.equal(local.json.who?.email, booked.json.who.email, 'and still does after the server answered');
  });

  test('an event changed on the remote by another client reaches the replica with every field, through the change feed', async () => {
    const created = await h.remote('POST', apiPaths.events(1), { project: apiPaths.project(1, PROJECT), title: 'Survey', event_type_id: 42 });
    assert.equal(created.status, 201, created.text);
    const path = apiPaths.event(1, created.json.id);
    await within(10_000, 'the new event', async () => (await h.local('GET', path)).status === 200);
    const changed = await h.remote('PATCH', path, {
      notes: 'ring twice',
      contact: apiPaths.contact(1, contactId),
      team_members: [apiPaths.role(1, roleIds[0]!)],
      start: '2026-12-02T07:30:00Z',
      end: '2026-12-02T08:30:00Z',
      duration: 3600,
      is_complete: true,
      completion_date: '2026-12-02T08:20:00Z',
      is_archived: true,
      task_status: 3,
      repeat: { frequency: 'daily' },
      location_override: 'site office',
    });
    assert.equal(changed.status, 200, changed.text);
    // No cycle is asked for: only the feed brings it (a project's version does not move when its event changes).
    await within(10_000, 'the change', async () => (await h.local('GET', path)).json?.location_override === 'site office');
    assert.deepEqual(scheduleOf((await h.local('GET', path)).json), scheduleOf(changed.json), 'every field came down');
  });

  test('both sides change different fields of an event: merged; the same field: a conflict the Sync screen names, settled like a project\'s', async () => {
    const created = await h.remote('POST', apiPaths.events(1), {
      project: apiPaths.project(1, PROJECT),
      title: 'Maintenance visit',
      event_type_id: 41,
      start: '2026-12-05T09:00:00Z',
      team_members: [apiPaths.role(1, roleIds[0]!)],
    });
    assert.equal(created.status, 201, created.text);
    const path = apiPaths.event(1, created.json.id);
    await within(10_000, 'the event', async () => (await h.local('GET', path)).status === 200);

    h.proxy.setOffline(true);
    const here = await h.local('PATCH', path, { start: '2026-12-05T11:00:00Z', duration: '01:00:00', team_members: [apiPaths.role(1, roleIds[1]!)] });
    assert.equal(here.status, 200, here.text);
    const there = await h.remote('PATCH', path, { location_override: 'the neighbour\'s drive', team_members: [apiPaths.role(1, roleIds[0]!), apiPaths.role(1, roleIds[1]!)] });
    assert.equal(there.status, 200, there.text);
    h.proxy.setOffline(false);
    await h.synced();

    const both = [roleIds[0]!, roleIds[1]!].sort((a, b) => a - b);
    const onServer = scheduleOf((await h.remote('GET', path)).json);
    assert.deepEqual([onServer.start, onServer.duration, onServer.location_override], ['2026-12-05T11:00:00.000Z', '01:00:00', "the neighbour's drive"], 'the fields changed on one side each are merged on the server');
    assert.deepEqual(onServer.team_members, both, 'the field changed on both sides keeps the server\'s value there');
    const replica = scheduleOf((await h.local('GET', path)).json);
    assert.deepEqual([replica.start, replica.duration, replica.location_override], ['2026-12-05T11:00:00.000Z', '01:00:00', "the neighbour's drive"], 'and here');
    assert.deepEqual(replica.team_members, [roleIds[1]], 'and this computer\'s value here, until the user chooses');

    const conflicts = ((await h.local('GET', syncPaths.conflicts(1))).json as SyncConflictJson[]).filter((row) => row.model === 'event' && row.record_id === created.json.id);
    assert.deepEqual(conflicts.map((row) => [row.field, row.local_value, row.remote_value]), [['team_members', [roleIds[1]], both]], 'one conflict, on the team');
    assert.equal(eventFieldLabel(conflicts[0]!.field), 'Who goes', 'the Sync screen names it in people\'s words');

    // The user types a third team: checked as a write would be, then applied here and sent.
    const resolve = (value: unknown) => h.local('POST', syncPaths.resolveConflict(1, conflicts[0]!.id), { choice: 'value', value, local_value: conflicts[0]!.local_value });
    const refused = await resolve(['Sam']);
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.text, /must be the URL of one of the organisation's roles/);
    const settled = await resolve([apiPaths.role(1, roleIds[0]!)]);
    assert.equal(settled.status, 200, settled.text);
    assert.deepEqual(scheduleOf((await h.local('GET', path)).json).team_members, [roleIds[0]], 'the typed team is the event\'s here at once');
    await h.synced();
    assert.deepEqual(scheduleOf((await h.remote('GET', path)).json).team_members, [roleIds[0]], 'and it reached the server');
    const left = ((await h.local('GET', syncPaths.conflicts(1))).json as SyncConflictJson[]).filter((row) => row.model === 'event');
    assert.deepEqual(left, [], 'nothing is left to settle');
  });

  test('a delete on either side reaches the other', async () => {
    const here = await h.local('POST', apiPaths.events(1), { project: apiPaths.project(1, PROJECT), title: 'Deleted here', start: '2026-12-03T10:00:00Z' });
    assert.equal(here.status, 201, here.text);
    await h.synced();
    const hereRemote = ((await h.remote('GET', `${apiPaths.events(1)}?project=${PROJECT}&limit=100`)).json as Json[]).find((event) => event.title === 'Deleted here');
    assert.ok(hereRemote, 'it reached the server');
    assert.equal((await h.local('DELETE', apiPaths.event(1, hereRemote.id))).status, 204);
    await h.synced();
    assert.equal((await h.remote('GET', apiPaths.event(1, hereRemote.id))).status, 404, 'the delete made here reached the server');

    const there = await h.remote('POST', apiPaths.events(1), { project: apiPaths.project(1, PROJECT), title: 'Deleted there', start: '2026-12-04T10:00:00Z' });
    assert.equal(there.status, 201, there.text);
    await within(10_000, 'the event made there', async () => (await h.local('GET', apiPaths.event(1, there.json.id))).status === 200);
    assert.equal((await h.remote('DELETE', apiPaths.event(1, there.json.id))).status, 204);
    await within(10_000, 'the delete made there', async () => (await h.local('GET', apiPaths.event(1, there.json.id))).status === 404);
  });
});
