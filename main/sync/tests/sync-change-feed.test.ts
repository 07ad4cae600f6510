// Issue 15: a change made on a SolarDesk server reaches an idle agent within
// seconds through the change feed, with the poll interval at its default (30 s) or
// longer; with the server's feed turned off (--no-change-feed, a stand-in for the
// hosted service) the agent falls back to polling and still gets it within the
// budgeted polling interval (with the quotas scaled so that is seconds). Real
// server, real agent, real fault proxy between them (passing everything through).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { createFile } from '../../engine/testing/file-testing.ts';
import { DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { DEFAULT_BACKGROUND_SHARE, DEFAULT_THROTTLE_RATES, type ThrottleRates, parseRate, scaleRates } from '../../../shared/throttle-rates.ts';

const ORG = 1;

/** Polls the agent's local API until `check` holds; the time it took, or a failure after `timeoutMs`. */
async function within(timeoutMs: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not there after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function changeOnServerReachesAgent(harness: SyncHarness, timeoutMs: number, label: string): Promise<void> {
  const token = await harness.server.tokenFor(DEMO_USERS.sunriseAdmin);
  const notes = `changed on the server (${label})`;
  assert.equal((await harness.remote('PATCH', apiPaths.project(ORG, 7), { notes })).status, 200);
  const file = await createFile(harness.server, token, `bytes ${label}`, `${label}.txt`, { title: `Attached ${label}`, project: '7' });
  await within(timeoutMs, 'the project change', async () => (await harness.local('GET', apiPaths.project(ORG, 7))).json?.notes === notes);
  await within(timeoutMs, 'the attached file', async () => (await harness.local('GET', apiPaths.privateFile(ORG, file.id))).status === 200);
  const project = (await harness.local('GET', apiPaths.project(ORG, 7))).json;
  assert.ok(
    (project.private_files_data as Array<{ id: number }>).some((row) => row.id === file.id),
    'the project lists the attached file',
  );
}

describe('the change feed reaches an idle agent', () => {
  let harness: SyncHarness;
  before(async () => {
    // The default poll interval: only the feed can bring the change within 10 s.
    harness = await startSyncHarness({ pollIntervalSeconds: 30 });
  });
  after(() => harness.close());

  test('a project changed and a file attached on the server are in the replica within 10 s', async () => {
    await within(10_000, 'the feed listening', async () => harness.agent.feed?.state === 'listening');
    await changeOnServerReachesAgent(harness, 10_000, 'feed');
    assert.equal(harness.agent.feed?.state, 'listening');
    assert.ok((harness.agent.context.remote.sent.get('GET stream') ?? 0) >= 1, 'the hint stream is open');
  });

  test('a file deleted on the server leaves the replica through the feed', async () => {
    const token = await harness.server.tokenFor(DEMO_USERS.sunriseAdmin);
    const file = await createFile(harness.server, token, 'short-lived', 'gone.txt', { title: 'Gone soon', project: '7' });
    await within(10_000, 'the new file', async () => (await harness.local('GET', apiPaths.privateFile(ORG, file.id))).status === 200);
    const removed = await harness.remote('DELETE', apiPaths.privateFile(ORG, file.id));
    assert.ok(removed.status === 204 || removed.status === 200, removed.text);
    await within(10_000, 'the deletion', async () => (await harness.local('GET', apiPaths.privateFile(ORG, file.id))).status === 404);
  });
});

describe('without the change feed the agent polls, within its budget', () => {
  // The documented quotas with every window shortened 1,440 times (a day passes in a minute), on both sides,
  // so the budgeted polling interval is seconds, not the minutes it is at real rates (docs/sync.md "Budget").
  const RATES = scaleRates(DEFAULT_THROTTLE_RATES, 1440) as ThrottleRates;
  let harness: SyncHarness;
  before(async () => {
    harness = await startSyncHarness({ pollIntervalSeconds: 0.25, serverChangeFeed: false, serverRates: RATES, remoteRates: RATES });
  });
  after(() => harness.close());

  test('the feed is detected as absent, and the changes still arrive within the budgeted polling interval, with no 429', async () => {
    await within(10_000, 'the feed detected as absent', async () => harness.agent.feed?.state === 'absent');
    assert.equal(harness.agent.context.remote.sent.get('GET stream') ?? 0, 0, 'no stream is opened where there is no feed');
    // The budgeted polling interval: the time background sync earns one request of the scarcest bucket a change needs.
    const earnOneMs = (action: 'private_file_list' | 'project_detail' | 'default') => {
      const { limit, windowSeconds } = parseRate(RATES[action].org!);
      return (windowSeconds * 1000) / (DEFAULT_BACKGROUND_SHARE * limit);
    };
    const budgetedIntervalMs = Math.max(earnOneMs('private_file_list'), earnOneMs('project_detail'), earnOneMs('default'));
    // Two of them (the project, then its files), plus a cycle's own time.
    await changeOnServerReachesAgent(harness, 2 * budgetedIntervalMs + 3_000, 'polling');
    assert.equal(harness.proxy.log.filter((entry) => entry.status === 429).length, 0, 'polling within the budget causes no 429');
  });
});
