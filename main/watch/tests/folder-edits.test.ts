// Issue 14, embedded: a file edited in place in its project folder stays one private
// file (same id, new contents, the earlier ones kept as a version), and an editing
// session (an office lock file beside it, several saves) becomes one replace. A real
// engine and server, the real watcher on real folders; only the clock is faked
// (ManualClock), so the stability window passes when the test says, not in real time.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { makeTempDir, startTestServer, type TestServer } from '../../engine/testing/test-server.ts';
import { DEMO_ORGS, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { ManualClock } from '../../engine/clock.ts';
import { Readable } from 'node:stream';
import { blobPath, receiveToTempFile } from '../../engine/files/blob-store.ts';
import { replaceFileContents } from '../../engine/files/file-service.ts';
import { byUser } from '../../engine/changes/change-feed.ts';
import { FolderWatcher } from '../watcher.ts';
import { folderOutboxOf } from '../../core/agent-folders.ts';
import { waitFor } from '../testing/folder-testing.ts';

/** Long on purpose: nothing is taken until the test moves the clock past it. */
const WINDOW_MS = 60 * 60_000;
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe('edits in place, embedded (a watcher on the engine, ManualClock)', () => {
  let server: TestServer;
  let root: string;
  let watcher: FolderWatcher;
  let clock: ManualClock;
  let folder: string;
  let projectId: number;

  before(async () => {
    server = await startTestServer();
    root = makeTempDir('solardesk-folder-edits-');
    const { db } = server.engine.context;
    const admin = await db.selectFrom('users').select('id').where('email', '=', DEMO_USERS.sunriseAdmin).executeTakeFirstOrThrow();
    clock = new ManualClock();
    watcher = new FolderWatcher({ root, engine: server.engine.context, outbox: folderOutboxOf(server.engine.context), orgId: DEMO_ORGS.sunrise, userId: admin.id, clock, stabilityWindowMs: WINDOW_MS });
    await watcher.start();
    const project = await db.selectFrom('projects').select('id').where('org_id', '=', DEMO_ORGS.sunrise).orderBy('id').executeTakeFirstOrThrow();
    projectId = project.id;
    folder = path.join(root, await waitFor('the project folder', () => fs.readdirSync(root).find((name) => name.endsWith(` (${project.id})`)), 30_000));
  });
  after(async () => {
    await watcher.close();
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const filesTitled = (title: string) => server.engine.context.db.selectFrom('private_files').selectAll().where('project_id', '=', projectId).where('title', '=', title).execute();
  const versionsOf = (fileId: number) => server.engine.context.db.selectFrom('private_file_versions').selectAll().where('file_id', '=', fileId).execute();
  const heldDeletes = async () => (await watcher.status()).files.filter((file) => file.state === 'delete_held');
  /** The watcher has seen the name's current size and is waiting out its window (with `note` in its reason, if given). */
  const waiting = (name: string, note?: RegExp) =>
    waitFor(`${name} to wait`, async () => (await watcher.status()).files.some((file) => file.state === 'waiting' && file.path.endsWith(`/${name}`) && (!note || note.test(file.reason))), 30_000);
  /** Writes and waits until the watcher has seen exactly these bytes (their size) as a candidate. */
  async function save(name: string, bytes: string): Promise<void> {
    fs.writeFileSync(path.join(folder, name), bytes);
    await waitFor(`${name} to be seen at ${bytes.length} bytes`, async () => (await watcher.status()).files.some((file) => file.path.endsWith(`/${name}`) && file.bytes_total === bytes.length), 30_000);
  }
  /** Nothing left to do; the clock moves on a little each look, as the watcher's own follow-ups (a reconcile) are due on it. */
  const quiet = () =>
    waitFor('the watcher quiet', () => {
      clock.advance(1000);
      return watcher.isQuiet();
    }, 30_000);
  async function attachNew(name: string, bytes: string) {
    await save(name, bytes);
    clock.advance(WINDOW_MS);
    const [file] = await waitFor(`${name} attached`, async () => (await filesTitled(name)).length === 1 && filesTitled(name), 30_000);
    return file!;
  }

  test('an edit in place keeps the id and updates contents, size and hash; the earlier contents are a version', async () => {
    const first = await attachNew('Layout.txt', 'two strings of ten');
    const edited = 'three strings of twelve, after the site visit';
    await save('Layout.txt', edited);
    clock.advance(WINDOW_MS);
    await waitFor('the new contents', async () => (await filesTitled('Layout.txt'))[0]?.file_hash === sha256(edited), 30_000);
    // The watcher counts the replace after the engine commits it, as the other tests here wait for.
    await quiet();

    const files = await filesTitled('Layout.txt');
    assert.equal(files.length, 1, 'one private file, not a second one');
    assert.equal(files[0]!.id, first.id, 'the same id');
    assert.equal(files[0]!.filesize, Buffer.byteLength(edited));
    assert.equal(fs.readFileSync(blobPath(server.engine.context.store.fileRoot, files[0]!.file_hash!), 'utf8'), edited, 'its contents are the new bytes');
    const versions = await versionsOf(first.id);
    assert.deepEqual(versions.map((version) => version.file_hash), [sha256('two strings of ten')], 'the earlier contents are kept as a version');
    assert.deepEqual(await heldDeletes(), [], 'nothing is held for deletion');
    assert.equal(watcher.counts.replaced, 1);
  });

  test('an office editing session (a ~$ lock file, three saves) is one replace and one version, once the lock goes', async () => {
    const first = await attachNew('Report.docx', 'draft 0');
    const replacedBefore = watcher.counts.replaced;
    const lock = path.join(folder, '~$Report.docx');
    fs.writeFileSync(lock, 'owner: installer');
    for (const [index, text] of ['draft 1, saved', 'draft 2, saved again', 'draft 3, the last save'].entries()) {
      await save('Report.docx', text);
      // Two saves with the clock well past the window between them: the lock still holds the file back.
      if (index < 2) {
        clock.advance(WINDOW_MS);
        await waiting('Report.docx', /editing program/);
      }
    }
    clock.advance(WINDOW_MS);
    await waiting('Report.docx', /editing program/);
    assert.equal((await filesTitled('Report.docx'))[0]!.file_hash, sha256('draft 0'), 'nothing taken while the lock is there');
    assert.equal((await versionsOf(first.id)).length, 0);

    // The file has not changed for a window since the last save: the next look without the lock takes it.
    fs.rmSync(lock);
    clock.advance(WINDOW_MS);
    await waitFor('the session taken', async () => (await filesTitled('Report.docx'))[0]?.file_hash === sha256('draft 3, the last save'), 30_000);
    await quiet();

    const files = await filesTitled('Report.docx');
    assert.equal(files.length, 1);
    assert.equal(files[0]!.id, first.id);
    assert.deepEqual((await versionsOf(first.id)).map((version) => version.file_hash), [sha256('draft 0')], 'one version for the whole session');
    assert.equal(watcher.counts.replaced - replacedBefore, 1, 'one replace');
  });

  test('saves closer together than the window are one edit', async () => {
    const first = await attachNew('Yield.csv', 'month,kwh\n');
    const replacedBefore = watcher.counts.replaced;
    // The clock moves less than the window between saves: each save starts the window again.
    for (const text of ['month,kwh\njan,310\n', 'month,kwh\njan,310\nfeb,340\n', 'month,kwh\njan,310\nfeb,340\nmar,420\n']) {
      await save('Yield.csv', text);
      clock.advance(WINDOW_MS / 2);
    }
    clock.advance(WINDOW_MS);
    await waitFor('the edit taken', async () => (await filesTitled('Yield.csv'))[0]?.file_hash === sha256('month,kwh\njan,310\nfeb,340\nmar,420\n'), 30_000);
    await quiet();
    assert.equal((await filesTitled('Yield.csv'))[0]!.id, first.id);
    assert.equal((await versionsOf(first.id)).length, 1, 'one version, not one per save');
    assert.equal(watcher.counts.replaced - replacedBefore, 1);
  });

  test('new contents made elsewhere (the app, or pulled by sync) are written over an unchanged folder copy, with no replace back', async () => {
    const first = await attachNew('Wiring.txt', 'wiring: DC isolator at the array');
    const replacedBefore = watcher.counts.replaced;
    const context = server.engine.context;
    const newer = 'wiring: DC isolator at the array and at the inverter';
    const received = await receiveToTempFile(context.store.fileRoot, Readable.from([Buffer.from(newer)]), context.files.maxUploadBytes, 'test');
    await replaceFileContents(context, { orgId: DEMO_ORGS.sunrise, fileId: first.id, received, by: byUser(first.user_id) });
    await waitFor('the folder copy to follow', () => {
      clock.advance(1000); // the reconcile the change asks for is due on the clock
      return fs.readFileSync(path.join(folder, 'Wiring.txt'), 'utf8') === newer;
    }, 30_000);
    await quiet();
    const mapping = await context.db.selectFrom('watch_files').selectAll().where('file_id', '=', first.id).executeTakeFirstOrThrow();
    assert.equal(mapping.file_hash, sha256(newer), 'the mapping follows');
    assert.equal(watcher.counts.replaced, replacedBefore, 'the folder copy written is not taken for an edit made here');
    assert.deepEqual((await versionsOf(first.id)).map((version) => version.file_hash), [sha256('wiring: DC isolator at the array')]);
  });
});
