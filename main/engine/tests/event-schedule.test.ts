// Issue 27 "Schedule": an event is a schedule entry. Every field of the hosted Event
// record (hosted-docs-facts.md 9) is stored and answered (create, PATCH, PUT, GET,
// list, the project's events_data); the list filters by project, time, kind,
// completion and team member; bad values are 400 on their field in people's words;
// completing stamps the time; changes fire Event webhooks; an event on a project the
// user may not see is 403, as the project is. A real engine on a real store; the
// webhook endpoint is the test's own receiver on 127.0.0.1.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests index into records

// Projects of Sunrise Solar: the member holds a role on 1, not on 2 (contact-access.test.ts).
const VISIBLE_TO_MEMBER = 1;
const HIDDEN_FROM_MEMBER = 2;

describe('the schedule: events with every field', () => {
  let server: TestServer;
  let token: string;
  let memberToken: string;
  let roleUrls: string[];
  let contactUrl: string;
  let otherOrgRoleUrl: string;
  let otherOrgContactUrl: string;
  let receiver: WebhookReceiver | undefined;
  const url = (path: string) => server.baseUrl + path;

  before(async () => {
    server = await startTestServer({ webhookDelivery: { pollIntervalMs: 50 } });
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    memberToken = await server.tokenFor(DEMO_USERS.sunriseMember);
    const roles = (await server.request('GET', apiPaths.roles(1), { token })).json as Json[];
    roleUrls = roles.map((role) => role.url as string);
    assert.ok(roleUrls.length >= 2, 'the demo org has people to send');
    const project = (await server.request('GET', apiPaths.project(1, VISIBLE_TO_MEMBER), { token })).json;
    contactUrl = project.contacts[0];
    const db = server.engine.context.db;
    const otherRole = await db.selectFrom('roles').select('id').where('org_id', '=', 2).executeTakeFirstOrThrow();
    otherOrgRoleUrl = url(apiPaths.role(2, otherRole.id));
    const otherContact = await db.selectFrom('contacts').select('id').where('org_id', '=', 2).executeTakeFirstOrThrow();
    otherOrgContactUrl = url(apiPaths.contact(2, otherContact.id));
  });
  after(() => server.close());
  afterEach(async () => {
    await server.engine.context.db.updateTable('webhooks').set({ enabled: 0 }).execute();
    await receiver?.close();
    receiver = undefined;
  });

  const visit = () => ({
    project: url(apiPaths.project(1, VISIBLE_TO_MEMBER)),
    title: 'Site visit',
    notes: 'Bring the ladder',
    event_type_id: 42,
    start: '2026-12-01T09:00:00+10:00',
    end: '2026-12-01T10:30:00+10:00',
    duration: '01:30:00',
    team_members: roleUrls.slice(0, 2),
    contact: contactUrl,
    task_status: 1,
    repeat: { freq: 'weekly', count: 3 },
    location_override: '12 Side Street, Newtown',
  });
  const create = async (body: Json, as = token) => server.request('POST', apiPaths.events(1), { token: as, body });
  const list = async (query: string, as = token): Promise<Json[]> => {
    const response = await server.request('GET', `${apiPaths.events(1)}?limit=1000&${query}`, { token: as });
    assert.equal(response.status, 200, response.text);
    return response.json;
  };

  test('every field round-trips through create, GET, the list and the project', async () => {
    const created = await create(visit());
    assert.equal(created.status, 201, created.text);
    // As sent, but the times in UTC (the instant they name) and the flags a new event starts with.
    const expected = {
      ...visit(),
      start: '2026-11-30T23:00:00.000Z',
      end: '2026-12-01T00:30:00.000Z',
      is_complete: false,
      completion_date: null,
      is_archived: false,
    };
    const pick = (event: Json) => Object.fromEntries(Object.keys(expected).map((field) => [field, event[field]]));
    assert.deepEqual(pick(created.json), expected);
    assert.deepEqual(pick((await server.request('GET', apiPaths.event(1, created.json.id), { token })).json), expected);
    assert.deepEqual(pick((await list(`project=${VISIBLE_TO_MEMBER}`)).find((event) => event.id === created.json.id)!), expected);
    const inProject = (await server.request('GET', apiPaths.project(1, VISIBLE_TO_MEMBER), { token })).json.events_data.find((event: Json) => event.id === created.json.id);
    assert.deepEqual(pick(inProject), expected);
  });

  test('PATCH changes only the fields it carries; PUT changes what it carries; null clears', async () => {
    const created = (await create(visit())).json;
    const patched = await server.request('PATCH', apiPaths.event(1, created.id), {
      token,
      body: { start: '2026-12-02T08:00:00Z', end: '2026-12-02T12:00:00Z', duration: 14_400, team_members: [roleUrls[1]], task_status: '2' },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.start, '2026-12-02T08:00:00.000Z');
    assert.equal(patched.json.end, '2026-12-02T12:00:00.000Z');
    assert.equal(patched.json.duration, '04:00:00');
    assert.deepEqual(patched.json.team_members, [roleUrls[1]]);
    assert.equal(patched.json.task_status, 2);
    assert.equal(patched.json.location_override, '12 Side Street, Newtown', 'left as it was');
    assert.deepEqual(patched.json.repeat, { freq: 'weekly', count: 3 }, 'left as it was');

    const put = await server.request('PUT', apiPaths.event(1, created.id), {
      token,
      body: { title: 'Installation', event_type_id: 40, location_override: null, repeat: null, contact: null, team_members: [], duration: '1 02:00:00' },
    });
    assert.equal(put.status, 200, put.text);
    const stale = await server.request('PATCH', apiPaths.event(1, created.id), { token, body: { title: 'Stale' }, headers: { 'if-match': `"${created.modified_date}"` } });
    assert.equal(stale.status, 412, `a write on an old version is refused: ${stale.text}`);
    const stored = (await server.request('GET', apiPaths.event(1, created.id), { token })).json;
    assert.deepEqual(
      [stored.title, stored.event_type_id, stored.location_override, stored.repeat, stored.contact, stored.team_members, stored.duration, stored.start],
      ['Installation', 40, null, null, null, [], '1 02:00:00', '2026-12-02T08:00:00.000Z'],
    );
  });

  test('completing stamps the time it was done; reopening clears it; archiving and deleting', async () => {
    const created = (await create(visit())).json;
    const done = await server.request('PATCH', apiPaths.event(1, created.id), { token, body: { is_complete: true } });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.json.is_complete, true);
    assert.ok(typeof done.json.completion_date === 'string' && !Number.isNaN(Date.parse(done.json.completion_date)), done.text);
    const named = await server.request('PATCH', apiPaths.event(1, created.id), { token, body: { is_complete: 'true', completion_date: '2026-12-01T11:00:00Z' } });
    assert.equal(named.json.completion_date, '2026-12-01T11:00:00.000Z');
    const reopened = await server.request('PATCH', apiPaths.event(1, created.id), { token, body: { is_complete: false } });
    assert.deepEqual([reopened.json.is_complete, reopened.json.completion_date], [false, null]);

    const archived = await server.request('PATCH', apiPaths.event(1, created.id), { token, body: { is_archived: true } });
    assert.equal(archived.json.is_archived, true);
    const deleted = await server.request('DELETE', apiPaths.event(1, created.id), { token });
    assert.equal(deleted.status, 204, deleted.text);
    assert.equal((await server.request('GET', apiPaths.event(1, created.id), { token })).status, 404);
  });

  test('the list filters by project, time range, kind, completion, archiving and team member', async () => {
    const project = (await server.request('POST', apiPaths.projects(1), { token, body: { title: 'Schedule filters' } })).json;
    const make = async (title: string, fields: Json) => (await create({ project: project.url, title, ...fields })).json.id as number;
    const monday = await make('Monday install', { event_type_id: 40, start: '2027-01-04T09:00:00Z', team_members: [roleUrls[0]] });
    const tuesday = await make('Tuesday visit', { event_type_id: 42, start: '2027-01-05T09:00:00Z', team_members: [roleUrls[1]], is_complete: true });
    const later = await make('Later meeting', { event_type_id: 27, start: '2027-02-01T09:00:00Z', team_members: roleUrls.slice(0, 2), is_archived: true });
    const ids = async (query: string) => (await list(`project=${project.id}&${query}`)).map((event) => event.id).sort((a, b) => a - b);
    const note = (await list(`project=${project.id}&event_type_id=29`)).map((event) => event.id); // project_created

    assert.equal(note.length, 1);
    assert.deepEqual(await ids('start_after=2027-01-05'), [tuesday, later]);
    assert.deepEqual(await ids('start_before=2027-01-05T09:00:00Z'), [monday]);
    assert.deepEqual(await ids('start_after=2027-01-01&start_before=2027-01-31'), [monday, tuesday]);
    assert.deepEqual(await ids('event_type_id=40'), [monday]);
    assert.deepEqual(await ids('is_complete=true'), [tuesday]);
    assert.deepEqual(await ids('is_complete=false&event_type_id=27'), [later]);
    assert.deepEqual(await ids('is_archived=true'), [later]);
    assert.deepEqual(await ids(`team_member=${encodeURIComponent(roleUrls[0]!)}`), [monday, later]);
    assert.deepEqual(await ids(`team_member=${roleUrls[1]!.split('/').at(-2)}`), [tuesday, later], 'a role id works too');
    assert.deepEqual(await ids(`team_member=${encodeURIComponent(otherOrgRoleUrl)}`), [], "another org's role names nobody here");
    const byStart = (await list(`project=${project.id}&start_after=2027-01-01&ordering=start`)).map((event) => event.id);
    assert.deepEqual(byStart, [monday, tuesday, later]);

    const badTime = await server.request('GET', `${apiPaths.events(1)}?start_after=tomorrow`, { token });
    assert.equal(badTime.status, 400, badTime.text);
    assert.match(JSON.stringify(badTime.json), /start_after must be a date/);
  });

  test('what cannot be true is refused with 400 on its field, and nothing is stored', async () => {
    const project = (await server.request('POST', apiPaths.projects(1), { token, body: { title: 'Schedule refusals' } })).json;
    const refusals: Array<[Json, string, RegExp]> = [
      [{ start: 'tomorrow' }, 'start', /Start must be a date and time/],
      [{ start: '2026-02-30T09:00:00Z' }, 'start', /Start must be a date and time/],
      [{ end: '2026-12-01T25:00:00Z' }, 'end', /End must be a date and time/],
      [{ start: '2026-12-01T10:00:00Z', end: '2026-12-01T09:00:00Z' }, 'end', /The end cannot be before the start/],
      [{ completion_date: 'soon' }, 'completion_date', /Completion date must be a date and time/],
      [{ duration: 'an hour' }, 'duration', /Duration must be a length of time/],
      [{ duration: -60 }, 'duration', /Duration cannot be negative/],
      [{ task_status: 1.5 }, 'task_status', /Task status must be a whole number/],
      [{ team_members: ['Sam'] }, 'team_members', /must be the URL of one of the organisation's roles/],
      [{ team_members: [otherOrgRoleUrl] }, 'team_members', /is not a person of this organisation/],
      [{ team_members: [url(apiPaths.role(1, 999_999))] }, 'team_members', /is not a person of this organisation/],
      [{ contact: otherOrgContactUrl }, 'contact', /Invalid hyperlink - Object does not exist/],
      [{ is_complete: 'maybe' }, 'is_complete', /Must be a valid boolean/],
    ];
    for (const [fields, field, message] of refusals) {
      const response = await create({ project: project.url, title: 'Refused', ...fields });
      assert.equal(response.status, 400, `${JSON.stringify(fields)}: ${response.text}`);
      assert.ok(Array.isArray(response.json[field]), `${JSON.stringify(fields)}: ${response.text}`);
      assert.match(response.json[field].join(' '), message);
    }
    assert.deepEqual((await list(`project=${project.id}`)).map((event) => event.title), ['Project created: Schedule refusals']);

    // A PATCH of one end is checked against the stored other.
    const created = (await create({ project: project.url, title: 'Timed', start: '2026-12-01T09:00:00Z', end: '2026-12-01T10:00:00Z' })).json;
    const early = await server.request('PATCH', apiPaths.event(1, created.id), { token, body: { end: '2026-12-01T08:00:00Z' } });
    assert.equal(early.status, 400, early.text);
    assert.match(early.json.end.join(' '), /The end cannot be before the start/);
    assert.equal((await server.request('GET', apiPaths.event(1, created.id), { token })).json.end, '2026-12-01T10:00:00.000Z');
  });

  test('accepted forms: each spelling of a time, a duration and a code is stored as the value it names', async () => {
    const accepted: Array<[Json, Json]> = [
      [{ start: '2026-12-01T09:00' }, { start: '2026-12-01T09:00:00.000Z' }],
      [{ start: '2026-12-01 09:00:30' }, { start: '2026-12-01T09:00:30.000Z' }],
      [{ start: '2026-12-01T09:00:00.25z' }, { start: '2026-12-01T09:00:00.250Z' }],
      [{ start: '2026-12-01T09:00:00-0530' }, { start: '2026-12-01T14:30:00.000Z' }],
      [{ start: '2028-02-29T09:00:00Z', end: '2028-02-29T09:00:00Z' }, { start: '2028-02-29T09:00:00.000Z', end: '2028-02-29T09:00:00.000Z' }],
      [{ start: '', end: null, completion_date: '' }, { start: null, end: null, completion_date: null }],
      [{ duration: '3600' }, { duration: '01:00:00' }],
      [{ duration: '0:45:00' }, { duration: '00:45:00' }],
      [{ duration: '' }, { duration: null }],
      [{ task_status: '0' }, { task_status: 0 }],
      [{ task_status: null, location_override: null, team_members: [] }, { task_status: null, location_override: null, team_members: [] }],
      [{ is_archived: 1, is_complete: 'false' }, { is_archived: true, is_complete: false }],
      [{ repeat: 'RRULE:FREQ=WEEKLY;COUNT=3' }, { repeat: 'RRULE:FREQ=WEEKLY;COUNT=3' }],
    ];
    for (const [fields, expected] of accepted) {
      const response = await create({ title: 'Accepted', ...fields });
      assert.equal(response.status, 201, `${JSON.stringify(fields)}: ${response.text}`);
      assert.deepEqual(Object.fromEntries(Object.keys(expected).map((field) => [field, response.json[field]])), expected, JSON.stringify(fields));
    }
  });

  test('an event change fires an Event webhook with the changed record', async () => {
    receiver = await startWebhookReceiver();
    await server.request('POST', apiPaths.webhooks(1), { token, body: { endpoint: receiver.url, enabled: true, debug: false, trigger_fields: ['event.is_complete'], payload_fields: ['event.is_complete', 'event.team_members', 'event.start'] } });
    const created = (await create({ ...visit(), project: null })).json;
    await server.request('PATCH', apiPaths.event(1, created.id), { token, body: { notes: 'not a trigger' } });
    await server.request('PATCH', apiPaths.event(1, created.id), { token, body: { is_complete: true } });
    // The create is a change of every field (CREATE); the notes are not a trigger; completing is (UPDATE).
    const calls = await receiver.waitForCalls(2);
    assert.deepEqual(calls.map((delivered) => delivered.body.event), ['CREATE', 'UPDATE']);
    const call = calls[1];
    assert.equal(call!.body.model, 'Event');
    assert.equal(call!.body.model_id, created.id);
    assert.deepEqual(call!.body.fields, { is_complete: true, team_members: roleUrls.slice(0, 2), start: '2026-11-30T23:00:00.000Z' });
    await server.request('DELETE', apiPaths.event(1, created.id), { token });
    const deleted = (await receiver.waitForCalls(3))[2]!;
    assert.deepEqual([deleted.body.model, deleted.body.event, deleted.body.model_id], ['Event', 'DELETE', created.id]);
  });

  test("the OpenAPI document lists the list's filters, SolarDesk's own marked as extensions", async () => {
    const document = (await server.request('GET', '/api/schema/')).json;
    const parameters = document.paths['/api/orgs/{org_id}/events/'].get.parameters as Array<{ name: string; in: string; description?: string }>;
    const describe = (name: string) => parameters.find((parameter) => parameter.in === 'query' && parameter.name === name)?.description ?? '';
    for (const name of ['start_after', 'start_before', 'event_type_id', 'is_complete', 'is_archived', 'team_member', 'ordering']) {
      assert.match(describe(name), /^SolarDesk extension/, name);
    }
    assert.ok(describe('project') !== '' && !describe('project').startsWith('SolarDesk extension'), 'project is the hosted filter');
    for (const method of ['patch', 'put', 'delete']) assert.ok(document.paths['/api/orgs/{org_id}/events/{id}/'][method], method);
  });

  test('someone who cannot see a project cannot see or change its events (403), as with the project', async () => {
    const hidden = (await create({ ...visit(), project: url(apiPaths.project(1, HIDDEN_FROM_MEMBER)) })).json;
    const shown = (await create(visit())).json;
    assert.equal((await server.request('GET', apiPaths.project(1, HIDDEN_FROM_MEMBER), { token: memberToken })).status, 403);
    for (const [method, body] of [['GET', undefined], ['PATCH', { is_complete: true }], ['PUT', { title: 'Taken' }], ['DELETE', undefined]] as const) {
      const response = await server.request(method, apiPaths.event(1, hidden.id), { token: memberToken, ...(body ? { body } : {}) });
      assert.equal(response.status, 403, `${method}: ${response.text}`);
    }
    const listed = (await list('', memberToken)).map((event) => event.id);
    assert.ok(!listed.includes(hidden.id) && listed.includes(shown.id));
    assert.deepEqual(await list(`project=${HIDDEN_FROM_MEMBER}`, memberToken), []);
    const moved = await server.request('PATCH', apiPaths.event(1, shown.id), { token: memberToken, body: { project: url(apiPaths.project(1, HIDDEN_FROM_MEMBER)) } });
    assert.equal(moved.status, 403, 'nor move an event onto it');
    const placed = await create({ ...visit(), project: url(apiPaths.project(1, HIDDEN_FROM_MEMBER)) }, memberToken);
    assert.equal(placed.status, 403, 'nor add one to it');
    assert.equal((await server.request('GET', apiPaths.event(1, 999_999), { token: memberToken })).status, 404);
    assert.equal((await server.request('GET', apiPaths.event(1, hidden.id), { token })).json.is_complete, false, 'nothing changed');
  });
});
