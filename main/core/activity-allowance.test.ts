// A person's queued change that waits for the organisation's allowance (the pacer holds a
// user request until its quota has room, quota-pacer.ts): its activity entry says so, with
// the time it goes, and hours away is told as the allowance used up, and notified. The
// recorder on a real SQLite store; the changes and the wait are handed in as the change
// feed and sync hand them, on a ManualClock (the only fake), so the times are exact. The
// wait itself, end to end, is in main/sync/tests/sync-budget.test.ts.
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
  dataDir = makeTempDir('activity-allowance-');
  store = await openSqliteStore(dataDir);
});
after(async () => {
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("an upload and an edit waiting for the allowance say until when; hours away is today's share used up, notified once", async () => {
  const clock = new ManualClock('2026-06-01T09:00:00.000Z');
  const recorded: RecordedActivity[] = [];
  const recorder = new ActivityRecorder({ db: store.db, clock, orgId: 1, mode: 'synced', onRecorded: (activity) => recorded.push(activity), onError: (error) => assert.fail(error as Error) });
  // A file dropped here and a project edited here, as the change feed tells them: each waits for sync.
  await recorder.fromChanges([
    { model: 'private_file', id: 61, op: 'create', orgId: 1, by: { kind: 'user', userId: 1 }, projectId: null },
    { model: 'project', id: 7, op: 'update', orgId: 1, by: { kind: 'user', userId: 1 }, projectId: 7, changedFields: ['notes'] },
  ]);
  const now = clock.now().getTime();
  await recorder.fromAllowanceWait('private_file', 61, { bucket: 'private_files', mayGoAt: now + 10 * 60_000 });
  await recorder.fromAllowanceWait('project', 7, { bucket: 'project_partial_update', mayGoAt: now + 5 * 3_600_000 });
  const entries = (await recorder.log.list({})).entries;
  const upload = entries.find((entry) => entry.kind === 'upload' && entry.fileId === 61)!;
  const edit = entries.find((entry) => entry.kind === 'edit' && entry.recordId === 7)!;
  assert.deepEqual([upload.state, upload.waitReason], ['waiting', 'paced']);
  assert.equal(stateLineOf(upload, String), "Waiting its turn within the organisation's allowance of private files; it goes at 09:10 UTC.");
  assert.deepEqual([edit.state, edit.waitReason], ['waiting', 'quota']);
  assert.match(stateLineOf(edit, String) ?? '', /^Waiting: today's share of the organisation's allowance of .+ is used up; it goes at 14:00 UTC\.$/);
  const notices = recorded.map(({ entry, before: earlier }) => noticeFor(entry, earlier, DEFAULT_NOTIFICATION_SWITCHES)).filter((notice) => notice !== null);
  assert.deepEqual(notices.map((notice) => [notice.kind, notice.entryId]), [['quota_stop', edit.id]], 'only the wait of hours is news');
});
