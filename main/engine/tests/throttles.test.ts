// service.md 8 and compatibility.md "Throttles": every quota row (with small
// configured rates, as --throttle-config sets them), 429 details and headers, exact
// admission under concurrency, and counters that survive a restart.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo-seed.ts';
import { ManualClock } from '../clock.ts';
import type { ThrottleAction } from '../../../shared/throttle-rates.ts';
import { createFile, download } from '../testing/file-testing.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

const THROTTLED = /^Request was throttled\. Expected available in (\d+) seconds\.$/;

interface QuotaRow {
  action: ThrottleAction;
  method: string;
  path: string;
  body?: unknown;
}

/** service.md 8's rows for the engine's own routes (files, systems and connected orgs have theirs in their tests). */
const PROJECT_ROWS: QuotaRow[] = [
  { action: 'project_create', method: 'POST', path: '/api/orgs/1/projects/', body: { title: 'Throttled' } },
  { action: 'project_update', method: 'PUT', path: '/api/orgs/1/projects/2/', body: { notes: 'put' } },
  { action: 'project_partial_update', method: 'PATCH', path: '/api/orgs/1/projects/2/', body: { notes: 'patch' } },
  { action: 'project_detail', method: 'GET', path: '/api/orgs/1/projects/2/' },
];

/** A server with these rates; on `dataDir` (a restart) when given, and that folder is removed afterwards. */
/** Every throttle scope's count as stored (written back first, on SQLite, where counts live in memory between checkpoints). */
async function throttleCounts(server: TestServer): Promise<Record<string, number>> {
  const { throttle, db } = server.engine.context;
  await throttle.checkpoint();
  const rows = await db.selectFrom('throttle_buckets').select(['scope_key', 'hits']).where('bucket_start', '>=', 0).execute();
  const counts: Record<string, number> = {};
  for (const row of rows) if (Number(row.hits) > 0) counts[row.scope_key] = (counts[row.scope_key] ?? 0) + Number(row.hits);
  return counts;
}

async function withServer(rates: Record<string, unknown>, clock: ManualClock, run: (server: TestServer) => Promise<void>, dataDir?: string) {
  const server = await startTestServer({ throttleRates: rates, clock, dataDir });
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

function assertThrottled(response: { status: number; headers: Headers; json: { detail: string } }): number {
  assert.equal(response.status, 429);
  const match = THROTTLED.exec(response.json.detail);
  assert.ok(match, response.json.detail);
  const retryAfter = response.headers.get('retry-after');
  assert.match(retryAfter ?? '', /^\d+$/);
  assert.equal(retryAfter, match[1]);
  assert.ok(Number(retryAfter) >= 1);
  return Number(retryAfter);
}

describe('throttle quotas', () => {
  for (const row of PROJECT_ROWS) {
    test(`${row.action}: per user, then per org, each with 429 and Retry-After; free again after the window`, async () => {
      const clock = new ManualClock();
      const rates = { [row.action]: { user: '2/min', org: '3/min' } };
      await withServer(rates, clock, async (server) => {
        const admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
        const viewer = await server.tokenFor(DEMO_USERS.sunriseViewer);
        const send = (token: string) => server.request(row.method, row.path, { token, body: row.body });
        for (let i = 0; i < 2; i++) assert.ok((await send(admin)).status < 300);
        const overUser = assertThrottled(await send(admin));
        assert.ok(overUser <= 61);
        assert.ok((await send(viewer)).status < 300, 'another user still has room in the org quota');
        assertThrottled(await send(viewer)); // the org's 3 a minute are spent
        // Another action is another scope, with room left.
        const otherAction = row.action === 'project_detail' ? { method: 'PATCH', body: { notes: 'x' } } : { method: 'GET', body: undefined };
        assert.equal((await server.request(otherAction.method, '/api/orgs/1/projects/3/', { token: admin, body: otherAction.body })).status, 200);
        clock.advance(overUser * 1000);
        assert.ok((await send(admin)).status < 300, 'admitted again once Retry-After has passed');
      });
    });
  }

  test('system_details and system_image: per user, then per org', async () => {
    const clock = new ManualClock();
    const rates = { system_details: { user: '2/min', org: '3/min' }, system_image: { user: '2/min', org: '3/min' } };
    await withServer(rates, clock, async (server) => {
      const admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const viewer = await server.tokenFor(DEMO_USERS.sunriseViewer);
      const project = await server.engine.context.db.selectFrom('projects').select('attributes').where('id', '=', 1).executeTakeFirstOrThrow();
      const [system] = JSON.parse(project.attributes).systems as Array<{ uuid: string }>; // read from the store: not counted
      for (const path of ['/api/orgs/1/projects/1/systems/details/', `${apiPaths.systemImage(1, 1, system!.uuid)}?width=32&height=32`]) {
        for (let i = 0; i < 2; i++) assert.equal((await server.request('GET', path, { token: admin })).status, 200, path);
        assertThrottled(await server.request('GET', path, { token: admin }));
        assert.equal((await server.request('GET', path, { token: viewer })).status, 200);
        assertThrottled(await server.request('GET', path, { token: viewer }));
      }
    });
  });

  test('connected orgs: list, create and update each have their quota', async () => {
    const clock = new ManualClock();
    const rates = {
      connected_org_list: { user: '2/day', org: '2/day' },
      connected_org_create: { user: '1/day', org: '1/day' },
      connected_org_partial_update: { user: '1/day', org: '1/day' },
    };
    await withServer(rates, clock, async (server) => {
      const sunrise = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const basic = await server.tokenFor(DEMO_USERS.basicAdmin);
      for (let i = 0; i < 2; i++) assert.equal((await server.request('GET', '/api/orgs/1/connected_orgs/', { token: sunrise })).status, 200);
      assertThrottled(await server.request('GET', '/api/orgs/1/connected_orgs/', { token: sunrise }));
      const created = await server.request('POST', '/api/orgs/1/connected_orgs/', { token: sunrise, body: { org_name: 'Basic Solar' } });
      assert.equal(created.status, 201, created.text);
      assertThrottled(await server.request('POST', '/api/orgs/1/connected_orgs/', { token: sunrise, body: { org_name: 'Lapsed Solar' } }));
      const disabled = await server.request('PATCH', apiPaths.connectedOrg(1, created.json.id), { token: sunrise, body: { is_active: false } });
      assert.equal(disabled.status, 200, disabled.text);
      assertThrottled(await server.request('PATCH', apiPaths.connectedOrg(1, created.json.id), { token: sunrise, body: { is_active: true } }));
      const accepted = await server.request('POST', apiPaths.connectedOrgsAccept(2), { token: basic, body: { org_to_id: 1 } });
      assert.equal(accepted.status, 200, accepted.text);
    });
  });

  test('private files: create, list and update share one count per user and per org; a signed download counts in none', async () => {
    const clock = new ManualClock();
    const quota = { user: '4/hour', org: '6/day' };
    const rates = Object.fromEntries(
      ['private_file_create', 'private_file_list', 'private_file_detail', 'private_file_partial_update', 'private_file_delete', 'private_file_download', 'private_file_upload'].map(
        (action) => [action, quota],
      ),
    );
    await withServer(rates, clock, async (server) => {
      const admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const member = await server.tokenFor(DEMO_USERS.sunriseMember);
      const created = await createFile(server, admin, 'quota test', 'quota.txt'); // 1
      assert.equal((await server.request('GET', '/api/orgs/1/private_files/', { token: admin })).status, 200); // 2
      assert.equal((await server.request('PATCH', apiPaths.privateFile(1, created.id), { token: admin, body: { title: 'renamed' } })).status, 200); // 3
      // Issue 15: the signed link is file storage, as on the hosted service: no quota counts it.
      for (let i = 0; i < 5; i++) assert.equal((await download(created.file_contents)).status, 200);
      assert.equal((await server.request('GET', '/api/orgs/1/private_files/', { token: admin })).status, 200); // 4
      assertThrottled(await server.request('GET', '/api/orgs/1/private_files/', { token: admin }));
      assert.equal((await download(created.file_contents)).status, 200, 'a valid link still downloads with the API quota spent');
      assert.equal((await server.request('GET', '/api/orgs/1/private_files/', { token: member })).status, 200); // org: 5
      assert.equal((await server.request('GET', '/api/orgs/1/private_files/', { token: member })).status, 200); // org: 6
      assertThrottled(await server.request('GET', '/api/orgs/1/private_files/', { token: member }));
    });
  });

  test('a signed download leaves every throttle count as it was; a forged link is counted per address', async () => {
    const clock = new ManualClock();
    await withServer({ anonymous: { user: '3/min', org: null } }, clock, async (server) => {
      const admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const created = await createFile(server, admin, 'free download', 'free.txt');
      const countsBefore = await throttleCounts(server);
      for (let i = 0; i < 10; i++) assert.equal((await download(created.file_contents)).status, 200);
      assert.deepEqual(await throttleCounts(server), countsBefore, 'ten downloads through the link: no count moved');
      const forged = created.file_contents.replace(/signature=[^&]+/, 'signature=forged');
      for (let i = 0; i < 3; i++) assert.equal((await download(forged)).status, 403);
      assert.equal((await download(forged)).status, 429, 'forged links are throttled per client address');
    });
  });

  test('RateLimit-Limit, -Remaining and -Reset are sent on every throttled route', async () => {
    const clock = new ManualClock();
    await withServer({ project_detail: { user: '5/min', org: '100/min' } }, clock, async (server) => {
      const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const first = await server.request('GET', '/api/orgs/1/projects/4/', { token });
      assert.equal(first.headers.get('ratelimit-limit'), '5');
      assert.equal(first.headers.get('ratelimit-remaining'), '4');
      assert.match(first.headers.get('ratelimit-reset') ?? '', /^\d+$/);
      const second = await server.request('GET', '/api/orgs/1/projects/4/', { token });
      assert.equal(second.headers.get('ratelimit-remaining'), '3');
      const list = await server.request('GET', '/api/orgs/1/contacts/', { token });
      assert.ok(list.headers.get('ratelimit-limit'), 'routes outside the table have a quota too');
    });
  });

  test('50 clients firing at once never get more admissions than the quota', async () => {
    const clock = new ManualClock();
    await withServer({ project_detail: { user: '10/min', org: '10000/day' } }, clock, async (server) => {
      const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const responses = await Promise.all(Array.from({ length: 50 }, () => server.request('GET', '/api/orgs/1/projects/5/', { token })));
      const statuses = responses.map((response) => response.status);
      assert.equal(statuses.filter((status) => status === 200).length, 10);
      assert.equal(statuses.filter((status) => status === 429).length, 40);
    });
  });

  test('counters survive a restart: a restart is no way around a daily quota', async () => {
    const clock = new ManualClock();
    const rates = { default: { user: '2/day', org: '100/day' } };
    const first = await startTestServer({ throttleRates: rates, clock });
    try {
      const token = await first.tokenFor(DEMO_USERS.sunriseAdmin);
      for (let i = 0; i < 2; i++) assert.equal((await first.request('GET', '/api/orgs/1/contacts/', { token })).status, 200);
    } finally {
      await first.close({ keepData: true });
    }
    await withServer(rates, clock, async (restarted) => {
      const token = (await restarted.request('POST', '/api-token-auth/', { body: { username: DEMO_USERS.sunriseAdmin, password: DEMO_PASSWORD } })).json.token;
      const retryAfter = assertThrottled(await restarted.request('GET', '/api/orgs/1/contacts/', { token }));
      assert.ok(retryAfter > 3600, 'the day is not over');
    }, first.dataDir);
  });

  test('sign-in is throttled per client address', async () => {
    const clock = new ManualClock();
    await withServer({ sign_in: { user: '3/min', org: null } }, clock, async (server) => {
      const attempt = () => server.request('POST', '/api-token-auth/', { body: { username: DEMO_USERS.sunriseAdmin, password: 'guess' } });
      for (let i = 0; i < 3; i++) assert.equal((await attempt()).status, 400);
      assertThrottled(await attempt());
    });
  });
});
