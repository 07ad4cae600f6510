// The throttle on a store one process owns (SQLite): counted in memory, exactly,
// written to throttle_buckets at each checkpoint and on close, read back by the
// next process, and a refund (a 304 answer) taking one count back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sql } from 'kysely';
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

// Issue 25, item 4: on a full disk the checkpoint failed, its counts were dropped from
// the to-write list, and every later checkpoint was skipped (the chain stayed rejected).
test('a checkpoint that fails (a full store) keeps its counts to write, and the next checkpoint writes them', async () => {
  const dataDir = makeTempDir();
  const store = await openSqliteStore(dataDir);
  try {
    const throttle = new Throttle(store, new ManualClock(), RATES);
    await throttle.admit('default', SUBJECT);
    await throttle.admit('default', SUBJECT);
    // A real SQLITE_FULL: the file may not grow past the pages it has, and other slices
    // fill throttle_buckets' pages (bounded: a page holds far fewer than 10,000 rows).
    const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(store.db)).rows[0]!.page_count;
    await sql.raw(`pragma max_page_count = ${pages}`).execute(store.db);
    let filled = false;
    for (let n = 0; n < 10_000 && !filled; n++) {
      try {
        await store.db.insertInto('throttle_buckets').values({ scope_key: `filler|${n}`, bucket_start: n, hits: 1 }).execute();
      } catch (error) {
        filled = (error as { code?: string }).code === 'SQLITE_FULL';
        if (!filled) throw error;
      }
    }
    assert.ok(filled, 'the store is full');
    await assert.rejects(throttle.checkpoint(), (error: { code?: string }) => error.code === 'SQLITE_FULL');
    await sql.raw('pragma max_page_count = 1073741823').execute(store.db);
    await throttle.checkpoint();
    const rows = await store.db.selectFrom('throttle_buckets').select(['scope_key', 'hits']).execute();
    assert.equal(Object.fromEntries(rows.map((row) => [row.scope_key, row.hits]))['default|user:7|60'], 2, 'written once there is room');
    await throttle.close();
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
