// The project list's store against the real core (renderer/tests/core-bridge.ts):
// its rows are the engine's answer to the query it holds, a newer query replaces
// them, and a project's latest JSON lands in its row without the design.
import './core-bridge.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCore, waitFor, type TestCore } from './core-bridge.ts';
import { useProjectsStore } from '../src/stores/projects-store.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { DEMO_PROJECT_COUNTS } from '../../main/engine/seed/demo-seed.ts';

describe('the projects store', () => {
  let app: TestCore;
  before(async () => {
    app = await startTestCore();
  });
  after(() => app.close());

  const store = () => useProjectsStore.getState();
  const byTitle = (titles: string[]) => [...titles].sort(new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' }).compare);

  test("start() loads every one of the org's projects, and a new ordering reorders them as the engine sorts", async () => {
    store().start(app.orgId);
    await waitFor('the first rows', () => store().status === 'ready' && store().isComplete);
    assert.equal(store().rows.length, DEMO_PROJECT_COUNTS.sunrise);
    store().setOrdering('title');
    await waitFor('the rows by title', () => store().query.ordering === 'title' && store().rows.map((row) => row.title).join() === byTitle(store().rows.map((row) => row.title)).join());
    store().setOrdering('-title');
    await waitFor('the rows by title, Z to A', () => store().rows.map((row) => row.title).join() === byTitle(store().rows.map((row) => row.title)).reverse().join());
    assert.equal(store().rows.length, DEMO_PROJECT_COUNTS.sunrise, 'reordering keeps every row');
  });

  test('a search keeps only the matching rows, and clearing it brings the others back', async () => {
    store().start(app.orgId);
    await waitFor('the rows', () => store().status === 'ready' && store().isComplete);
    const wanted = store().rows[0]!;
    store().setSearch(wanted.identifier ?? wanted.title);
    await waitFor('the search answer', () => store().rows.length < DEMO_PROJECT_COUNTS.sunrise);
    assert.ok(store().rows.some((row) => row.id === wanted.id), 'the project searched for is listed');
    store().setSearch('');
    await waitFor('every row again', () => store().rows.length === DEMO_PROJECT_COUNTS.sunrise);
  });

  test("replaceRow puts a project's latest fields into its row, leaves its design out, and ignores a project the list does not hold", async () => {
    store().start(app.orgId);
    await waitFor('the rows', () => store().status === 'ready' && store().rows.length > 0);
    const row = store().rows[0]!;
    const rowsBefore = store().rows;
    store().replaceRow({ ...row, title: 'Renamed on the roof', design: 'a big design' } as never);
    const replaced = store().rows.find((candidate) => candidate.id === row.id)!;
    assert.equal(replaced.title, 'Renamed on the roof');
    assert.equal('design' in replaced, false, 'the list keeps summaries, not designs');
    const rowsAfterReplace = store().rows;
    store().replaceRow({ ...row, id: 987_654, title: 'Not in this list' });
    assert.equal(store().rows, rowsAfterReplace, 'an unknown project changes nothing');
    assert.notEqual(rowsAfterReplace, rowsBefore, 'a replaced row is a new list, so views re-render');
  });

  test("refreshRows reads a project again from the engine: an edit made elsewhere reaches its row", async () => {
    store().start(app.orgId);
    await waitFor('the rows', () => store().status === 'ready' && store().rows.length > 0);
    const row = store().rows[0]!;
    const edited = await app.core.invoke('api.request', { method: 'PATCH', path: apiPaths.project(app.orgId, row.id), body: { notes: 'edited in another window' } });
    assert.equal(edited.ok, true);
    await store().refreshRows([row.id]);
    assert.equal(store().rows.find((candidate) => candidate.id === row.id)?.notes, 'edited in another window');
  });
});
