// Booking a visit from a project (issue 27) against a real engine over HTTP: the form
// opens filled (tomorrow at 09:00, the project's contact and assigned person), what
// it sends is the Event create and the engine takes it with every field; an end
// before the start is caught before sending, beside the "To" box, by the same rule
// the engine refuses it with. And the agenda's days: tomorrow is always "This week".
// The `now` of each check is a fixed date passed in (no clock is read).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../main/engine/testing/test-server.ts';
import { DEMO_USERS } from '../../main/engine/seed/demo-seed.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { bookingBodyOf, bookingDraftFor, bookingErrorsBeforeSend, bookingErrorsOfResponse, type BookingProject, withKind } from '../src/schedule/booking.ts';
import { inActivityOrder } from '../src/schedule/activity.ts';
import { addDays, agendaGroupOf, instantOf, startOfWeek, weekDays } from '../src/schedule/schedule-days.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests index into records

describe('booking a visit from a project, and the engine', () => {
  let server: TestServer;
  let token: string;
  let project: BookingProject & Json;
  let roles: Json[];
  const orgId = 1;
  const saturday = new Date(2026, 10, 28, 15, 30);
  before(async () => {
    server = await startTestServer();
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    roles = (await server.request('GET', apiPaths.roles(orgId), { token })).json as Json[];
    const rows = (await server.request('GET', `${apiPaths.projects(orgId)}?limit=100&ordering=id`, { token })).json as Json[];
    // A project with a contact and an assigned person, as a booked one usually is.
    const withBoth = rows.find((row) => row.assigned_role && row.contacts?.length > 0) ?? rows[0]!;
    project = (await server.request('GET', apiPaths.project(orgId, withBoth.id), { token })).json as BookingProject & Json;
    if (!project.assigned_role) {
      project = (await server.request('PATCH', apiPaths.project(orgId, project.id), { token, body: { assigned_role: roles[0]!.url } })).json as BookingProject & Json;
    }
  });
  after(() => server.close());

  test('a site visit opens tomorrow at 09:00 for an hour, with the project contact and assigned person; the engine keeps every field', async () => {
    const draft = bookingDraftFor(project, 'site_visit', saturday);
    assert.equal(draft.day, '2026-11-29');
    assert.deepEqual([draft.from, draft.to], ['09:00', '10:00']);
    assert.equal(draft.contact, project.contacts_data[0]?.url ?? '');
    assert.deepEqual(draft.teamMembers, [project.assigned_role]);
    const second = roles.find((role) => role.url !== project.assigned_role)!;
    const twoGo = { ...draft, teamMembers: [...draft.teamMembers, second.url] };
    assert.deepEqual(bookingErrorsBeforeSend(twoGo, project), {});

    const created = await server.request('POST', apiPaths.events(orgId), { token, body: bookingBodyOf(twoGo, project) });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const event = created.json as Json;
    assert.equal(event.event_type_id, 42);
    assert.equal(event.project_id, project.id);
    assert.equal(event.start, instantOf('2026-11-29', '09:00'));
    assert.equal(event.end, instantOf('2026-11-29', '10:00'));
    assert.equal(event.duration, '01:00:00');
    assert.equal(event.is_complete, false);
    assert.equal(event.contact === null ? '' : new URL(event.contact, server.baseUrl).pathname, draft.contact === '' ? '' : new URL(draft.contact, server.baseUrl).pathname);
    assert.deepEqual(
      (event.team_members as string[]).map((member) => new URL(member, server.baseUrl).pathname),
      twoGo.teamMembers.map((member) => new URL(member, server.baseUrl).pathname),
    );
  });

  test('an installation takes the whole working day; hours the person changed stay when the kind changes', () => {
    const installation = bookingDraftFor(project, 'installation', saturday);
    assert.deepEqual([installation.from, installation.to], ['09:00', '17:00']);
    const visit = bookingDraftFor(project, 'site_visit', saturday);
    assert.deepEqual([withKind(visit, 'installation', project).from, withKind(visit, 'installation', project).to], ['09:00', '17:00']);
    assert.match(withKind(visit, 'installation', project).title, /^Installation/);
    const moved = { ...visit, from: '13:00', to: '14:00' };
    assert.deepEqual([withKind(moved, 'installation', project).from, withKind(moved, 'installation', project).to], ['13:00', '14:00']);
  });

  test('an end before the start is shown beside the To box before sending, and the engine refuses it the same way', async () => {
    const draft = { ...bookingDraftFor(project, 'site_visit', saturday), from: '11:00', to: '10:00' };
    const before = bookingErrorsBeforeSend(draft, project);
    assert.deepEqual(Object.keys(before), ['to']);
    const refused = await server.request('POST', apiPaths.events(orgId), { token, body: bookingBodyOf(draft, project) });
    assert.equal(refused.status, 400);
    assert.deepEqual(bookingErrorsOfResponse(refused.json), before);
  });

  test('an empty day or title is asked for at its box', () => {
    const draft = { ...bookingDraftFor(project, 'site_visit', saturday), day: '', title: ' ' };
    assert.deepEqual(Object.keys(bookingErrorsBeforeSend(draft, project)).sort(), ['day', 'title']);
  });

  test('a team member the org does not have comes back beside the team', async () => {
    const draft = { ...bookingDraftFor(project, 'site_visit', saturday), teamMembers: [apiPaths.role(orgId, 999_999)] };
    const refused = await server.request('POST', apiPaths.events(orgId), { token, body: bookingBodyOf(draft, project) });
    assert.equal(refused.status, 400);
    assert.deepEqual(Object.keys(bookingErrorsOfResponse(refused.json)), ['team']);
  });
});

describe('the agenda and the week', () => {
  test('tomorrow is in "This week" whatever the day, even when the calendar week ends today', () => {
    const sunday = new Date(2026, 10, 29, 20, 0);
    for (const now of [new Date(2026, 10, 28, 8, 0), sunday, new Date(2026, 10, 25, 23, 59)]) {
      const tomorrowAtNine = addDays(new Date(now.getFullYear(), now.getMonth(), now.getDate(), 9, 0), 1);
      assert.equal(agendaGroupOf(tomorrowAtNine, now), 'week', now.toString());
    }
    assert.equal(agendaGroupOf(new Date(2026, 10, 29, 7, 0), sunday), 'today');
    assert.equal(agendaGroupOf(new Date(2026, 11, 6, 0, 0), sunday), 'later');
    assert.equal(agendaGroupOf(new Date(2026, 10, 28, 23, 0), sunday), null);
  });

  test('a week runs Monday to Sunday', () => {
    const days = weekDays(startOfWeek(new Date(2026, 10, 29, 20, 0)));
    assert.deepEqual(
      days.map((day) => [day.getDate(), day.getDay()]),
      [[23, 1], [24, 2], [25, 3], [26, 4], [27, 5], [28, 6], [29, 0]],
    );
  });
});

describe("a project's activity", () => {
  test('schedule entries stand at their start, notes at when they were written, latest first', () => {
    const note = { id: 10, start: null, created_date: '2026-11-27T08:00:00.000Z' };
    const visitTomorrow = { id: 9, start: '2026-11-29T09:00:00.000Z', created_date: '2026-11-20T08:00:00.000Z' };
    const pastVisit = { id: 11, start: '2026-11-02T09:00:00.000Z', created_date: '2026-11-26T08:00:00.000Z' };
    const olderNote = { id: 3, start: null, created_date: '2026-11-10T08:00:00.000Z' };
    assert.deepEqual(
      inActivityOrder([note, visitTomorrow, pastVisit, olderNote]).map((event) => event.id),
      [9, 10, 3, 11],
    );
  });
});
