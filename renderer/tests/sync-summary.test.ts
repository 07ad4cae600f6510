// The Sync screen's state derived in one place (issue 28, items 6 and 8): right after a
// sign-in the pushed state says a first sync is running while the status the screen
// read says the remote was not reached and nothing was synced; the screen must show one
// state, not "Syncing…" beside "Not reachable" and "—". Quota waits read as one sentence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SyncState } from '../../shared/bridge.ts';
import type { SyncStatusJson } from '../../shared/sync-api.ts';
import type { SyncBudgetJson } from '../../shared/schemas/sync.ts';
import { lastSyncedWords, quotaSentence, remoteWords, syncFactsOf, syncSentence } from '../src/components/sync/sync-summary.ts';

const justSignedIn: SyncStatusJson = { state: 'offline', pending: 0, conflicts: 0, last_synced_at: null, next_attempt_at: null, remote_reachable: false, detail: null };
const firstSyncRunning: SyncState = { state: 'syncing', pending: 0, conflicts: 0, heldDeletes: 0, lastSyncedAt: null, nextAttemptAt: null, remoteReachable: false, detail: '' };

test('right after a sign-in, a first sync running reads as one state: connecting, first sync running, no "Not reachable"', () => {
  const facts = syncFactsOf(firstSyncRunning, justSignedIn, 0)!;
  assert.equal(facts.state, 'syncing', 'the pushed state, the newest, wins over the status read earlier');
  assert.equal(remoteWords(facts), 'Connecting…');
  assert.equal(lastSyncedWords(facts), 'First sync running');
  assert.match(syncSentence(facts), /for the first time/);
});

test('every fact follows the same state: synced is reachable; offline is not, and says what waits and what to do', () => {
  const synced = syncFactsOf({ ...firstSyncRunning, state: 'synced', lastSyncedAt: '2026-11-28T04:00:00.000Z' }, justSignedIn, 0)!;
  assert.equal(remoteWords(synced), 'Reachable');
  assert.equal(syncSentence(synced), 'Up to date with the remote.');
  const offline = syncFactsOf({ ...firstSyncRunning, state: 'offline', pending: 2, lastSyncedAt: '2026-11-28T04:00:00.000Z' }, null, 0)!;
  assert.equal(remoteWords(offline), 'Not reachable');
  assert.match(syncSentence(offline), /cannot be reached\. 2 changes wait on this computer and go once it answers/);
  const withConflicts = syncFactsOf({ ...firstSyncRunning, state: 'needs_attention', conflicts: 1, heldDeletes: 3, lastSyncedAt: '2026-11-28T04:00:00.000Z' }, null, 0)!;
  assert.equal(syncSentence(withConflicts), '1 field was changed on both sides: choose which value to keep below. 3 deleted files wait for you below.');
});

test('records made before signing in and not sent are named beside "up to date", so the sentence does not say everything is there', () => {
  const synced = syncFactsOf({ ...firstSyncRunning, state: 'synced', lastSyncedAt: '2026-11-28T04:00:00.000Z' }, null, 0)!;
  assert.equal(syncSentence(synced, 7), 'Up to date with the remote. 7 records made before you signed in are only on this computer: review and send them below.');
  assert.equal(syncSentence(synced, 1), 'Up to date with the remote. 1 record made before you signed in is only on this computer: review and send it below.');
});

test('without a pushed state yet, the status read from the agent is used; its held deletes are not counted as changes to send', () => {
  // The agent's status counts every queued change: one edit and two deletes held for the user.
  const facts = syncFactsOf(null, { ...justSignedIn, state: 'paused', pending: 3 }, 2)!;
  assert.equal(facts.state, 'paused');
  assert.equal(facts.heldDeletes, 2);
  assert.equal(facts.pending, 1, 'the pill and the sentence count what goes to the remote');
  assert.match(syncSentence(facts), /^Sync is paused\. 1 change waits on this computer: choose Resume sync to send it\./);
});

test('background work waiting for the allowance is one sentence with the earliest time', () => {
  const budget: SyncBudgetJson = {
    day: '2026-11-28',
    resets_at: '2026-11-29T00:00:00.000Z',
    background_share: 0.02,
    buckets: [],
    waiting: [
      { bucket: 'project_detail', what: 'sweeping projects for deletions', may_go_at: '2026-11-28T15:30:00.000Z' },
      { bucket: 'private_files', what: 'files of 3 changed projects', may_go_at: '2026-11-28T14:10:00.000Z' },
    ],
  };
  const time = new Date('2026-11-28T14:10:00.000Z').toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
  assert.equal(quotaSentence(budget), `Background checks paused until ${time} to stay within today’s allowance of private files; what you do yourself still goes at once.`);
  assert.equal(quotaSentence({ ...budget, waiting: [] }), null);
});
