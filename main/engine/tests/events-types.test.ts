// hosted-docs-facts.md 9: an event names its kind by an integer event_type_id from a
// fixed table (shared/event-types.ts); SolarDesk's own kinds map onto it (note 31,
// stage_changed 56, the other activity 29); the Event record carries the documented
// fields, in the API and in Event deliveries (cut by payload_fields); migration 0017
// gives existing events their id.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { EVENT_TYPES, eventTypeTitle } from '../../../shared/event-types.ts';
import { fillEventTypeIds } from '../store/migrations/0017-event-types-identifiers.ts';

const EVENT_RECORD_FIELDS = [
  'id', 'url', 'org', 'project', 'project_name', 'title', 'notes', 'event_type_id', 'action', 'contact', 'user', 'team_members', 'created_date',
  'modified_date', 'completion_date', 'start', 'end', 'duration', 'repeat', 'is_complete', 'is_archived', 'archive_for', 'task_status',
  'location_override', 'who',
];

type EventJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests index into records

describe('event types', () => {
  let server: TestServer;
  let token: string;
  let receiver: WebhookReceiver | undefined;
  const eventsOf = async (projectId: number): Promise<EventJson[]> =>
    (await server.request('GET', `${apiPaths.events(1)}?project=${projectId}&limit=100`, { token })).json;
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

  test('the shared table holds every documented id, and no undocumented one', () => {
    const documented = [
      [0, 4], [20, 32], [40, 42], [44, 45], [49, 57], [59, 68], [71, 75], [91, 91], [96, 97], [100, 123], [130, 133], [137, 142],
    ].flatMap(([from, to]) => Array.from({ length: to! - from! + 1 }, (_, index) => from! + index));
    assert.deepEqual(Object.keys(EVENT_TYPES).map(Number).sort((a, b) => a - b), documented);
    assert.equal(EVENT_TYPES[31], 'Note');
    assert.equal(EVENT_TYPES[56], 'Project Stage Changed');
    assert.equal(EVENT_TYPES[29], 'Activity (miscellaneous)');
    assert.equal(eventTypeTitle(43), 'Event type 43');
  });

  test("SolarDesk's activity maps onto the table: project created and contact added 29, stage changed 56, a note 31", async () => {
    const created = (await server.request('POST', apiPaths.projects(1), { token, body: { title: 'Mapped kinds', contacts_new: [{ first_name: 'Kim' }] } })).json;
    const workflows = (await server.request('GET', apiPaths.workflows(1), { token })).json;
    const sold = workflows[0].workflow_stages.find((stage: { milestone: number }) => stage.milestone === 2);
    await server.request('PATCH', apiPaths.project(1, created.id), { token, body: { active_stage_id: sold.id } });
    await server.request('POST', apiPaths.events(1), { token, body: { project: created.url, title: 'A note' } });
    const kinds = (await eventsOf(created.id)).map((event) => [event.event_type, event.event_type_id]);
    assert.deepEqual(kinds, [['note', 31], ['stage_changed', 56], ['contact_added', 29], ['project_created', 29]]);
  });

  test('a contact added to a project is named by the event about it', async () => {
    const created = (await server.request('POST', apiPaths.projects(1), { token, body: { title: 'Contact event', contacts_new: [{ first_name: 'Lee' }] } })).json;
    const added = (await eventsOf(created.id)).find((event) => event.event_type === 'contact_added')!;
    assert.equal(added.contact, created.contacts[0]);
    assert.equal((await eventsOf(created.id)).find((event) => event.event_type === 'project_created')!.contact, null);
  });

  test('create takes event_type_id from the table; without event_type it is named from the id', async () => {
    const project = (await server.request('GET', apiPaths.project(1, 5), { token })).json;
    const meeting = await server.request('POST', apiPaths.events(1), { token, body: { project: project.url, title: 'Site meeting', event_type_id: '27' } });
    assert.equal(meeting.status, 201, meeting.text);
    assert.equal(meeting.json.event_type_id, 27);
    assert.equal(meeting.json.event_type, 'activity');
    const note = await server.request('POST', apiPaths.events(1), { token, body: { project: project.url, title: 'By id', event_type_id: 31 } });
    assert.equal(note.json.event_type, 'note');
    const byName = await server.request('POST', apiPaths.events(1), { token, body: { project: project.url, title: 'By name', event_type: 'note' } });
    assert.equal(byName.json.event_type_id, 31);
    const neither = await server.request('POST', apiPaths.events(1), { token, body: { project: project.url, title: 'Neither' } });
    assert.deepEqual([neither.json.event_type, neither.json.event_type_id], ['note', 31]);
  });

  test('an event_type_id not in the table is 400 on that field, and nothing is created', async () => {
    const before = (await eventsOf(6)).length;
    for (const event_type_id of [43, 999, -1, 'call', 2.5]) {
      const response = await server.request('POST', apiPaths.events(1), { token, body: { project: apiPaths.project(1, 6), title: 'Bad kind', event_type_id } });
      assert.equal(response.status, 400, String(event_type_id));
      assert.ok(Array.isArray(response.json.event_type_id), response.text);
    }
    assert.equal((await eventsOf(6)).length, before);
  });

  test('the event record carries every documented field: url under its org, project_name, and who made it', async () => {
    const project = (await server.request('GET', apiPaths.project(1, 7), { token })).json;
    const created = await server.request('POST', apiPaths.events(1), { token, body: { project: project.url, title: 'Called', notes: 'Mornings', event_type_id: 20 } });
    const event = (await server.request('GET', apiPaths.event(1, created.json.id), { token })).json as EventJson;
    for (const field of EVENT_RECORD_FIELDS) assert.ok(field in event, field);
    assert.equal(event.url, server.baseUrl + '/api/orgs/1/events/' + String(event.id) + '/', 'under /api/orgs/<org>/events/<id>/');
    assert.equal(event.org, server.baseUrl + '/api/orgs/1/');
    assert.equal(event.project, project.url);
    assert.equal(event.project_name, project.title);
    assert.equal(event.event_type_id, 20);
    assert.deepEqual(event.who, { display: 'Alex Morgan', email: DEMO_USERS.sunriseAdmin, portrait_image_public_url: null });
    assert.deepEqual(event.team_members, []);
    assert.equal(event.is_complete, false);
    assert.equal(event.is_archived, false);
    const inProject = (await server.request('GET', apiPaths.project(1, 7), { token })).json.events_data.find((item: EventJson) => item.id === event.id);
    assert.deepEqual(inProject, event, "the project's events_data carries the same record");
    // An event the service recorded by itself names nobody.
    const recorded = (await eventsOf(7)).filter((item) => item.user === null);
    assert.ok(recorded.every((item) => item.who === null));
  });

  test('an Event delivery carries the record; payload_fields cut it to the paths named', async () => {
    receiver = await startWebhookReceiver();
    await server.request('POST', apiPaths.webhooks(1), { token, body: { endpoint: receiver.url, enabled: true, debug: false, trigger_fields: ['event.*'], payload_fields: ['project.id'] } });
    const whole = await server.request('POST', apiPaths.events(1), { token, body: { project: apiPaths.project(1, 8), title: 'Delivered whole', event_type_id: 25 } });
    const [call] = await receiver.waitForCalls(1);
    assert.equal(call!.body.model, 'Event');
    assert.equal(call!.body.model_id, whole.json.id);
    for (const field of EVENT_RECORD_FIELDS) assert.ok(field in call!.body.fields, field);
    assert.equal(call!.body.fields.event_type_id, 25);
    assert.equal(call!.body.fields.who.email, DEMO_USERS.sunriseAdmin);

    await server.engine.context.db.updateTable('webhooks').set({ enabled: 0 }).execute();
    await server.request('POST', apiPaths.webhooks(1), { token, body: { endpoint: receiver.url, enabled: true, debug: false, trigger_fields: ['event.*'], payload_fields: ['event.event_type_id', 'event.who.display'] } });
    await server.request('POST', apiPaths.events(1), { token, body: { project: apiPaths.project(1, 8), title: 'Delivered cut', event_type_id: 26 } });
    const [, cut] = await receiver.waitForCalls(2);
    assert.deepEqual(cut!.body.fields, { event_type_id: 26, who: { display: 'Alex Morgan' } });
  });

  test('migration 0017 gives existing events the id of their name', async () => {
    const db = server.engine.context.db;
    const project = (await server.request('POST', apiPaths.projects(1), { token, body: { title: 'Old events' } })).json;
    await server.request('POST', apiPaths.events(1), { token, body: { project: project.url, title: 'Old note', event_type: 'note' } });
    const ids = (await eventsOf(project.id)).map((event) => event.id as number);
    // As a store from before the migration holds them: a name, and the column's default.
    await db.updateTable('events').set({ event_type_id: 29 }).where('id', 'in', ids).execute();
    const stage = (await db.insertInto('events').values({ org_id: 1, project_id: project.id, event_type: 'stage_changed', title: 'Old stage change', notes: '', user_id: null, contact_id: null, created_date: project.created_date, modified_date: project.created_date }).returning('id').executeTakeFirstOrThrow()).id;
    await db.updateTable('events').set({ event_type_id: 29 }).where('id', '=', stage).execute();
    await fillEventTypeIds(db as unknown as Kysely<unknown>);
    const kinds = (await eventsOf(project.id)).map((event) => [event.event_type, event.event_type_id]);
    assert.deepEqual(kinds, [['stage_changed', 56], ['note', 31], ['project_created', 29]]);
  });
});
