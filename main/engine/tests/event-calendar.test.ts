// Issue 27 "Beyond the anchors": any one event downloads as `.ics`, and what we serve
// is read back with ical.js, a real iCalendar library, so "the time zone is right"
// means the instant a calendar shows is the instant the API's `start` names. A real
// engine on a real store, over HTTP on 127.0.0.1.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type ICAL from 'ical.js';
import { parseCalendarEvents } from '../testing/ical-parse.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { fileNameFromContentDisposition } from '../files/file-types.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests index into records

// Projects of Sunrise Solar: the member holds a role on 1, not on 2 (contact-access.test.ts).
const VISIBLE_TO_MEMBER = 1;
const HIDDEN_FROM_MEMBER = 2;

describe('one event as an .ics file', () => {
  let server: TestServer;
  let token: string;
  let memberToken: string;
  let roles: Json[];
  let project: Json;
  let contact: Json;
  const url = (path: string) => server.baseUrl + path;

  before(async () => {
    server = await startTestServer();
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    memberToken = await server.tokenFor(DEMO_USERS.sunriseMember);
    roles = (await server.request('GET', apiPaths.roles(1), { token })).json;
    project = (await server.request('GET', apiPaths.project(1, VISIBLE_TO_MEMBER), { token })).json;
    contact = (await server.request('GET', new URL(project.contacts[0] as string).pathname, { token })).json;
    assert.ok(contact.phone, 'the demo contact has a phone to show');
  });
  after(() => server.close());

  const create = async (body: Json) => {
    const response = await server.request('POST', apiPaths.events(1), { token, body: { project: url(apiPaths.project(1, VISIBLE_TO_MEMBER)), ...body } });
    assert.equal(response.status, 201, response.text);
    return response.json as Json;
  };
  const download = (id: number, as = token) => server.request('GET', apiPaths.eventCalendarFile(1, id), { token: as });

  test('title, times in the right zone, place, notes, project, contact, team and a stable UID', async () => {
    // Hobart in summer is UTC+11: 09:00 there is 22:00 UTC the day before.
    const created = await create({
      title: 'Site visit: Zoë, north roof',
      notes: 'Bring the ladder; the gate code is 4512',
      event_type_id: 42,
      start: '2026-12-01T09:00:00+11:00',
      duration: '01:30:00',
      team_members: roles.slice(0, 2).map((role) => role.url),
      contact: project.contacts[0],
    });
    assert.equal(created.start, '2026-11-30T22:00:00.000Z');

    const response = await download(created.id);
    assert.equal(response.status, 200, response.text);
    assert.match(response.headers.get('content-type')!, /^text\/calendar; charset=utf-8$/);
    assert.equal(fileNameFromContentDisposition(response.headers.get('content-disposition')), 'Site visit Zoë, north roof.ics');

    const [event, ...others] = parseCalendarEvents(response.text);
    assert.ok(event);
    assert.equal(others.length, 0);
    assert.equal(event.summary, 'Site visit: Zoë, north roof');
    assert.equal(event.startDate.toJSDate().toISOString(), created.start, 'the same instant as the API');
    assert.equal(event.endDate.toJSDate().toISOString(), '2026-11-30T23:30:00.000Z', 'start plus the duration');
    const projectAddress = [project.address, project.locality, project.state, project.zip].filter(Boolean).join(', ');
    assert.equal(event.location, projectAddress, "the project's address when the event names no place");
    for (const part of ['Bring the ladder; the gate code is 4512', project.title, `${contact.first_name} ${contact.family_name}`, contact.phone, 'On-site Sales Visit']) {
      assert.ok(event.description.toLowerCase().includes(String(part).toLowerCase()), `the description names ${part}: ${event.description}`);
    }
    const attendees = event.attendees.map((attendee) => attendee.getParameter('cn'));
    assert.deepEqual(attendees, roles.slice(0, 2).map((role) => `${role.first_name} ${role.family_name}`.trim()));
    assert.equal(event.component.getFirstPropertyValue('status'), 'CONFIRMED');
    assert.equal(event.component.getFirstPropertyValue('completed'), null, 'not done yet');

    const again = parseCalendarEvents((await download(created.id)).text)[0]!;
    assert.equal(again.uid, event.uid, 'the same UID each time, so a calendar updates the entry rather than adding one');
    const other = await create({ title: 'Another', start: '2026-12-02T09:00:00Z' });
    assert.notEqual(parseCalendarEvents((await download(other.id)).text)[0]!.uid, event.uid);
  });

  test('an explicit end and a place of its own; a done event carries COMPLETED', async () => {
    const created = await create({ title: 'Installation', event_type_id: 40, start: '2026-12-03T07:30:00-05:00', end: '2026-12-03T15:00:00-05:00', location_override: '12 Side Street, Newtown' });
    const done = await server.request('PATCH', apiPaths.event(1, created.id), { token, body: { is_complete: true, completion_date: '2026-12-03T21:00:00Z' } });
    assert.equal(done.status, 200, done.text);
    const [event] = parseCalendarEvents((await download(created.id)).text);
    assert.equal(event!.startDate.toJSDate().toISOString(), '2026-12-03T12:30:00.000Z');
    assert.equal(event!.endDate.toJSDate().toISOString(), '2026-12-03T20:00:00.000Z');
    assert.equal(event!.location, '12 Side Street, Newtown');
    const completed = event!.component.getFirstPropertyValue('completed') as ICAL.Time;
    assert.equal(completed.toJSDate().toISOString(), '2026-12-03T21:00:00.000Z');
  });

  test('an event with no start (a note) is 409 with a sentence, not an empty calendar', async () => {
    const note = await create({ title: 'Called the customer' });
    const response = await download(note.id);
    assert.equal(response.status, 409, response.text);
    assert.match(response.json.detail, /no start time/);
  });

  test('the same access as the event: 403 on a project the user may not see, 404 for another org or none', async () => {
    const hidden = (await server.request('POST', apiPaths.events(1), { token, body: { project: url(apiPaths.project(1, HIDDEN_FROM_MEMBER)), title: 'Hidden visit', start: '2026-12-01T09:00:00Z' } })).json;
    const seen = await create({ title: 'Seen visit', start: '2026-12-01T09:00:00Z' });
    assert.equal((await download(hidden.id, memberToken)).status, 403);
    assert.equal((await download(seen.id, memberToken)).status, 200);
    assert.equal((await server.request('GET', apiPaths.eventCalendarFile(1, 999_999), { token })).status, 404);
    const otherOrgToken = await server.tokenFor(DEMO_USERS.basicAdmin);
    assert.equal((await server.request('GET', apiPaths.eventCalendarFile(2, seen.id), { token: otherOrgToken })).status, 404);
    assert.equal((await server.request('GET', apiPaths.eventCalendarFile(1, seen.id))).status, 401);
  });
});
