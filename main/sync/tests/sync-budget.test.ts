// Issue 15: an idle agent stays within background sync's share of every org quota,
// and still finds what changed. A real server, a real agent and the counting proxy
// between them; the quotas are the documented table with every window shortened
// 1,440 times (scaleRates: a day passes in a minute, 1,000 private-file requests
// a day become 1,000 a minute), the same table on both sides, so half a minute of
// real time is twelve hours of the budget.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import type { ProxiedRequest } from '../testing/fault-proxy.ts';
import { DEFAULT_THROTTLE_RATES, type ThrottleRates, bucketOf, parseRate, quotaBuckets, scaleRates } from '../../../shared/throttle-rates.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';
import { createFile } from '../../engine/testing/file-testing.ts';
import { actionOfRequest } from '../../../bench/budget.bench.ts';
import type { SyncBudgetJson } from '../../../shared/schemas/sync.ts';
import { STATE_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

const SCALE = 1440;
const RATES = scaleRates(DEFAULT_THROTTLE_RATES, SCALE) as ThrottleRates;
const IDLE_MS = 20_000;

async function waitFor<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = STATE_HANG_GUARD_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the budget of an idle agent', () => {
  let h: SyncHarness;
  /** When the agent's budget began to fill: what background may have spent by any moment is counted from here. */
  let budgetStartedAt = 0;
  before(async () => {
    budgetStartedAt = Date.now();
    h = await startSyncHarness({ serverRates: RATES, remoteRates: RATES, pollIntervalSeconds: 0.25 });
  });
  after(() => h.close());

  test('idle, background sync spends at most its share of each org quota, and causes no 429', async () => {
    await h.agent.sync.settled();
    const first = h.proxy.log.length;
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const elapsedMs = Date.now() - started;
    const idle = h.proxy.log.slice(first);
    assert.equal(idle.filter((entry) => entry.status === 429).length, 0, 'no 429');
    const polls = new Map<string, number>();
    for (const entry of idle) {
      const bucket = bucketOf(RATES, actionOfRequest(entry.method, entry.path));
      polls.set(bucket, (polls.get(bucket) ?? 0) + 1);
    }
    for (const bucket of quotaBuckets(RATES)) {
      if (!bucket.org) continue;
      const { limit, windowSeconds } = parseRate(bucket.org);
      // The budget filled from the agent's start, before the idle time counted here (the first, user-class sync
      // can take seconds on a loaded machine): what background may spend by now is counted from that start.
      const budgetMs = Date.now() - budgetStartedAt;
      const allowance = (0.02 * limit * budgetMs) / (windowSeconds * 1000);
      const spent = polls.get(bucket.key) ?? 0;
      assert.ok(spent <= allowance + 1, `${bucket.key}: ${spent} requests in ${elapsedMs} ms idle, ${budgetMs} ms since the agent started; allowance ${allowance.toFixed(1)}`);
    }
    assert.ok((polls.get('default') ?? 0) > 10, 'the agent did poll (the project probe)');
    const budget = (await h.local('GET', syncPaths.budget(1))).json as SyncBudgetJson;
    const files = budget.buckets.find((bucket) => bucket.bucket === 'private_files')!;
    assert.equal(files.org_daily_quota, 1000 * SCALE);
    assert.equal(files.background_allowance, 20 * SCALE);
    assert.equal(budget.background_share, 0.02);
    assert.ok(files.background <= files.background_allowance!, 'the route reports the spend');
  });

  test('a project changed on the remote reaches the idle agent, and the files of that project with it', async () => {
    const adminToken = await h.server.tokenFor('admin@sunrise.example');
    const file = await createFile(h.server, adminToken, 'budget bytes', 'budget.txt', { title: 'Came with a change', project: `${h.server.baseUrl}${apiPaths.project(1, 3)}` });
    assert.equal((await h.remote('PATCH', apiPaths.project(1, 3), { notes: 'changed elsewhere' })).status, 200);
    // No wake: the timed polls find it (the project probe moved, so project 3's files are looked up).
    await waitFor('the change', async () => ((await h.local('GET', apiPaths.project(1, 3))).json.notes === 'changed elsewhere' ? true : undefined));
    await waitFor('the file', async () => ((await h.local('GET', apiPaths.privateFile(1, file.id))).status === 200 ? true : undefined));
  });

  test('opening a project reads its files afresh (POST sync/refresh/)', async () => {
    const adminToken = await h.server.tokenFor('admin@sunrise.example');
    // A file added to a project that did not change: no probe of projects shows it.
    const file = await createFile(h.server, adminToken, 'opened bytes', 'opened.txt', { title: 'Seen on open', project: `${h.server.baseUrl}${apiPaths.project(1, 5)}` });
    const response = await h.local('POST', syncPaths.refresh(1), { project_id: 5 });
    assert.equal(response.status, 200);
    await waitFor('the file', async () => ((await h.local('GET', apiPaths.privateFile(1, file.id))).status === 200 ? true : undefined), 10_000);

    // Opened again at once: nothing is read (clicking through projects must not spend the file quota on each) ...
    // (Another file, brought by the change feed first, so that no read of it is still on its way.)
    const second = await createFile(h.server, adminToken, 'second bytes', 'second.txt', { title: 'Seen by the feed', project: `${h.server.baseUrl}${apiPaths.project(1, 5)}` });
    await waitFor('the second file', async () => ((await h.local('GET', apiPaths.privateFile(1, second.id))).status === 200 ? true : undefined), 10_000);
    await h.agent.sync.settled();
    const fileListsOfProject = () => h.proxy.log.filter((entry) => entry.method === 'GET' && entry.path === apiPaths.privateFiles(1) && new URLSearchParams(entry.query).get('project') === '5').length;
    const before = fileListsOfProject();
    assert.equal((await h.local('POST', syncPaths.refresh(1), { project_id: 5 })).status, 200);
    await h.agent.sync.settled();
    assert.equal(fileListsOfProject(), before, 'a project opened again within minutes is not read afresh');
    // ... unless the user asks for it (force: the refresh button).
    assert.equal((await h.local('POST', syncPaths.refresh(1), { project_id: 5, force: true })).status, 200);
    await waitFor('the forced read', async () => (fileListsOfProject() > before ? true : undefined), 10_000);
  });
});

describe('a budget that earns background one request at a time', () => {
  // Background earns one 'default' request (the probes and the list walks) every 2 s, and the agent polls every
  // 0.25 s, so it spends each the moment it has it; the project detail's budget fills undisturbed. No change feed:
  // as on the hosted service, only the timed polls find what changed.
  const rates = { ...RATES, default: { ...RATES.default, org: '1500/min' }, project_detail: { ...RATES.project_detail, org: '1500/min' } } as ThrottleRates;
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness({ serverRates: rates, remoteRates: rates, pollIntervalSeconds: 0.25, serverChangeFeed: false });
  });
  after(() => h.close());

  test('a change the probe found comes down: the next request goes to its walk, not to another probe', async () => {
    await h.agent.sync.settled();
    const isProjectList = (entry: ProxiedRequest) => entry.method === 'GET' && entry.path === apiPaths.projects(1);
    const isProbe = (entry: ProxiedRequest) => new URLSearchParams(entry.query).get('limit') === '1';
    // Several in a row: the first may still find requests saved up since the agent started.
    for (const round of [1, 2, 3]) {
      const notes = `changed elsewhere, round ${round}`;
      const from = h.proxy.log.length;
      assert.equal((await h.remote('PATCH', apiPaths.project(1, 3), { notes })).status, 200);
      await waitFor(`round ${round}'s change`, async () => ((await h.local('GET', apiPaths.project(1, 3))).json.notes === notes ? true : undefined));
      // The probe that saw the list move (200, not 304) is followed by the walk. Before the fix each request the
      // budget earned went to another probe (a minute of 304s in a row here), and the walk got one only by chance.
      const lists = h.proxy.log.slice(from).filter(isProjectList);
      const moved = lists.findIndex((entry) => isProbe(entry) && entry.status === 200);
      assert.ok(moved >= 0, `round ${round}: a probe saw the change`);
      const next = lists[moved + 1];
      assert.ok(next && !isProbe(next), `round ${round}: after the probe that saw it, ${lists.slice(moved + 1).filter(isProbe).length} more probes before the walk`);
    }
    assert.equal(h.proxy.log.filter((entry) => entry.status === 429).length, 0, 'no 429');
  });
});
