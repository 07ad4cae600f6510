// Issue 15: the change feed, SolarDesk's extension. A real server on 127.0.0.1 (on
// SQLite, and on PostgreSQL under npm run test:postgres): the list by cursor and
// what it leaves out for a user who may not see a record, 410 for a cursor older
// than the log, the hint stream, the server flag that turns the feed off, and 304s
// on the routes agents poll, which are not counted against the quotas.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { createFile } from '../testing/file-testing.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { pruneChangeLog } from '../changes/change-log.ts';
import { changeListSchema } from '../../../shared/schemas/change-feed.ts';
import { ManualClock } from '../clock.ts';

const ORG = 1;

describe('the change feed', () => {
  let server: TestServer;
  let admin: string;
  let member: string;
  before(async () => {
    server = await startTestServer();
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    member = await server.tokenFor(DEMO_USERS.sunriseMember);
  });
  after(() => server.close());

  const changesAfter = async (token: string, cursor?: string) => {
    const query = cursor === undefined ? '' : `?after=${cursor}&limit=1000`;
    const answer = await server.request('GET', `${apiPaths.changes(ORG)}${query}`, { token });
    assert.equal(answer.status, 200, answer.text);
    return changeListSchema.parse(answer.json);
  };

  test('lists what changed after a cursor as record references, only what the caller may see', async () => {
    const start = await changesAfter(admin);
    assert.deepEqual(start.changes, [], 'without `after`: no changes, only the newest cursor');
    const memberStart = await changesAfter(member);
    const memberSees = new Set(((await server.request('GET', `${apiPaths.projects(ORG)}?limit=1000`, { token: member })).json as Array<{ id: number }>).map((row) => row.id));
    const all = (await server.request('GET', `${apiPaths.projects(ORG)}?limit=1000`, { token: admin })).json as Array<{ id: number }>;
    const hidden = all.find((row) => !memberSees.has(row.id))!.id;
    const shown = all.find((row) => memberSees.has(row.id))!.id;
    assert.ok(hidden && shown, 'the demo member sees some projects and not others');

    assert.equal((await server.request('PATCH', apiPaths.project(ORG, hidden), { token: admin, body: { notes: 'hidden change' } })).status, 200);
    assert.equal((await server.request('PATCH', apiPaths.project(ORG, shown), { token: admin, body: { notes: 'shown change' } })).status, 200);
    const file = await createFile(server, admin, 'feed bytes', 'feed.txt', { title: 'Feed file', project: String(shown) });

    const seen = await changesAfter(admin, start.next_cursor);
    const refs = seen.changes.map((change) => `${change.model}:${change.id}:${change.op}`);
    assert.ok(refs.includes(`project:${hidden}:update`), refs.join(' '));
    assert.ok(refs.includes(`project:${shown}:update`), refs.join(' '));
    assert.ok(refs.includes(`private_file:${file.id}:create`), refs.join(' '));
    const fileChange = seen.changes.find((change) => change.model === 'private_file')!;
    assert.equal(fileChange.project_id, shown);
    assert.ok(Number(seen.next_cursor) > Number(start.next_cursor));
    assert.deepEqual((await changesAfter(admin, seen.next_cursor)).changes, [], 'nothing after the newest cursor');

    const memberSeen = await changesAfter(member, memberStart.next_cursor);
    const memberRefs = memberSeen.changes.map((change) => `${change.model}:${change.id}`);
    assert.ok(memberRefs.includes(`project:${shown}`), memberRefs.join(' '));
    assert.ok(!memberRefs.includes(`project:${hidden}`), 'a project the member may not see is left out');
    assert.equal(memberSeen.next_cursor, seen.next_cursor, 'the cursor moves past hidden changes too');

    const removed = await server.request('DELETE', apiPaths.privateFile(ORG, file.id), { token: admin });
    assert.ok(removed.status === 204 || removed.status === 200, removed.text);
    const afterDelete = await changesAfter(member, memberSeen.next_cursor);
    assert.deepEqual(
      afterDelete.changes.filter((change) => change.model === 'private_file').map((change) => [change.id, change.op]),
      [[file.id, 'delete']],
      'a deleted file of a project the member sees is listed as deleted',
    );
  });

  test('pages with has_more; a cursor older than the pruned log answers 410', async () => {
    const start = await changesAfter(admin);
    for (const notes of ['one', 'two', 'three']) {
      assert.equal((await server.request('PATCH', apiPaths.project(ORG, 5), { token: admin, body: { notes } })).status, 200);
    }
    const page = await server.request('GET', `${apiPaths.changes(ORG)}?after=${start.next_cursor}&limit=1`, { token: admin });
    assert.equal(page.json.changes.length, 1);
    assert.equal(page.json.has_more, true);
    await pruneChangeLog(server.engine.context, server.engine.context.db, { maxRows: 0 });
    const gone = await server.request('GET', `${apiPaths.changes(ORG)}?after=${start.next_cursor}`, { token: admin });
    assert.equal(gone.status, 410, gone.text);
    assert.match(gone.json.detail, /no longer reaches back.*Read every record again/);
    const fresh = await changesAfter(admin);
    assert.deepEqual((await changesAfter(admin, fresh.next_cursor)).changes, [], 'a fresh cursor works after pruning');
  });

  test('the stream sends ready, then a hint when a visible change commits, and ends when the server closes', async () => {
    const own = await startTestServer();
    try {
      const token = await own.tokenFor(DEMO_USERS.sunriseAdmin);
      const controller = new AbortController();
      const response = await fetch(`${own.baseUrl}${apiPaths.changeStream(ORG)}`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
      const reader = response.body!.getReader();
      let text = '';
      const readUntil = async (pattern: RegExp) => {
        while (!pattern.test(text)) {
          const { value, done } = await reader.read();
          if (done) return false;
          text += new TextDecoder().decode(value);
        }
        return true;
      };
      assert.ok(await readUntil(/event: ready\ndata: \{"cursor":"\d+"\}/));
      assert.equal((await own.request('PATCH', apiPaths.project(ORG, 4), { token, body: { notes: 'hint me' } })).status, 200);
      assert.ok(await readUntil(/event: hint\ndata: \{"cursor":"\d+"\}/), text);
      const cursor = /event: hint\ndata: \{"cursor":"(\d+)"\}/.exec(text)![1];
      const newest = (await own.request('GET', apiPaths.changes(ORG), { token })).json.next_cursor;
      assert.equal(cursor, newest, 'the hint names the newest cursor');
      // Closing the server ends the stream instead of waiting for it.
      const started = Date.now();
      await own.close();
      assert.ok(Date.now() - started < 5000, `the close took ${Date.now() - started} ms`);
      assert.equal(await readUntil(/never/), false, 'the stream ended');
    } finally {
      await own.close().catch(() => {});
    }
  });
});

describe('a server without the change feed (--no-change-feed)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ changeFeed: false });
  });
  after(() => server.close());

  test('answers 404 on both routes, as the hosted service does', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    assert.equal((await server.request('GET', apiPaths.changes(ORG), { token })).status, 404);
    assert.equal((await server.request('GET', apiPaths.changeStream(ORG), { token })).status, 404);
  });
});

describe('304 on the routes agents poll is not counted against the quotas', () => {
  let server: TestServer;
  // The clock is faked only to start each route on a fresh quota minute.
  const clock = new ManualClock();
  before(async () => {
    // Small quotas, so a counted request shows: three a minute, per user and per org.
    const small = { user: '3/min', org: '3/min' };
    server = await startTestServer({
      clock,
      throttleRates: { default: small, private_file_list: { ...small, bucket: 'private_files' }, private_file_detail: { ...small, bucket: 'private_files' } },
    });
  });
  after(() => server.close());

  test('each route answers its ETag with 304 any number of times, and three full reads still fit in the minute', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const contact = (await server.request('POST', apiPaths.contacts(ORG), { token, body: { first_name: 'Etta', family_name: 'Gee' } })).json;
    const webhook = (await server.request('POST', apiPaths.webhooks(ORG), { token, body: { endpoint: 'https://example.com/hook', enabled: false, debug: false } })).json;
    const routes = [
      apiPaths.org(ORG),
      apiPaths.contacts(ORG),
      apiPaths.contact(ORG, contact.id),
      apiPaths.roles(ORG),
      apiPaths.workflows(ORG),
      apiPaths.fileTags(ORG),
      apiPaths.webhooks(ORG),
      apiPaths.webhook(ORG, webhook.id),
      apiPaths.events(ORG),
      apiPaths.privateFiles(ORG),
      apiPaths.changes(ORG),
    ];
    for (const path of routes) {
      clock.advance(61_000);
      const first = await server.request('GET', path, { token });
      assert.equal(first.status, 200, `${path}: ${first.text}`);
      const etag = first.headers.get('etag');
      assert.ok(etag, `${path} sends an ETag`);
      const remaining = first.headers.get('ratelimit-remaining');
      for (let index = 0; index < 5; index++) {
        const again = await server.request('GET', path, { token, headers: { 'if-none-match': etag } });
        assert.equal(again.status, 304, `${path}: ${again.text}`);
        assert.equal(again.text, '');
        assert.equal(again.headers.get('etag'), etag);
        assert.equal(again.headers.get('ratelimit-remaining'), remaining, `${path}: a 304 leaves the quota where it was`);
      }
      // Five 304s cost nothing: two more full answers fit in the quota of 3, the next does not.
      assert.equal((await server.request('GET', path, { token })).status, 200, path);
      assert.equal((await server.request('GET', path, { token })).status, 200, path);
      assert.equal((await server.request('GET', path, { token, headers: { 'if-none-match': etag } })).status, 429, `${path}: over the quota, even a 304 is refused`);
    }
  });

  test('a changed record changes the ETag: the next read is a full answer', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    clock.advance(61_000);
    const list = await server.request('GET', `${apiPaths.contacts(ORG)}?ordering=-modified_date&limit=5`, { token });
    const etag = list.headers.get('etag')!;
    const id = list.json[0].id;
    assert.equal((await server.request('PATCH', apiPaths.contact(ORG, id), { token, body: { first_name: 'Changed' } })).status, 200);
    const again = await server.request('GET', `${apiPaths.contacts(ORG)}?ordering=-modified_date&limit=5`, { token, headers: { 'if-none-match': etag } });
    assert.equal(again.status, 200);
    assert.notEqual(again.headers.get('etag'), etag);
  });
});
