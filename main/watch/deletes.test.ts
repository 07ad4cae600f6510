// Deletes in the folders, on their own: a real engine (test server store), real files
// in a temp root, the real attach and outbox; only the clock is faked (ManualClock),
// so the pair window and the guard's minute pass without waiting.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, startTestServer, type TestServer } from '../engine/testing/test-server.ts';
import { PARTS_PAIR_WINDOW_MS, startWatchParts, type WatchParts } from '../core/testing/watch-parts.ts';

let server: TestServer;
let root: string;
let parts: WatchParts;
let projects: number[];
before(async () => {
  server = await startTestServer();
  root = makeTempDir('solardesk-deletes-');
  parts = await startWatchParts(server.engine.context, root);
  projects = parts.folders.projectIds();
  assert.ok(projects.length >= 3, 'the demo org has projects enough');
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const privateFile = (id: number) => parts.store.privateFile(id);
const heldFor = async (fileId: number) => (await parts.outbox.listHeldFileDeletes(500)).find((row) => row.record_id === fileId);

test('an unlink paired with an add within the pair window is a rename or a move: the title or project follows, nothing is held', async () => {
  const { deletes, gate, report, clock } = parts;
  const [first, second] = projects as [number, number];
  const fileId = await parts.attachFile(first, 'inverter.txt', 'inverter datasheet, rev A');
  const from = path.join(parts.dirOf(first), 'inverter.txt');
  const renamed = path.join(parts.dirOf(first), 'Inverter datasheet.txt');

  fs.renameSync(from, renamed);
  await deletes.fileGone(first, parts.folders.folderOf(first)!, 'inverter.txt', from);
  assert.equal(deletes.size, 1, 'the unlink waits for its pair');
  clock.advance(PARTS_PAIR_WINDOW_MS - 1);
  await gate.consider(first, parts.folders.folderOf(first)!, 'Inverter datasheet.txt', renamed, null);
  assert.equal(deletes.size, 0, 'paired');
  assert.equal(gate.size, 0, 'a rename is not a new file to wait for');
  assert.equal(report.counts.renamed, 1);
  assert.equal((await privateFile(fileId))!.title, 'Inverter datasheet.txt');

  // Into another project's folder: a move.
  const moved = path.join(parts.dirOf(second), 'Inverter datasheet.txt');
  fs.renameSync(renamed, moved);
  await deletes.fileGone(first, parts.folders.folderOf(first)!, 'Inverter datasheet.txt', renamed);
  await gate.consider(second, parts.folders.folderOf(second)!, 'Inverter datasheet.txt', moved, null);
  assert.equal(report.counts.moved, 1);
  assert.equal((await privateFile(fileId))!.project_id, second);
  assert.equal((await parts.store.fileRow(second, 'Inverter datasheet.txt'))?.file_id, fileId);

  clock.advance(PARTS_PAIR_WINDOW_MS * 2);
  assert.equal(deletes.isDue(), false, 'nothing left to delete');
  assert.equal(await heldFor(fileId), undefined);
  assert.equal(report.counts.held, 0);
});

test('an unlink alone past the pair window is a deletion, held (not made) until the user decides', async () => {
  const { deletes, report, clock } = parts;
  const project = projects[2]!;
  const fileId = await parts.attachFile(project, 'old-quote.txt', 'quote 2025, superseded');
  const file = path.join(parts.dirOf(project), 'old-quote.txt');
  fs.rmSync(file);
  await deletes.fileGone(project, parts.folders.folderOf(project)!, 'old-quote.txt', file);

  clock.advance(PARTS_PAIR_WINDOW_MS - 1);
  assert.equal(deletes.isDue(), false, 'still inside the pair window');
  clock.advance(1);
  assert.equal(deletes.isDue(), true);
  await deletes.processDue();

  assert.equal(deletes.size, 0);
  assert.equal(report.counts.held, 1);
  assert.match((await heldFor(fileId))?.last_error ?? '', /^Deleted in the project folder \(.*old-quote\.txt\)/);
  assert.ok(await privateFile(fileId), 'the private file still exists');
  assert.equal(await parts.store.fileRow(project, 'old-quote.txt'), undefined, 'the name is no longer mapped');
  assert.equal(report.guards.length, 0);
});

test('many deletions at once trip the mass-delete guard: all held with its reason, none confirmed, even with --confirm-deletes', async () => {
  // Its own root and parts, confirming deletions at once: only the guard's are held back.
  const guardedRoot = makeTempDir('solardesk-guard-');
  try {
    const guarded = await startWatchParts(server.engine.context, guardedRoot, { confirmDeletes: true });
    const { deletes, report, clock } = guarded;
    const project = projects[0]!;
    const folder = guarded.folders.folderOf(project)!;
    const ids: number[] = [];
    for (let index = 0; index < 8; index++) ids.push(await guarded.attachFile(project, `panel-${index}.txt`, `panel ${index} of the east array`));

    // Two: ordinary deletions, confirmed at once (--confirm-deletes).
    for (const index of [0, 1]) {
      fs.rmSync(path.join(guarded.dirOf(project), `panel-${index}.txt`));
      await deletes.fileGone(project, folder, `panel-${index}.txt`, path.join(guarded.dirOf(project), `panel-${index}.txt`));
    }
    clock.advance(PARTS_PAIR_WINDOW_MS);
    await deletes.processDue();
    assert.equal(report.guards.length, 0);
    assert.equal(report.counts.confirmed, 2);
    assert.equal(await privateFile(ids[0]!), undefined, 'deleted for real');

    // Six more within the minute: with the two before, 8 of 8 files lost at once.
    clock.advance(10_000);
    for (let index = 2; index < 8; index++) {
      fs.rmSync(path.join(guarded.dirOf(project), `panel-${index}.txt`));
      await deletes.fileGone(project, folder, `panel-${index}.txt`, path.join(guarded.dirOf(project), `panel-${index}.txt`));
    }
    clock.advance(PARTS_PAIR_WINDOW_MS);
    await deletes.processDue();
    assert.ok(report.guards.some((guard) => guard.scope === `"${folder}"` && guard.lost === 8 && guard.total === 8), JSON.stringify(report.guards));
    assert.equal(report.counts.confirmed, 2, 'none of the guarded deletions was confirmed');
    for (const id of ids.slice(2)) {
      assert.ok(await privateFile(id), `file ${id} still exists`);
      assert.match((await heldFor(id))?.last_error ?? '', /^Held by the mass-delete guard/);
    }
  } finally {
    fs.rmSync(guardedRoot, { recursive: true, force: true });
  }
});
