// What the views are told of record changes (core-runtime.ts): a pull's changes are
// gathered for a moment into one `records.changed`, the user's own are told at once
// and never before what was gathered ahead of them. Real timers; each check waits for
// the telling itself, never for a duration.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RecordsChanged } from '../../../shared/bridge.ts';
import { BY_SYNC, byUser, type RecordChangeEvent } from '../../engine/changes/change-feed.ts';
import { gatherPulledChanges } from '../core-runtime.ts';

const pulled = (projectId: number): RecordChangeEvent => ({ model: 'project', id: projectId, op: 'update', orgId: 1, by: BY_SYNC, projectId, changedFields: ['notes'] });
const edited = (projectId: number): RecordChangeEvent => ({ model: 'project', id: projectId, op: 'update', orgId: 1, by: byUser(7), projectId, changedFields: ['notes'] });

/** A gatherer whose tellings are kept, and a wait for the next one. */
function listen(gatherMs: number) {
  const told: RecordsChanged[] = [];
  let waiting: (() => void) | null = null;
  const gatherer = gatherPulledChanges((changed) => {
    told.push(changed);
    waiting?.();
  }, gatherMs);
  const next = () => new Promise<void>((resolve) => (waiting = resolve));
  return { told, gatherer, next };
}

describe('records.changed while a pull runs', () => {
  test("a pull's changes within the gathering time are told once, with all their projects", async () => {
    const { told, gatherer, next } = listen(50);
    const tellingDone = next();
    gatherer.heard([pulled(1)]);
    gatherer.heard([pulled(2)]);
    gatherer.heard([pulled(3)]);
    assert.equal(told.length, 0, 'told before the gathering time');
    await tellingDone;
    assert.deepEqual(told, [{ kinds: ['projects'], projectIds: [1, 2, 3], source: 'sync' }]);
  });

  test("the user's own change is told at once, after the pull's changes gathered before it", () => {
    const { told, gatherer } = listen(60_000);
    gatherer.heard([pulled(1)]);
    gatherer.heard([edited(2)]);
    assert.deepEqual(told, [
      { kinds: ['projects'], projectIds: [1], source: 'sync' },
      { kinds: ['projects'], projectIds: [2], source: 'local' },
    ]);
  });

  test('a project created by the pull makes the gathered telling name no project: the whole list is read again', () => {
    const { told, gatherer } = listen(60_000);
    gatherer.heard([pulled(1)]);
    gatherer.heard([{ ...pulled(2), op: 'create' }]);
    gatherer.flush();
    assert.deepEqual(told, [{ kinds: ['projects'], projectIds: [], source: 'sync' }]);
  });

  test('what is gathered is told when the backend goes (flush), and nothing twice', () => {
    const { told, gatherer } = listen(60_000);
    gatherer.heard([pulled(4)]);
    gatherer.flush();
    gatherer.flush();
    assert.deepEqual(told, [{ kinds: ['projects'], projectIds: [4], source: 'sync' }]);
  });
});
