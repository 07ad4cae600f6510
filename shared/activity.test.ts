// What the activity log notifies, and which actions an entry offers (shared/activity.ts):
// the decision the desktop's Electron notifications and browser mode's Notification API
// both act on, tested in plain Node (Electron cannot run here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ActivityEntry, DEFAULT_NOTIFICATION_SWITCHES, actionsOf, headlineOf, mergeNotices, noticeFor, stateLineOf } from './activity.ts';

const entry = (overrides: Partial<ActivityEntry>): ActivityEntry => ({
  id: 1,
  at: '2026-11-28T09:00:00.000Z',
  updatedAt: '2026-11-28T09:00:00.000Z',
  kind: 'edit',
  state: 'done',
  waitReason: null,
  projectId: 4,
  fileId: null,
  model: 'project',
  recordId: 4,
  subject: 'Smith house',
  fields: [],
  progress: null,
  detail: null,
  holdId: null,
  conflictId: null,
  ...overrides,
});

test('a new conflict, a held delete, a transfer failed for good and a quota stop are notified once, each behind its switch', () => {
  const conflict = entry({ kind: 'conflict', state: 'waiting', waitReason: 'conflict', fields: ['Notes'], conflictId: 3 });
  assert.deepEqual(noticeFor(conflict, null, DEFAULT_NOTIFICATION_SWITCHES), { kind: 'conflict', entryId: 1, title: 'A conflict waits for you', body: 'Conflict: Smith house (Notes)' });
  assert.equal(noticeFor(conflict, conflict, DEFAULT_NOTIFICATION_SWITCHES), null, 'told once, not again when the entry is written again');
  assert.equal(noticeFor(conflict, null, { ...DEFAULT_NOTIFICATION_SWITCHES, conflict: false }), null, 'its switch off: nothing');

  const held = entry({ kind: 'delete_held', state: 'waiting', waitReason: 'held_delete', subject: 'roof.jpg', holdId: 9 });
  assert.equal(noticeFor(held, null, DEFAULT_NOTIFICATION_SWITCHES)?.kind, 'held_delete');

  const running = entry({ kind: 'upload', state: 'running', subject: 'plan.pdf', progress: { done: 10, total: 100 } });
  assert.equal(noticeFor({ ...running, progress: { done: 50, total: 100 } }, running, DEFAULT_NOTIFICATION_SWITCHES), null, 'progress is never notified');
  assert.equal(noticeFor({ ...running, state: 'failed', detail: 'refused' }, running, DEFAULT_NOTIFICATION_SWITCHES)?.title, 'An upload failed');
  assert.equal(noticeFor({ ...running, state: 'done' }, running, DEFAULT_NOTIFICATION_SWITCHES), null, 'done is not news');

  const quota = { ...running, state: 'waiting' as const, waitReason: 'quota' as const };
  assert.equal(noticeFor(quota, running, DEFAULT_NOTIFICATION_SWITCHES)?.kind, 'quota_stop');
  assert.equal(noticeFor(quota, running, { ...DEFAULT_NOTIFICATION_SWITCHES, quota_stop: false }), null);
  assert.equal(noticeFor({ ...running, state: 'waiting', waitReason: 'offline' }, running, DEFAULT_NOTIFICATION_SWITCHES), null, 'offline is shown, not notified');
});

test('a folder emptied at once is one notification, not one per file', () => {
  const notices = [1, 2, 3, 4].map((id) => noticeFor(entry({ id, kind: 'delete_held', state: 'waiting', waitReason: 'held_delete', subject: `photo-${id}.jpg` }), null, DEFAULT_NOTIFICATION_SWITCHES)!);
  const merged = mergeNotices(notices);
  assert.equal(merged.length, 1);
  assert.equal(merged[0]!.title, 'A delete is held for you (4 entries)');
  assert.equal(merged[0]!.entryId, 1);
});

test('each entry offers the actions that fit it, and says where it is in plain words', () => {
  assert.deepEqual(actionsOf(entry({ kind: 'delete_held', state: 'waiting', waitReason: 'held_delete', fileId: 5, holdId: 9 })), ['undo_delete', 'open_project']);
  assert.deepEqual(actionsOf(entry({ kind: 'conflict', state: 'waiting', waitReason: 'conflict', conflictId: 2 })), ['resolve_conflict', 'open_project']);
  assert.deepEqual(actionsOf(entry({ kind: 'replaced', fileId: 5 })), ['restore_version', 'show_in_folder', 'open_project']);
  assert.deepEqual(actionsOf(entry({ kind: 'upload', state: 'failed', fileId: 5 })), ['retry', 'show_in_folder', 'open_project']);
  assert.deepEqual(actionsOf(entry({ kind: 'edit', state: 'waiting', waitReason: 'offline' })), ['retry', 'open_project']);
  assert.deepEqual(actionsOf(entry({ kind: 'upload', state: 'waiting', waitReason: 'refused_project', fileId: 5 })), ['show_in_folder', 'open_project']);
  assert.equal(headlineOf(entry({ kind: 'remote_change', fields: ['Postal code', 'Stage'] })), 'Changed on the server: Smith house (Postal code, Stage)');
  assert.equal(stateLineOf(entry({ state: 'waiting', waitReason: 'quota' }), String), "Waiting: today's file allowance is used up; continues at 00:00 UTC.");
  assert.equal(stateLineOf(entry({ state: 'running', progress: { done: 512, total: 2048 } }), (bytes) => `${bytes} B`), '25% · 512 B of 2048 B');
});
