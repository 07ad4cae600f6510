// The watcher's time rules run on the clock it is given: a file is attached once
// its stability window has passed on that clock, however little real time went by.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, startTestServer, type TestServer } from '../../engine/testing/test-server.ts';
import { DEMO_ORGS, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { ManualClock } from '../../engine/clock.ts';
import { FolderWatcher } from '../watcher.ts';
import { folderOutboxOf } from '../../core/agent-folders.ts';
import { sleep, waitFor } from '../testing/folder-testing.ts';

const WINDOW_MS = 60 * 60_000;

let server: TestServer;
let root: string;
let watcher: FolderWatcher | null = null;
before(async () => {
  server = await startTestServer();
  root = makeTempDir('solardesk-folder-clock-');
});
after(async () => {
  await watcher?.close();
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

test('the stability window is measured on the injected clock, not on real time', async () => {
  const { db } = server.engine.context;
  const admin = await db.selectFrom('users').select('id').where('email', '=', DEMO_USERS.sunriseAdmin).executeTakeFirstOrThrow();
  const clock = new ManualClock();
  watcher = new FolderWatcher({ root, engine: server.engine.context, outbox: folderOutboxOf(server.engine.context), orgId: DEMO_ORGS.sunrise, userId: admin.id, clock, stabilityWindowMs: WINDOW_MS });
  await watcher.start();
  const project = await db.selectFrom('projects').select('id').where('org_id', '=', DEMO_ORGS.sunrise).orderBy('id').executeTakeFirstOrThrow();
  const folder = await waitFor('the project folder', () => fs.readdirSync(root).find((name) => name.endsWith(` (${project.id})`)), 30_000);
  fs.writeFileSync(path.join(root, folder, 'site-notes.txt'), 'north face, two strings');
  const attached = () => db.selectFrom('private_files').select('id').where('project_id', '=', project.id).where('title', '=', 'site-notes.txt').executeTakeFirst();

  await waitFor('the file to wait out its window', async () => (await watcher!.status()).files.some((file) => file.state === 'waiting' && file.path.endsWith('site-notes.txt')), 30_000);
  // Real time passes (the worker loop wakes several times), the injected clock does not: still waiting.
  await sleep(2_500);
  assert.equal(await attached(), undefined);

  clock.advance(WINDOW_MS);
  await waitFor('the file to be attached', attached, 30_000);
});
