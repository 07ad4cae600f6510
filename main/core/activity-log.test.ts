// The activity log's store on a real SQLite file (migration 0027): newest first,
// searched by its words, filtered by project and kind, one entry per thing under way,
// and kept 90 days on the injected clock (ManualClock: the only fake here).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openSqliteStore, type Store } from '../engine/store/database.ts';
import { ManualClock } from '../engine/clock.ts';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { ActivityLog } from './activity-log.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

let dataDir: string;
let store: Store;
before(async () => {
  dataDir = makeTempDir('activity-log-');
  store = await openSqliteStore(dataDir);
});
after(async () => {
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('entries come newest first, found by every word typed and filtered by project and kind', async () => {
  const log = new ActivityLog(store.db, new ManualClock(), 1);
  await log.record({ kind: 'attached', state: 'done', projectId: 7, fileId: 70, subject: 'roof_north.jpg' });
  await log.record({ kind: 'remote_change', state: 'done', projectId: 7, subject: 'Smith house', fields: ['Postal code', 'Stage'] });
  await log.record({ kind: 'attached', state: 'done', projectId: 8, fileId: 80, subject: 'meter 100%.jpg' });
  // Another org's entry in the same store is never listed.
  await new ActivityLog(store.db, new ManualClock(), 2).record({ kind: 'attached', state: 'done', projectId: 7, subject: 'roof_south.jpg' });

  assert.deepEqual((await log.list()).entries.map((entry) => entry.subject), ['meter 100%.jpg', 'Smith house', 'roof_north.jpg']);
  assert.deepEqual((await log.list({ projectId: 7 })).entries.map((entry) => entry.subject), ['Smith house', 'roof_north.jpg']);
  assert.deepEqual((await log.list({ kinds: ['remote_change'] })).entries.map((entry) => entry.fields), [['Postal code', 'Stage']]);
  assert.deepEqual((await log.list({ search: 'postal SMITH' })).entries.map((entry) => entry.subject), ['Smith house'], 'every word, any case, in the field labels too');
  assert.deepEqual((await log.list({ search: 'roof_' })).entries.map((entry) => entry.subject), ['roof_north.jpg'], '_ is itself, not any one character');
  assert.deepEqual((await log.list({ search: '100%' })).entries.map((entry) => entry.subject), ['meter 100%.jpg'], '% is itself, not a wildcard');
  assert.deepEqual((await log.list({ search: 'changed on the server' })).entries.map((entry) => entry.subject), ['Smith house'], 'the kind\'s words find it');
  const firstPage = await log.list({ limit: 2 });
  assert.equal(firstPage.hasMore, true);
  const nextPage = await log.list({ limit: 2, beforeId: firstPage.entries.at(-1)!.id });
  assert.deepEqual(nextPage.entries.map((entry) => entry.subject), ['roof_north.jpg']);
  assert.equal(nextPage.hasMore, false);
});

test('a thing under way is one entry that moves, and stops being live once done', async () => {
  const log = new ActivityLog(store.db, new ManualClock(), 3);
  const started = await log.record({ kind: 'upload', state: 'running', fileId: 5, subject: 'plan.pdf', progress: { done: 0, total: 100 }, liveKey: 'upload:5' });
  assert.equal(started.before, null);
  const moved = await log.record({ kind: 'upload', state: 'running', fileId: 5, subject: 'plan.pdf', progress: { done: 60, total: 100 }, liveKey: 'upload:5' });
  assert.equal(moved.entry.id, started.entry.id);
  assert.deepEqual(moved.before?.progress, { done: 0, total: 100 });
  const done = await log.record({ kind: 'upload', state: 'done', fileId: 5, subject: 'plan.pdf', progress: { done: 100, total: 100 }, liveKey: 'upload:5' });
  assert.equal(done.entry.id, started.entry.id);
  assert.equal(await log.live('upload:5'), null, 'done: no longer live');
  const again = await log.record({ kind: 'upload', state: 'running', fileId: 5, subject: 'plan.pdf', liveKey: 'upload:5' });
  assert.notEqual(again.entry.id, started.entry.id, 'a later upload of the same file is an entry of its own');
  assert.equal((await log.list({ kinds: ['upload'] })).entries.length, 2);
});

test('entries are kept 90 days of the injected clock, then pruned', async () => {
  const clock = new ManualClock('2026-01-01T00:00:00.000Z');
  const log = new ActivityLog(store.db, clock, 4);
  await log.record({ kind: 'edit', state: 'done', subject: 'old edit' });
  clock.advance(89 * DAY_MS);
  await log.record({ kind: 'edit', state: 'done', subject: 'recent edit' });
  assert.equal(await log.prune(), 0, 'at 89 days nothing is old enough');
  clock.advance(2 * DAY_MS);
  // Recording prunes by itself (at most hourly): the old entry goes without anyone asking.
  await log.record({ kind: 'edit', state: 'done', subject: 'newest edit' });
  assert.deepEqual((await log.list()).entries.map((entry) => entry.subject), ['newest edit', 'recent edit']);
});
