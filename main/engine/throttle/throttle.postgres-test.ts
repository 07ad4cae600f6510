// The throttle on a store several processes share (PostgreSQL): each admission is
// one statement (throttle_admit, store migration 0009). Two stores opened on one
// schema stand for two server processes: each has its own connection pool, so
// their admissions race in PostgreSQL exactly as two processes' would.
// Runs only on the PostgreSQL run: npm run test:postgres.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openPostgresStore, type Store } from '../store/database.ts';
import { makeTempDir } from '../testing/test-server.ts';
import { dropTestDatabase, testDatabaseFor, testPostgresUrl } from '../testing/test-database.ts';
import { ManualClock } from '../clock.ts';
import { Throttle, mergeThrottleRates } from './throttle.ts';

if (!testPostgresUrl()) {
  throw new Error('throttle.postgres-test.ts needs a PostgreSQL server: run it through `npm run test:postgres`.');
}

const RATES = mergeThrottleRates({ default: { user: '10/min', org: '15/min' } });
const dataDir = makeTempDir();
const clock = new ManualClock();
let stores: Store[] = [];
let throttles: Throttle[] = [];

before(async () => {
  const database = testDatabaseFor(dataDir)!;
  // One after the other: the first applies the migrations.
  stores.push(await openPostgresStore(database, dataDir, dataDir));
  stores.push(await openPostgresStore(database, dataDir, dataDir));
  throttles = stores.map((store) => new Throttle(store, clock, RATES));
});

after(async () => {
  await Promise.all(stores.map((store) => store.close()));
  stores = [];
  await dropTestDatabase(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('one user, two processes at once: exactly the per-user quota is admitted', async () => {
  const subject = { user: 'one', org: 1 };
  const decisions = await Promise.all(Array.from({ length: 40 }, (_, i) => throttles[i % 2]!.admit('default', subject)));
  assert.equal(decisions.filter((decision) => decision.allowed).length, 10);
  const denied = decisions.find((decision) => !decision.allowed)!;
  assert.equal(denied.limit, 10);
  assert.ok(denied.resetSeconds >= 1 && denied.resetSeconds <= 61, `reset ${denied.resetSeconds}`);
  assert.deepEqual(denied.counted, [], 'a denied request counts nowhere');
});

test('several users of one org, two processes at once: the org quota holds, and a denial counts in no scope', async () => {
  clock.advance(61_000);
  const decisions = await Promise.all(
    Array.from({ length: 40 }, (_, i) => throttles[i % 2]!.admit('default', { user: `member-${i % 8}`, org: 2 })),
  );
  assert.equal(decisions.filter((decision) => decision.allowed).length, 15);
  // Had a denied request counted for its user, some user would now have less than 10 - their admissions left.
  const rows = await stores[0]!.db.selectFrom('throttle_buckets').select(['scope_key', 'hits']).where('scope_key', 'like', 'default|user:member-%').execute();
  const userHits = rows.reduce((total, row) => total + Number(row.hits), 0);
  assert.equal(userHits, 15, 'the users were counted for the admitted requests only');
});

test('a refund through one process frees an admission through the other; the window frees the rest', async () => {
  clock.advance(61_000);
  const subject = { user: 'refunded', org: 3 };
  const admitted = [];
  for (let i = 0; i < 10; i++) admitted.push(await throttles[0]!.admit('default', subject));
  assert.ok(admitted.every((decision) => decision.allowed));
  assert.equal(admitted.at(-1)!.remaining, 0);
  assert.equal((await throttles[1]!.admit('default', subject)).allowed, false);
  await throttles[0]!.refund(admitted[0]!.counted);
  assert.equal((await throttles[1]!.admit('default', subject)).allowed, true, 'the refunded count frees one admission');
  assert.equal((await throttles[0]!.admit('default', subject)).allowed, false);
  clock.advance(61_000);
  const later = await throttles[1]!.admit('default', subject);
  assert.equal(later.allowed, true, 'free again after the window');
  assert.equal(later.remaining, 9);
});
