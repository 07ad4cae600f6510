// The pacer over a simulated day (ManualClock: the only fake; the pacer's waits
// advance it): under a mix of background polls and user work it never exceeds a
// per-user or per-org quota of any bucket in any window, background stays within
// its share of each org quota, and user work is never delayed by background work.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../engine/clock.ts';
import { ALLOWANCE_WAIT_TOLD_MS, BudgetWaitError, QuotaPacer } from './quota-pacer.ts';
import { DEFAULT_THROTTLE_RATES, type ThrottleAction, isRate, parseRate, quotaBuckets } from '../../shared/throttle-rates.ts';

const DAY_MS = 86_400_000;

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

interface Sent {
  at: number;
  bucket: string;
  requestClass: 'user' | 'background';
}

/** The most requests any window of `windowMs` holds among `times` (sorted). */
function busiestWindow(times: number[], windowMs: number): number {
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

/**
 * One simulated day: a background poll every 30 s trying the requests an idle
 * agent would (a project probe, a contact probe, a file probe), and user work in
 * bursts (edits, opened projects, dropped files). Returns every request sent and
 * how long each user request waited.
 */
async function simulateDay(options: { background: boolean; userLoad: number; seed: number }) {
  const clock = new ManualClock('2026-06-01T00:00:00.000Z');
  const start = clock.now().getTime();
  const pacer = new QuotaPacer(clock, DEFAULT_THROTTLE_RATES, { sleep: async (ms) => clock.advance(ms) });
  const sent: Sent[] = [];
  const userWaits: number[] = [];
  const next = random(options.seed);
  const send = async (action: ThrottleAction, requestClass: 'user' | 'background') => {
    const asked = clock.now().getTime();
    try {
      await pacer.take(action, requestClass);
    } catch (error) {
      if (error instanceof BudgetWaitError) return false;
      throw error;
    }
    if (requestClass === 'user') userWaits.push(clock.now().getTime() - asked);
    sent.push({ at: clock.now().getTime(), bucket: pacer.bucketKey(action), requestClass });
    return true;
  };
  let nextPoll = start;
  while (clock.now().getTime() - start < DAY_MS) {
    const now = clock.now().getTime();
    if (options.background && now >= nextPoll) {
      nextPoll += 30_000;
      if (await send('default', 'background')) await send('project_detail', 'background');
      await send('default', 'background');
      await send('private_file_list', 'background');
    }
    // Now and then a person works: a burst of requests of several buckets.
    if (next() < options.userLoad) {
      const burst = 1 + Math.floor(next() * 40);
      for (let index = 0; index < burst; index++) {
        const pick = next();
        const action: ThrottleAction = pick < 0.3 ? 'project_partial_update' : pick < 0.55 ? 'project_detail' : pick < 0.75 ? 'private_file_upload' : pick < 0.9 ? 'private_file_detail' : 'default';
        await send(action, 'user');
      }
    }
    clock.advance(1_000 + Math.floor(next() * 9_000));
  }
  return { sent, userWaits, pacer };
}

describe('the quota pacer over a simulated day', () => {
  test('no per-user or per-org quota of any bucket is exceeded in any window, and background stays within its share', async () => {
    // Heavy user work: people's own file requests come close to the org's 1,000 a day.
    const { sent } = await simulateDay({ background: true, userLoad: 0.01, seed: 11 });
    let checked = 0;
    for (const bucket of quotaBuckets(DEFAULT_THROTTLE_RATES)) {
      const times = sent.filter((request) => request.bucket === bucket.key).map((request) => request.at);
      const background = sent.filter((request) => request.bucket === bucket.key && request.requestClass === 'background').length;
      for (const rate of [bucket.user, bucket.org]) {
        if (!rate || !isRate(rate)) continue;
        const { limit, windowSeconds } = parseRate(rate);
        const busiest = busiestWindow(times, windowSeconds * 1000);
        assert.ok(busiest <= limit, `${bucket.key}: ${busiest} requests in one window of ${rate}`);
        checked++;
      }
      if (bucket.org && isRate(bucket.org) && background > 0) {
        const { limit, windowSeconds } = parseRate(bucket.org);
        const allowance = (0.02 * limit * DAY_MS) / (windowSeconds * 1000);
        assert.ok(background <= allowance, `${bucket.key}: background sent ${background} in a day, allowance ${allowance}`);
      }
    }
    assert.ok(checked > 10, 'the windows were checked');
    // The mix did load the quotas: user work came close to the org's daily file quota, and background spent (nearly) its share beside it.
    const files = sent.filter((request) => request.bucket === 'private_files');
    assert.ok(files.filter((request) => request.requestClass === 'user').length > 900, 'user work used most of the daily file quota');
    const backgroundFiles = files.filter((request) => request.requestClass === 'background').length;
    assert.ok(backgroundFiles >= 15 && backgroundFiles <= 20, `background spent ${backgroundFiles} of its 20 a day of files`);
  });

  test('user work is never delayed by background work', async () => {
    // The same user work, with and without background polls: every user request waits exactly as long.
    // (Bursts of edits meet the 10-a-minute quota, so user work is paced; it stays below the org's daily
    // quotas less background's share: beyond that, the 2 % background spent is not there for people.)
    const withBackground = await simulateDay({ background: true, userLoad: 0.005, seed: 11 });
    const alone = await simulateDay({ background: false, userLoad: 0.005, seed: 11 });
    assert.ok(withBackground.sent.some((request) => request.requestClass === 'background'), 'background did run');
    assert.deepEqual(withBackground.userWaits, alone.userWaits);
    assert.ok(alone.userWaits.some((wait) => wait > 0), 'user work was paced at times (the quotas were reached)');
  });

  test('a background request gives way to a user request of its bucket that waits, and never waits itself', async () => {
    const clock = new ManualClock('2026-06-01T00:00:00.000Z');
    let release: () => void = () => undefined;
    const pacer = new QuotaPacer(clock, DEFAULT_THROTTLE_RATES, { sleep: () => new Promise<void>((resolve) => (release = resolve)) });
    clock.advance(DAY_MS); // background has earned a full burst
    for (let index = 0; index < 10; index++) await pacer.take('project_partial_update', 'user');
    const waiting = pacer.take('project_partial_update', 'user'); // the 11th in a minute must wait
    await new Promise((resolve) => setImmediate(resolve));
    await assert.rejects(pacer.take('project_partial_update', 'background'), BudgetWaitError);
    clock.advance(2 * 60_000);
    release();
    await waiting;
    assert.equal(pacer.budget().find((bucket) => bucket.bucket === 'project_partial_update')?.user, 11);
  });

  test("a person's request that must wait for the allowance says so once, with when it goes; one that goes at once says nothing", async () => {
    const clock = new ManualClock('2026-06-01T10:00:00.000Z');
    const pacer = new QuotaPacer(clock, DEFAULT_THROTTLE_RATES, { sleep: async (ms) => clock.advance(ms) });
    const heard: Array<{ bucket: string; mayGoAt: number; at: number }> = [];
    const onWait = (wait: { bucket: string; mayGoAt: number }) => heard.push({ ...wait, at: clock.now().getTime() });
    for (let index = 0; index < 10; index++) await pacer.take('project_partial_update', 'user', undefined, onWait);
    assert.equal(heard.length, 0, "ten PATCHes a minute go at once");
    const asked = clock.now().getTime();
    await pacer.take('project_partial_update', 'user', undefined, onWait); // the 11th in a minute waits
    const wentAt = clock.now().getTime();
    assert.equal(heard.length, 1, 'told once, however many steps the wait took');
    assert.equal(heard[0]!.bucket, 'project_partial_update');
    assert.equal(heard[0]!.at, asked, 'told when it began to wait');
    assert.ok(wentAt - asked >= ALLOWANCE_WAIT_TOLD_MS, `it did wait (${wentAt - asked} ms)`);
    assert.equal(heard[0]!.mayGoAt, wentAt, 'and said when it would go');
  });

  test("today's spend and the budget survive a restart, and a new UTC day starts the count again", async () => {
    const clock = new ManualClock('2026-06-01T10:00:00.000Z');
    const first = new QuotaPacer(clock, DEFAULT_THROTTLE_RATES);
    clock.advance(6 * 3_600_000); // six hours: five background file requests earned
    for (let index = 0; index < 5; index++) await first.take('private_file_list', 'background');
    await assert.rejects(first.take('private_file_list', 'background'), BudgetWaitError);
    await first.take('private_file_detail', 'user');
    const kept = JSON.parse(JSON.stringify(first.snapshot()));
    const second = new QuotaPacer(clock, DEFAULT_THROTTLE_RATES);
    second.restore(kept);
    const files = second.budget().find((bucket) => bucket.bucket === 'private_files')!;
    assert.deepEqual([files.user, files.background, files.orgDailyQuota, files.backgroundAllowance, files.backgroundAvailable], [1, 5, 1000, 20, 0]);
    await assert.rejects(second.take('private_file_list', 'background'), BudgetWaitError, 'the restart did not refill the budget');
    clock.advance(9 * 3_600_000); // past midnight UTC
    const nextDay = second.budget().find((bucket) => bucket.bucket === 'private_files')!;
    assert.deepEqual([nextDay.user, nextDay.background], [0, 0]);
  });

  test('a share of 0 keeps background off every org quota', async () => {
    const clock = new ManualClock();
    const pacer = new QuotaPacer(clock, DEFAULT_THROTTLE_RATES, { backgroundShare: 0 });
    clock.advance(DAY_MS);
    await assert.rejects(pacer.take('default', 'background'), BudgetWaitError);
    await pacer.take('default', 'user');
  });

  test('a request counts from when the remote answered it: the next of a full window waits for the window from the answer', async () => {
    const clock = new ManualClock('2026-06-01T00:00:00.000Z');
    const rates = { ...DEFAULT_THROTTLE_RATES, project_partial_update: { user: '1/min', org: '10000/day' } } as const;
    const pacer = new QuotaPacer(clock, rates, { sleep: async (ms) => clock.advance(ms) });
    const takenAt = await pacer.take('project_partial_update');
    // The answer came 5 s later (a loaded machine): the remote counted the edit somewhere in those 5 s.
    clock.advance(5_000);
    pacer.answered('project_partial_update', 'user', takenAt);
    const answeredAt = clock.now().getTime();
    assert.ok(pacer.delayFor('project_partial_update') >= 60_000, `waits a whole minute from the answer, not ${pacer.delayFor('project_partial_update')} ms`);
    await pacer.take('project_partial_update');
    assert.ok(clock.now().getTime() - answeredAt >= 60_000);
  });

  test('a clock that steps back frees no window early: a request counts from the latest time already counted', async () => {
    const clock = new ManualClock('2026-06-01T00:00:00.000Z');
    const rates = { ...DEFAULT_THROTTLE_RATES, project_partial_update: { user: '2/min', org: '10000/day' } } as const;
    const pacer = new QuotaPacer(clock, rates, { sleep: async (ms) => clock.advance(ms) });
    clock.advance(50_000);
    const first = await pacer.take('project_partial_update');
    clock.advance(-40_000); // the system clock was set back
    const second = await pacer.take('project_partial_update');
    assert.equal(second, first, 'counted at the later time, so the counted times stay in order');
    // Both hits are counted until a minute (and a slice) after the later time, wherever the clock is now.
    clock.advance(40_000 + 60_000);
    assert.ok(pacer.delayFor('project_partial_update') > 0, 'the window is still full a minute after the first take');
    await pacer.take('project_partial_update');
    assert.ok(clock.now().getTime() - first >= 61_000, `the third went ${clock.now().getTime() - first} ms after the first two`);
  });
});
