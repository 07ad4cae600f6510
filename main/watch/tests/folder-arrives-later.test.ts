// A project folder that is there before its project reaches the store (the first
// sync after a sign-in pulls the projects after the watcher's first scan): once the
// project arrives, the folder is taken over and the files already in it are attached
// at once, not left "outside" until the next full rescan (issue 14). Real engine,
// real folders, the real watcher; the full rescan is set an hour away so only the
// take-over can attach the file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, startTestServer, type TestServer } from '../../engine/testing/test-server.ts';
import { DEMO_ORGS, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { FolderWatcher } from '../watcher.ts';
import { projectFolderName } from '../folder-names.ts';
import { folderOutboxOf } from '../../core/agent-folders.ts';
import { waitFor } from '../testing/folder-testing.ts';

let server: TestServer;
let root: string;
let watcher: FolderWatcher | null = null;
before(async () => {
  server = await startTestServer();
  root = makeTempDir('solardesk-folder-later-');
});
after(async () => {
  await watcher?.close();
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

test('files in a folder whose project arrives after the first scan are attached when it arrives', async () => {
  const { db } = server.engine.context;
  const admin = await db.selectFrom('users').select('id').where('email', '=', DEMO_USERS.sunriseAdmin).executeTakeFirstOrThrow();
  const last = await db.selectFrom('projects').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
  const title = 'Arrives later';
  const folder = projectFolderName({ id: last.id + 1, title, identifier: '' });
  fs.mkdirSync(path.join(root, folder));
  fs.writeFileSync(path.join(root, folder, 'survey.txt'), 'there before its project');

  watcher = new FolderWatcher({
    root,
    engine: server.engine.context,
    outbox: folderOutboxOf(server.engine.context),
    orgId: DEMO_ORGS.sunrise,
    userId: admin.id,
    stabilityWindowMs: 300,
    rescanIntervalMs: 60 * 60_000,
    log: (line) => console.log(Date.now(), line),
  });
  await watcher.start();
  const before = await waitFor('the first scan to call it outside', async () => {
    const status = await watcher!.status();
    return status.quiet && status.outside.some((entry) => entry.path === `${folder}/survey.txt`) ? status : null;
  });
  assert.match(before.outside.find((entry) => entry.path === `${folder}/survey.txt`)!.reason, /not a project's folder/);

  const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  const created = await server.request('POST', apiPaths.projects(DEMO_ORGS.sunrise), { token, body: { title } });
  assert.equal(created.status, 201);
  assert.equal(created.json.id, last.id + 1, 'the project took the id its folder was named for');

  const attached = await waitFor('the file to be attached', () =>
    db.selectFrom('private_files').selectAll().where('project_id', '=', last.id + 1).where('title', '=', 'survey.txt').executeTakeFirst(),
  );
  assert.equal(attached.filesize, Buffer.byteLength('there before its project'));
  const status = await watcher.status();
  assert.ok(!status.outside.some((entry) => entry.path.startsWith(`${folder}/`)), `no longer "outside": ${JSON.stringify(status.outside)}`);
  assert.equal(fs.readdirSync(root).filter((name) => name.endsWith(`(${last.id + 1})`)).length, 1, 'the folder was taken over, not duplicated');
});
