// The throttle on a store one process owns (SQLite): counted in memory, exactly,
// written to throttle_buckets at each checkpoint and on close, read back by the
// next process, and a refund (a 304 answer) taking one count back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openSqliteStore } from '../store/database.ts';
import { makeTempDir } from '../testing/test-server.ts';
import { ManualClock } from '../clock.ts';
import { Throttle, mergeThrottleRates } from './throttle.ts';

const RATES = mergeThrottleRates({ default: { user: '5/min', org: '100/day' } });
const SUBJECT = { user: '7', org: 1 };

test('counted in memory exactly, checkpointed, refunded, and read back after a restart', async () => {
  const dataDir = makeTempDir();
  const clock = new ManualClock();
  const store = await openSqliteStore(dataDir);
  try {
    const throttle = new Throttle(store, clock, RATES);
    const decisions = await Promise.all(Array.from({ length: 12 }, () => throttle.admit('default', SUBJECT)));
    assert.equal(decisions.filter((decision) => decision.allowed).length, 5, 'concurrent admissions stop exactly at the quota');

    await throttle.refund(decisions.find((decision) => decision.allowed)!.counted);
    assert.equal((await throttle.admit('default', SUBJECT)).allowed, true, 'a refunded count frees one admission');
    assert.equal((await throttle.admit('default', SUBJECT)).allowed, false);

    await throttle.checkpoint();
    const rows = await store.db.selectFrom('throttle_buckets').select(['scope_key', 'hits']).execute();
    const hits = Object.fromEntries(rows.map((row) => [row.scope_key, row.hits]));
    assert.equal(hits['default|user:7|60'], 5);
    assert.equal(hits['default|org:1|86400'], 5);

    assert.equal((await throttle.admit('default', { user: '8', org: 1 })).allowed, true);
    await throttle.close();
    const restarted = new Throttle(store, clock, RATES);
    assert.equal((await restarted.admit('default', SUBJECT)).allowed, false, 'the counts outlive the process');
    clock.advance(61_000);
    const later = await restarted.admit('default', SUBJECT);
    assert.equal(later.allowed, true, 'free again after the window');
    assert.equal(later.remaining, 4, "the user's quota is the tightest");
    await restarted.close();
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
