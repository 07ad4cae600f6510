// A download's activity entry from what a fetch tells (remote-contents.ts DownloadEvent),
// on a real SQLite store: a wait for the allowance says when it goes, and only a long
// one (the day's background share used up) is told as quota and notified; progress
// moves one entry a whole percent at a time; a failure says why and is notified. The
// events are handed in as sync hands them; the clock is a ManualClock (the only fake),
// so "how long until it may go" is exact. The real fetches are in tests/activity.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openSqliteStore, type Store } from '../engine/store/database.ts';
import { ManualClock } from '../engine/clock.ts';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { DEFAULT_NOTIFICATION_SWITCHES, noticeFor, stateLineOf } from '../../shared/activity.ts';
import { ActivityRecorder } from './activity-recorder.ts';
import type { RecordedActivity } from './activity-log.ts';

let dataDir: string;
let store: Store;
before(async () => {
  dataDir = makeTempDir('activity-downloads-');
  store = await openSqliteStore(dataDir);
});
after(async () => {
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function recorderFor(orgId: number) {
  const clock = new ManualClock('2026-06-01T09:00:00.000Z');
  const recorded: RecordedActivity[] = [];
  const recorder = new ActivityRecorder({
    db: store.db,
    clock,
    orgId,
    mode: 'synced',
    onRecorded: (activity) => recorded.push(activity),
    onError: (error) => assert.fail(error as Error),
  });
  const notices = () => recorded.map(({ entry, before: earlier }) => noticeFor(entry, earlier, DEFAULT_NOTIFICATION_SWITCHES)).filter((notice) => notice !== null);
  return { clock, recorder, recorded, notices };
}

test('a background download waiting a few minutes for the allowance is its turn, with its time, and not notified; hours is the share used up, notified once', async () => {
  const { clock, recorder, notices } = recorderFor(1);
  const now = clock.now().getTime();
  await recorder.fromDownload(41, { state: 'waiting', reason: 'budget', mayGoAt: now + 5 * 60_000 });
  const paced = (await recorder.log.list({ kinds: ['download'] })).entries[0]!;
  assert.equal(paced.state, 'waiting');
  assert.equal(paced.waitReason, 'paced');
  assert.equal(stateLineOf(paced, String), "Waiting its turn: background downloads spend only a small share of the organisation's file allowance; this one goes at 09:05 UTC.");
  assert.deepEqual(notices(), [], 'pacing is not news');

  await recorder.fromDownload(42, { state: 'waiting', reason: 'budget', mayGoAt: now + 6 * 3_600_000 });
  await recorder.fromDownload(42, { state: 'waiting', reason: 'budget', mayGoAt: now + 6 * 3_600_000 }); // tried again later, still waiting
  const usedUp = (await recorder.log.list({ kinds: ['download'] })).entries.filter((entry) => entry.fileId === 42);
  assert.equal(usedUp.length, 1, 'one entry that waits, however often it is tried');
  assert.equal(usedUp[0]!.waitReason, 'quota');
  assert.match(stateLineOf(usedUp[0]!, String) ?? '', /used up; it continues at 15:00 UTC\. Opening the file fetches it now\./);
  assert.deepEqual(notices().map((notice) => [notice.kind, notice.entryId]), [['quota_stop', usedUp[0]!.id]], 'notified once');
});

test('progress moves one entry a whole percent at a time; done keeps the bytes; a failure says why and is notified', async () => {
  const { recorder, recorded, notices } = recorderFor(2);
  for (let received = 0; received <= 10_000; received += 10) void recorder.fromDownload(7, { state: 'running', received, total: 10_000 });
  await recorder.fromDownload(7, { state: 'done' });
  const writes = recorded.filter(({ entry }) => entry.fileId === 7);
  assert.equal(writes.filter(({ entry }) => entry.state === 'running').length, 101, '0% to 100%: 1,001 pieces, 101 writes');
  const [entry] = (await recorder.log.list({ kinds: ['download'] })).entries;
  assert.equal(entry!.state, 'done');
  assert.deepEqual(entry!.progress, { done: 10_000, total: 10_000 });
  assert.equal(entry!.detail, 'Fetched from the server.');
  assert.ok(writes.every(({ entry: written }) => written.id === entry!.id), 'one entry');

  await recorder.fromDownload(8, { state: 'running', received: 100, total: 1000 });
  await recorder.fromDownload(8, { state: 'failed', detail: 'The remote sent different bytes than "plan.pdf" holds (hash mismatch); nothing was kept.' });
  const failed = (await recorder.log.list({ kinds: ['download'] })).entries.find((candidate) => candidate.fileId === 8)!;
  assert.equal(failed.state, 'failed');
  assert.match(stateLineOf(failed, String) ?? '', /^Failed: The remote sent different bytes/);
  assert.deepEqual(notices().map((notice) => notice.kind), ['transfer_failed']);

  // Offline is a wait, not a failure: it goes when the remote is back.
  await recorder.fromDownload(9, { state: 'offline', detail: 'The contents of "roof.jpg" are on the remote and could not be fetched (unreachable).' });
  const offline = (await recorder.log.list({ kinds: ['download'] })).entries.find((candidate) => candidate.fileId === 9)!;
  assert.equal(offline.waitReason, 'offline');
  assert.deepEqual(notices().map((notice) => notice.kind), ['transfer_failed']);
});

test('a download waiting for a file that is then deleted, on the server or here, ends saying so, instead of waiting for ever', async () => {
  const { recorder } = recorderFor(3);
  await recorder.fromDownload(51, { state: 'waiting', reason: 'metered' });
  await recorder.fromDownload(52, { state: 'offline', detail: 'The contents of "meter.jpg" are on the remote and could not be fetched (unreachable).' });
  await recorder.fromDownload(53, { state: 'waiting', reason: 'metered' });
  // Deleted on the server (the pull's change, by sync) and here (by a person), as the change feed tells them.
  await recorder.fromChanges([
    { model: 'private_file', id: 51, op: 'delete', orgId: 3, by: { kind: 'sync' }, projectId: null },
    { model: 'private_file', id: 52, op: 'delete', orgId: 3, by: { kind: 'user', userId: 1 }, projectId: null },
  ]);
  const downloads = (await recorder.log.list({ kinds: ['download'] })).entries;
  const of = (fileId: number) => downloads.find((entry) => entry.fileId === fileId)!;
  for (const fileId of [51, 52]) {
    assert.equal(of(fileId).state, 'done', `file ${fileId}`);
    assert.equal(of(fileId).waitReason, null);
    assert.equal(stateLineOf(of(fileId), String), 'Not fetched: the file was deleted before its contents arrived.');
    assert.equal(await recorder.log.live(`download:${fileId}`), null, 'no longer live');
  }
  assert.equal(of(53).state, 'waiting', 'a file still there keeps waiting');
});
