// The watcher's time rules run on the clock it is given (a ManualClock: faked, as
// the watcher's injected clock): a file is attached once its stability window has
// passed on that clock, however little real time went by; and files that become
// stable together are attached in batches (issue 30): one tracked write creates
// them, in the order the watcher decided on them, each with its own name, and the
// same contents twice are still one file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, startTestServer, type TestServer } from '../../engine/testing/test-server.ts';
import type { FolderWatcher } from '../watcher.ts';
import type { ManualClock } from '../../engine/clock.ts';
import type { RecordChangeEvent } from '../../engine/changes/change-feed.ts';
import { startClockedWatcher } from '../../core/testing/clocked-watcher.ts';
import { sleep, waitFor } from '../testing/folder-testing.ts';

const WINDOW_MS = 60 * 60_000;

let server: TestServer;
let root: string;
let watcher: FolderWatcher | null = null;
let clock: ManualClock;
let folder: string;
let projectId: number;
before(async () => {
  server = await startTestServer();
  root = makeTempDir('solardesk-folder-clock-');
  ({ watcher, clock, folder, projectId } = await startClockedWatcher(server, root, WINDOW_MS));
});
after(async () => {
  await watcher?.close();
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

test('the stability window is measured on the injected clock, not on real time', async () => {
  const { db } = server.engine.context;
  fs.writeFileSync(path.join(root, folder, 'site-notes.txt'), 'north face, two strings');
  const attached = () => db.selectFrom('private_files').select('id').where('project_id', '=', projectId).where('title', '=', 'site-notes.txt').executeTakeFirst();

  await waitFor('the file to wait out its window', async () => (await watcher!.status()).files.some((file) => file.state === 'waiting' && file.path.endsWith('site-notes.txt')), 30_000);
  // Real time passes (the worker loop wakes several times), the injected clock does not: still waiting.
  await sleep(2_500);
  assert.equal(await attached(), undefined);

  clock.advance(WINDOW_MS);
  await waitFor('the file to be attached', attached, 30_000);
});

test('files that become stable together are created in one write, in order, each with its own name; the same contents twice are one file', async () => {
  const { db } = server.engine.context;
  const before = await db.selectFrom('private_files').select('id').where('project_id', '=', projectId).execute();

  // Two names that differ only in case (two files on this disk), and two names with the same bytes.
  const drop = [
    ['inverter.jpg', 'inverter photo'],
    ['Meter.txt', 'meter reading 1'],
    ['meter.txt', 'meter reading 2'],
    ['roof.txt', 'east face, one string'],
    ['switchboard.txt', 'main switch, 63 A'],
    ['roof copy.txt', 'east face, one string'],
  ] as const;
  // One at a time, each seen waiting before the next: the order the watcher decides on them.
  for (const [name, text] of drop) {
    fs.writeFileSync(path.join(root, folder, name), text);
    await waitFor(`${name} waiting out its window`, async () => (await watcher!.status()).files.some((file) => file.state === 'waiting' && file.path === `${folder}/${name}`), 30_000);
  }

  const countsBefore = (await watcher!.status()).counts;
  const writes: RecordChangeEvent[][] = [];
  const unsubscribe = server.engine.context.changes.subscribe((changes) => {
    const created = changes.filter((change) => change.model === 'private_file' && change.op === 'create' && change.projectId === projectId);
    if (created.length) writes.push(created);
  });
  clock.advance(WINDOW_MS);
  const attachedNow = () => db.selectFrom('private_files').select(['id', 'title', 'file_hash']).where('project_id', '=', projectId).where('id', 'not in', before.map((row) => row.id).concat(0)).orderBy('id').execute();
  const attached = await waitFor('every file attached', async () => {
    const rows = await attachedNow();
    return rows.length === drop.length - 1 ? rows : undefined;
  }, 60_000);
  unsubscribe();

  assert.deepEqual(attached.map((row) => row.title), ['inverter.jpg', 'Meter.txt', 'meter.txt', 'roof.txt', 'switchboard.txt'], 'in the order decided on, each with its own name; the copy is not a second file');
  assert.equal(writes.length, 1, `one write created them all (writes: ${writes.map((write) => write.length).join(', ')})`);
  assert.deepEqual(writes[0]!.map((change) => change.id), attached.map((row) => row.id));
  // The copy is recognised as the file of its bytes, not attached again.
  const counts = await waitFor('the copy recognised', async () => {
    const now = (await watcher!.status()).counts;
    return now.deduplicated === (countsBefore.deduplicated ?? 0) + 1 ? now : undefined;
  }, 30_000);
  assert.equal(counts.attached, (countsBefore.attached ?? 0) + drop.length - 1);
});
