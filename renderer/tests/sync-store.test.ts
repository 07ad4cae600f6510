// The sync screen's store against the real core on the embedded store
// (renderer/tests/core-bridge.ts): with no remote the status answers 404, which is
// the local-only state and not an error; the core's `sync.state` events reach the
// store; a held delete that is already decided says so and reloads the list.
import './core-bridge.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCore, waitFor, type TestCore } from './core-bridge.ts';
import { useSyncStore } from '../src/stores/sync-store.ts';
import { refreshEveryView } from '../src/stores/view-refresh.ts';

describe('the sync store', () => {
  let app: TestCore;
  before(async () => {
    app = await startTestCore();
  });
  after(() => app.close());

  const store = () => useSyncStore.getState();

  test('on the embedded store, load() is the local-only state with nothing waiting, not an error', async () => {
    await store().load(app.orgId);
    assert.equal(store().loadState, 'ready', store().error ?? '');
    assert.equal(store().isLocalOnly, true);
    assert.equal(store().status, null);
    assert.deepEqual(store().pending, []);
    assert.deepEqual(store().conflicts, []);
    assert.equal(store().unsyncedProjectIds.size, 0);
  });

  test("follow() takes the core's sync state, now and when it changes, until unsubscribed", async () => {
    const unsubscribe = store().follow();
    try {
      const live = { ...app.core.events.latestOf('sync.state')!, detail: 'Checking the roof' };
      app.core.events.emit('sync.state', live);
      await waitFor('the live state', () => store().live?.detail === 'Checking the roof');
      assert.equal(store().live?.state, 'local_only');
    } finally {
      unsubscribe();
    }
    app.core.events.emit('sync.state', { ...store().live!, detail: 'after unsubscribing' });
    assert.equal(store().live?.detail, 'Checking the roof', 'an unsubscribed store no longer follows');
  });

  test('confirming a held delete that no longer waits says it was already decided, and the list is read again', async () => {
    await store().load(app.orgId);
    useSyncStore.setState({ loadState: 'error', error: 'stale' });
    await assert.rejects(store().confirmDelete(424_242), /already decided/);
    assert.equal(store().loadState, 'ready', 'the list was loaded again after the refusal');
    assert.equal(store().error, null);
  });

  test('when the event stream connects again, the lists are read again: what waited may have changed while it was down', async () => {
    await store().load(app.orgId);
    // What the screen showed before the stream dropped: a held delete since decided elsewhere.
    const decidedMeanwhile = { id: 424_243, model: 'private_file', record_id: 9, op: 'delete', status: 'held', fields: [], reason: 'Deleted in the project folder', created_date: '2026-11-29T10:00:00Z' };
    useSyncStore.setState({ pending: [decidedMeanwhile] as never });
    refreshEveryView();
    await waitFor('the list read again', () => store().pending.length === 0);
  });

  test('an action before any org is loaded fails with a sentence instead of calling the API', async () => {
    useSyncStore.setState({ orgId: null });
    await assert.rejects(store().setPaused(true), /No organisation is loaded/);
  });
});
