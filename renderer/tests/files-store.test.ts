// The Files tab's store: the list's order, filters and selection (pure), and, against
// the real core (renderer/tests/core-bridge.ts), uploads sent part by part, deletes
// that wait for their undo window, and a load never undoing on screen an edit it predates.
import './core-bridge.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCore, waitFor, type TestCore } from './core-bridge.ts';
import { useFilesStore } from '../src/stores/files-store.ts';
import { NO_FILTER, visibleFiles } from '../src/stores/file-list-order.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import type { PrivateFileJson } from '../../shared/schemas/private-file.ts';

/** A file row with what the list reads; the rest of the API's fields do not matter to it. */
function fileRow(id: number, title: string, patch: Partial<PrivateFileJson> = {}): PrivateFileJson {
  return { id, title, modified_date: '2026-11-20T10:00:00Z', filesize: 100, file_tags_data: [], ...patch } as PrivateFileJson;
}

describe('visibleFiles: what the Files list shows, in its order', () => {
  const files = [
    fileRow(1, 'roof photo 10.jpg', { modified_date: '2026-11-21T10:00:00Z', filesize: 300 }),
    fileRow(2, 'roof photo 2.jpg', { modified_date: '2026-11-22T10:00:00Z', filesize: 100 }),
    fileRow(3, 'Proposal.pdf', { modified_date: '2026-11-23T10:00:00Z', filesize: 200, file_tags_data: [{ id: 7, title: 'Signed' } as never] }),
  ];

  test('titles sort as people read them ("photo 2" before "photo 10"), and descending reverses it', () => {
    const titles = (descending: boolean) => visibleFiles(files, NO_FILTER, { key: 'title', descending }, new Set()).map((file) => file.id);
    assert.deepEqual(titles(false), [3, 2, 1]);
    assert.deepEqual(titles(true), [1, 2, 3]);
  });

  test('size and date orders, a search of every word in any order, a tag filter, and files hidden by a pending delete', () => {
    assert.deepEqual(visibleFiles(files, NO_FILTER, { key: 'size', descending: false }, new Set()).map((file) => file.id), [2, 3, 1]);
    assert.deepEqual(visibleFiles(files, NO_FILTER, { key: 'date', descending: true }, new Set()).map((file) => file.id), [3, 2, 1]);
    assert.deepEqual(visibleFiles(files, { ...NO_FILTER, query: 'PHOTO roof' }, { key: 'title', descending: false }, new Set()).map((file) => file.id), [2, 1]);
    assert.deepEqual(visibleFiles(files, { ...NO_FILTER, tagId: 7 }, { key: 'title', descending: false }, new Set()).map((file) => file.id), [3]);
    assert.deepEqual(visibleFiles(files, NO_FILTER, { key: 'title', descending: false }, new Set([2])).map((file) => file.id), [3, 1]);
  });
});

describe('the files store', () => {
  let app: TestCore;
  let projectId: number;
  before(async () => {
    app = await startTestCore();
    const projects = await app.core.invoke('api.request', { method: 'GET', path: apiPaths.projects(app.orgId), query: { limit: 1 } });
    assert.ok(projects.ok);
    projectId = (projects.response as { body: Array<{ id: number }> }).body[0]!.id;
  });
  after(() => app.close());

  const store = () => useFilesStore.getState();

  test('a shift-click selects the range from the anchor in the order the list shows, a ctrl-click toggles one', () => {
    store().selectRow(20, 'only', [10, 20, 30, 40]);
    store().selectRow(40, 'range', [10, 20, 30, 40]);
    assert.deepEqual(store().selected, [20, 30, 40]);
    store().selectRow(30, 'toggle', [10, 20, 30, 40]);
    assert.deepEqual(store().selected, [20, 40]);
    store().selectRow(10, 'range', [40, 30, 20, 10]);
    assert.deepEqual(store().selected, [30, 20, 10], 'the range follows the visible order, from the anchor (30, the last click)');
  });

  test('uploads go through the core part by part, end done, and the files are then in the list', async () => {
    await store().load(app.orgId, projectId);
    const before = store().files.length;
    await store().upload(projectId, [new File(['north face'], 'north.txt'), new File([new Uint8Array(5000)], 'south.bin')]);
    assert.deepEqual(
      Object.values(store().uploads).map((row) => [row.fileName, row.state, row.sentBytes]).sort(),
      [
        ['north.txt', 'done', 10],
        ['south.bin', 'done', 5000],
      ],
    );
    await store().load(app.orgId, projectId);
    assert.equal(store().files.length, before + 2);
    assert.ok(store().files.some((file) => file.title.startsWith('north')));
  });

  test('a delete waits in its undo window, undo brings the file back untouched, and sending it deletes it on the engine', async () => {
    await store().load(app.orgId, projectId);
    const file = store().files[0]!;
    store().deleteFiles([file.id]);
    const pending = store().pendingDeletes.at(-1)!;
    assert.deepEqual(pending.files.map((each) => each.id), [file.id]);
    store().undoDelete(pending.key);
    assert.equal(store().pendingDeletes.length, 0);
    await store().load(app.orgId, projectId);
    assert.ok(store().files.some((each) => each.id === file.id), 'undone: still on the engine');

    store().deleteFiles([file.id]);
    await store().sendDelete(store().pendingDeletes.at(-1)!.key);
    assert.equal(store().files.some((each) => each.id === file.id), false);
    const answer = await app.core.invoke('api.request', { method: 'GET', path: apiPaths.privateFile(app.orgId, file.id) });
    assert.ok(answer.ok);
    assert.equal((answer.response as { status: number }).status, 404);
    await waitFor('no pending delete', () => store().pendingDeletes.length === 0);
  });

  test('a load that began before a tag was taken off never brings the tag back on screen (pass 3 of issue 33 saw it come back)', async () => {
    await store().load(app.orgId, projectId);
    const file = store().files[0]!;
    const tag = store().tags[0]!;
    const hasTag = () => store().files.find((each) => each.id === file.id)!.file_tags_data.some((each) => each.id === tag.id);
    if (!hasTag()) await store().toggleTag([file.id], tag);
    assert.ok(hasTag(), 'tagged to start with');
    // A load starts (as records.changed starts one), then the tag is taken off before it answers.
    const loading = store().load(app.orgId, projectId);
    const untagging = store().toggleTag([file.id], tag);
    assert.equal(hasTag(), false, 'shown off at once');
    await loading;
    assert.equal(hasTag(), false, "the load's older answer does not put it back");
    await untagging;
    assert.equal(hasTag(), false);
    // The engine agrees, and the list loaded afresh once the edit was done still shows it off.
    const answer = await app.core.invoke('api.request', { method: 'GET', path: apiPaths.privateFile(app.orgId, file.id) });
    assert.ok(answer.ok);
    assert.equal((answer.response as { body: PrivateFileJson }).body.file_tags_data.some((each) => each.id === tag.id), false);
    await store().load(app.orgId, projectId);
    assert.equal(hasTag(), false);
  });
});
