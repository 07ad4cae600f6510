// Issue 27 "Beyond the anchors": each person's schedule is an iCalendar feed at a
// secret URL, served by `solardesk server`. It is read back with ical.js (a real
// iCalendar library): the events are the person's, the instants the API's; the URL
// needs no Authorization header, answers GET and HEAD only, counts in its owner's
// quota, and stops working once revoked or replaced; access rules that change
// change the feed. A real engine on a real store, over HTTP on 127.0.0.1.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, UNTHROTTLED_RATES } from '../testing/test-server.ts';
import { parseCalendarEvents } from '../testing/ical-parse.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { SOLARDESK_EXTENSION_TAG } from '../http/extensions.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests index into records

// Projects of Sunrise Solar: the member holds a role on 1, not on 2 (contact-access.test.ts).
const VISIBLE_TO_MEMBER = 1;
const HIDDEN_FROM_MEMBER = 2;

/** The path (and query) of an absolute URL the server answered. */
const pathOf = (absolute: string) => {
  const parsed = new URL(absolute);
  return parsed.pathname + parsed.search;
};

describe("a person's schedule as a subscribable feed", () => {
  let server: TestServer;
  let adminToken: string;
  let memberToken: string;
  let viewerToken: string;
  let memberRoleUrl: string;
  let viewerRoleUrl: string;
  const url = (path: string) => server.baseUrl + path;

  before(async () => {
    server = await startTestServer();
    adminToken = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    memberToken = await server.tokenFor(DEMO_USERS.sunriseMember);
    viewerToken = await server.tokenFor(DEMO_USERS.sunriseViewer);
    const roles = (await server.request('GET', apiPaths.roles(1), { token: adminToken })).json as Json[];
    memberRoleUrl = roles.find((role) => role.email === DEMO_USERS.sunriseMember)!.url;
    viewerRoleUrl = roles.find((role) => role.email === DEMO_USERS.sunriseViewer)!.url;
  });
  after(() => server.close());

  const createEvent = async (body: Json) => {
    const response = await server.request('POST', apiPaths.events(1), { token: adminToken, body });
    assert.equal(response.status, 201, response.text);
    return response.json as Json;
  };
  const makeFeed = async (token: string) => {
    const response = await server.request('POST', apiPaths.calendarFeedSettings(1), { token });
    assert.equal(response.status, 201, response.text);
    return response.json.url as string;
  };
  /** The feed, fetched as a phone does: no Authorization header. */
  const fetchFeed = (feedUrl: string, method = 'GET') => server.request(method, pathOf(feedUrl));
  const summariesIn = async (feedUrl: string) => {
    const response = await fetchFeed(feedUrl);
    assert.equal(response.status, 200, response.text);
    return parseCalendarEvents(response.text).map((event) => event.summary).sort();
  };

  test("holds the person's events on projects they may see, at the API's instants; access changes change it", async () => {
    // Days ahead of today (the feed reaches back a fixed number of days from now), at 09:00 in UTC+11.
    const soon = (days: number) => `${new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)}T09:00:00+11:00`;
    const mine = await createEvent({ project: url(apiPaths.project(1, VISIBLE_TO_MEMBER)), title: 'Member: site visit', event_type_id: 42, start: soon(1), duration: '02:00:00', team_members: [memberRoleUrl, viewerRoleUrl] });
    await createEvent({ title: 'Member: org meeting', event_type_id: 27, start: soon(2), end: soon(2).replace('T09', 'T10'), team_members: [memberRoleUrl] });
    await createEvent({ project: url(apiPaths.project(1, VISIBLE_TO_MEMBER)), title: 'Viewer only: inspection', start: soon(3), team_members: [viewerRoleUrl] });
    await createEvent({ project: url(apiPaths.project(1, HIDDEN_FROM_MEMBER)), title: 'Member: hidden project', start: soon(4), team_members: [memberRoleUrl] });
    await createEvent({ project: url(apiPaths.project(1, VISIBLE_TO_MEMBER)), title: 'Member: archived', start: soon(5), team_members: [memberRoleUrl], is_archived: true });
    await createEvent({ project: url(apiPaths.project(1, VISIBLE_TO_MEMBER)), title: 'Member: a note with no time', team_members: [memberRoleUrl] });

    const feedUrl = await makeFeed(memberToken);
    assert.match(feedUrl, /^http:\/\/127\.0\.0\.1:\d+\/api\/calendar_feeds\/[A-Za-z0-9_-]{43}\/schedule\.ics$/);
    const response = await fetchFeed(feedUrl);
    assert.equal(response.status, 200, response.text);
    assert.match(response.headers.get('content-type')!, /^text\/calendar/);
    assert.equal(response.headers.get('cache-control'), 'private, no-store');
    const events = parseCalendarEvents(response.text);
    assert.deepEqual(events.map((event) => event.summary).sort(), ['Member: org meeting', 'Member: site visit']);
    const visit = events.find((event) => event.summary === 'Member: site visit')!;
    assert.equal(visit.startDate.toJSDate().toISOString(), mine.start, "the API's instant");
    assert.equal(visit.startDate.toJSDate().getTime(), Date.parse(soon(1)), '09:00 at +11:00');
    assert.equal(visit.endDate.toJSDate().getTime(), Date.parse(soon(1)) + 2 * 3_600_000, 'start plus the duration');

    const viewerFeed = await makeFeed(viewerToken);
    assert.deepEqual(await summariesIn(viewerFeed), ['Member: site visit', 'Viewer only: inspection'], "another person's feed holds theirs, not the member's");

    // The member is made the installer of the hidden project: its event joins their feed; taken off, it leaves.
    const assign = (role: string | null) => server.request('PATCH', apiPaths.project(1, HIDDEN_FROM_MEMBER), { token: adminToken, body: { assigned_installer_role: role } });
    assert.equal((await assign(memberRoleUrl)).status, 200);
    assert.deepEqual(await summariesIn(feedUrl), ['Member: hidden project', 'Member: org meeting', 'Member: site visit']);
    assert.equal((await assign(null)).status, 200);
    assert.deepEqual(await summariesIn(feedUrl), ['Member: org meeting', 'Member: site visit']);
  });

  test('read-only: HEAD answers like GET without a body, POST and PUT are refused', async () => {
    const feedUrl = await makeFeed(memberToken);
    const head = await fetchFeed(feedUrl, 'HEAD');
    assert.equal(head.status, 200);
    assert.match(head.headers.get('content-type')!, /^text\/calendar/);
    assert.equal(head.text, '');
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const refused = await fetchFeed(feedUrl, method);
      assert.equal(refused.status, 405, `${method}: ${refused.text}`);
    }
    assert.equal((await fetchFeed(feedUrl)).status, 200, 'still there');
  });

  test('a replaced URL and a revoked one answer 404; GET says whether one exists and never shows it', async () => {
    const first = await makeFeed(memberToken);
    const second = await makeFeed(memberToken);
    assert.notEqual(first, second);
    const old = await fetchFeed(first);
    assert.equal(old.status, 404, 'the replaced URL stops working');
    assert.match(old.json.detail, /revoked or replaced/);
    assert.equal((await fetchFeed(second)).status, 200);

    const settings = await server.request('GET', apiPaths.calendarFeedSettings(1), { token: memberToken });
    assert.equal(settings.status, 200, settings.text);
    assert.equal(settings.json.exists, true);
    assert.equal(settings.json.url, null, 'only a hash is kept: the URL cannot be shown again');

    assert.equal((await server.request('DELETE', apiPaths.calendarFeedSettings(1), { token: memberToken })).status, 204);
    assert.equal((await fetchFeed(second)).status, 404, 'the revoked URL stops working');
    assert.equal((await server.request('GET', apiPaths.calendarFeedSettings(1), { token: memberToken })).json.exists, false);
    assert.equal((await server.request('GET', apiPaths.calendarFeed('not-a-feed'))).status, 404);
    const stored = await server.engine.context.db.selectFrom('calendar_feeds').select('secret_hash').execute();
    for (const row of stored) assert.ok(!second.includes(row.secret_hash), 'the store holds a hash, not the secret');
  });

  test('the OpenAPI document lists the feed and its settings as SolarDesk extensions', async () => {
    const schema = (await server.request('GET', '/api/schema/')).json;
    const routes: Array<[string, string]> = [
      ['/api/calendar_feeds/{secret}/schedule.ics', 'get'],
      ['/api/orgs/{org_id}/calendar_feed/', 'get'],
      ['/api/orgs/{org_id}/calendar_feed/', 'post'],
      ['/api/orgs/{org_id}/calendar_feed/', 'delete'],
      ['/api/orgs/{org_id}/events/{id}/ics/', 'get'],
    ];
    for (const [route, method] of routes) {
      const operation = schema.paths[route]?.[method];
      assert.ok(operation, `${method} ${route} in the OpenAPI document`);
      assert.ok(operation.tags.includes(SOLARDESK_EXTENSION_TAG), `${route} is tagged as an extension`);
      assert.match(operation.description, /^\*\*SolarDesk extension\*\*/);
    }
    assert.deepEqual(schema.paths['/api/calendar_feeds/{secret}/schedule.ics'].get.security, [], 'the feed needs no Authorization header');
  });
});

test("the feed counts in its owner's calendar_feed quota: 429 with Retry-After once spent", async () => {
  const server = await startTestServer({ throttleRates: { ...UNTHROTTLED_RATES, calendar_feed: { user: '3/hour', org: null } } });
  try {
    const token = await server.tokenFor(DEMO_USERS.sunriseMember);
    const feedUrl = (await server.request('POST', apiPaths.calendarFeedSettings(1), { token })).json.url as string;
    for (let fetch = 1; fetch <= 3; fetch++) assert.equal((await server.request('GET', pathOf(feedUrl))).status, 200, `fetch ${fetch}`);
    const spent = await server.request('GET', pathOf(feedUrl));
    assert.equal(spent.status, 429, spent.text);
    assert.ok(Number(spent.headers.get('retry-after')) > 0, 'says when to come back');
    assert.equal((await server.request('HEAD', pathOf(feedUrl))).status, 429, 'HEAD counts too');
  } finally {
    await server.close();
  }
});
