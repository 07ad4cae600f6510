// Issue 14, synced: a file edited in place in a project folder stays one file on the
// remote too. A SolarDesk remote takes the new contents as one PUT .../contents/ (the
// same id there); a remote without that route (the hosted service: the agent's
// remoteContentsReplace 'off', or a 404 the agent detects) gets a new file with the
// old title, project and tags, the old one deleted, and the local file re-keyed to it
// with its folder mapping and versions. A real server, the fault proxy (which counts
// what reaches the server, and stands in for a remote without the route by answering
// 404 itself) and a real agent with --folder, on the real filesystem.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { SyncedAgent } from '../../sync/testing/sync-harness.ts';
import type { FolderHarness } from '../../core/testing/folder-harness.ts';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { download } from '../../engine/testing/file-testing.ts';
import { DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { CONTENTS_ROUTE_KEY } from '../../sync/sync-state.ts';
import { folderOfProject, settleFolders, sleep, waitFor } from '../testing/folder-testing.ts';
import { localFilesWithHash, remoteFilesWithHash, sha256, startWithFolder, TEST_WINDOW_MS, type Json } from '../../core/testing/folder-harness.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../engine/store/tables.ts';

const CREATE_PATH = /^\/api\/orgs\/1\/private_files\/$/;
const FILE_PATH = /^\/api\/orgs\/1\/private_files\/\d+\/$/;
const CONTENTS_PATH = /^\/api\/orgs\/1\/private_files\/\d+\/contents\/$/;

const projectIdOf = (file: Json) => Number(/\/projects\/(\d+)\/$/.exec(file.project ?? '')?.[1] ?? NaN);
const tagIdsOf = (file: Json) => (file.file_tags as string[]).map((url) => Number(/\/file_tags\/(\d+)\/$/.exec(url)?.[1] ?? NaN)).sort();

/** Drops `bytes` into the project's folder and waits until the remote has them; returns the remote file. */
async function dropAndSync(h: FolderHarness, root: string, projectId: number, name: string, bytes: Buffer): Promise<Json> {
  fs.writeFileSync(path.join(folderOfProject(root, projectId), name), bytes);
  await waitFor(`${name} attached`, async () => (await localFilesWithHash(h, sha256(bytes))).length === 1);
  await settleFolders(h);
  const [remote] = await remoteFilesWithHash(h, sha256(bytes));
  assert.ok(remote, `${name} reached the remote`);
  return remote;
}

const versionHashes = async (h: FolderHarness, fileId: number) =>
  (await h.agent.engine.context.db.selectFrom('private_file_versions').select('file_hash').where('file_id', '=', fileId).orderBy('id').execute()).map((row) => row.file_hash);
/** A value of sync_state as stored (what the test checks was remembered). */
const storedSyncValue = async (db: Kysely<Database>, key: string) =>
  (await db.selectFrom('sync_state').select('value').where('key', '=', key).executeTakeFirst())?.value;
const heldCount = async (h: FolderHarness) => ((await h.local('GET', '/api/orgs/1/sync/pending/')).json as Json[]).filter((row) => row.status === 'held').length;
const mappedFileId = async (h: FolderHarness, name: string) =>
  (await h.agent.engine.context.db.selectFrom('watch_files').select('file_id').where('name', '=', name).executeTakeFirst())?.file_id;

describe('edits in place, synced to a SolarDesk remote (the contents route)', () => {
  let h: FolderHarness;
  let root: string;
  before(async () => {
    root = makeTempDir('solardesk-folder-edits-');
    h = await startWithFolder(root);
  });
  after(async () => {
    await h.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('an edit in place keeps the id here and on the remote, goes up as one PUT, and another computer pulls the new bytes', async () => {
    const viewer: SyncedAgent = await h.addAgent(DEMO_USERS.sunriseAdmin); // the same user on another computer
    const first = Buffer.from('string plan: 2 x 10 panels');
    const uploaded = await dropAndSync(h, root, 7, 'Strings.txt', first);
    await viewer.synced();
    const seen = (await viewer.local('GET', apiPaths.privateFile(1, uploaded.id))).json as Json;
    assert.ok((await download(seen.file_contents)).body.equals(first), 'the other computer has the first contents');
    const [puts, posts] = [h.proxy.count('PUT', CONTENTS_PATH), h.proxy.count('POST', CREATE_PATH)];

    const edited = Buffer.from('string plan: 3 x 12 panels, after the site visit');
    fs.writeFileSync(path.join(folderOfProject(root, 7), 'Strings.txt'), edited);
    await waitFor('the new contents here', async () => (await localFilesWithHash(h, sha256(edited))).length === 1);
    await settleFolders(h);

    const [local] = await localFilesWithHash(h, sha256(edited));
    assert.equal(local!.id, uploaded.id, 'the same id here');
    const remote = (await h.remote('GET', apiPaths.privateFile(1, uploaded.id))).json as Json;
    assert.equal(remote.file_hash, sha256(edited), 'the same id on the remote, with the new hash');
    assert.equal(remote.filesize, edited.length);
    assert.ok((await download(remote.file_contents)).body.equals(edited), 'the remote holds the new bytes');
    assert.equal(h.proxy.count('PUT', CONTENTS_PATH) - puts, 1, 'one upload of the new contents');
    assert.equal(h.proxy.count('POST', CREATE_PATH) - posts, 0, 'no new file');
    assert.deepEqual(await versionHashes(h, uploaded.id), [sha256(first)], 'the earlier contents are a version here');
    assert.equal(await heldCount(h), 0, 'nothing held for deletion');

    await viewer.synced();
    const pulled = (await viewer.local('GET', apiPaths.privateFile(1, uploaded.id))).json as Json;
    assert.equal(pulled.file_hash, sha256(edited), 'the other computer pulled the change into the same file');
    assert.ok((await download(pulled.file_contents)).body.equals(edited), 'and serves the new bytes');
  });

  test('an office editing session (a ~$ lock file, three saves) is one replace, one version, one upload', async () => {
    const first = Buffer.from('PK report draft 0');
    const uploaded = await dropAndSync(h, root, 8, 'Report.docx', first);
    const puts = h.proxy.count('PUT', CONTENTS_PATH);
    const folder = folderOfProject(root, 8);
    const lock = path.join(folder, '~$Report.docx');
    fs.writeFileSync(lock, 'owner: installer');
    const saves = ['PK report draft 1', 'PK report draft 2, longer', 'PK report draft 3, the last save'];
    for (const text of saves) {
      fs.writeFileSync(path.join(folder, 'Report.docx'), text);
      // Longer than the window apart: only the lock file holds the session together.
      await sleep(TEST_WINDOW_MS * 2);
    }
    assert.equal((await localFilesWithHash(h, sha256(first))).length, 1, 'nothing taken while the lock is there');
    fs.rmSync(lock);
    const last = Buffer.from(saves[2]!);
    await waitFor('the session taken', async () => (await localFilesWithHash(h, sha256(last))).length === 1);
    await settleFolders(h);

    assert.equal((await localFilesWithHash(h, sha256(last)))[0]!.id, uploaded.id);
    assert.deepEqual(await versionHashes(h, uploaded.id), [sha256(first)], 'one version for the session');
    assert.equal(h.proxy.count('PUT', CONTENTS_PATH) - puts, 1, 'one upload for the session');
    assert.equal(((await h.remote('GET', apiPaths.privateFile(1, uploaded.id))).json as Json).file_hash, sha256(last));
  });

  test('a remote that answers the contents route with 404 is remembered as one without it: the edit goes up as a new file', async () => {
    const first = Buffer.from('meter reading: 10421 kWh');
    const uploaded = await dropAndSync(h, root, 9, 'Meter.txt', first);
    h.proxy.addRule({ method: 'PUT', path: CONTENTS_PATH, action: { kind: 'status', status: 404, body: { detail: 'Not found.' } } });
    try {
      const edited = Buffer.from('meter reading: 10988 kWh, after a month');
      fs.writeFileSync(path.join(folderOfProject(root, 9), 'Meter.txt'), edited);
      await waitFor('the new contents here', async () => (await localFilesWithHash(h, sha256(edited))).length === 1);
      await settleFolders(h);
      const remote = await remoteFilesWithHash(h, sha256(edited));
      assert.equal(remote.length, 1);
      assert.notEqual(remote[0]!.id, uploaded.id);
      assert.equal((await h.remote('GET', apiPaths.privateFile(1, uploaded.id))).status, 404, 'the old remote file is deleted');
      assert.equal(await storedSyncValue(h.agent.context.db, CONTENTS_ROUTE_KEY), 'absent', 'remembered');
      assert.equal(await mappedFileId(h, 'Meter.txt'), remote[0]!.id, 'the folder mapping follows the re-key');
    } finally {
      h.proxy.clearRules();
    }
  });
});

describe('edits in place, synced to a remote without the contents route (remoteContentsReplace off, as the hosted service)', () => {
  let h: FolderHarness;
  let root: string;
  before(async () => {
    root = makeTempDir('solardesk-folder-edits-hosted-');
    h = await startWithFolder(root, { remoteContentsReplace: 'off' });
  });
  after(async () => {
    await h.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('the new contents go up as a new file with the old title, project and tags; the old one is deleted; the local file stays one', async () => {
    const first = Buffer.from('inverter datasheet, rev A');
    const uploaded = await dropAndSync(h, root, 7, 'Datasheet.txt', first);
    const [tag] = (await h.remote('GET', apiPaths.fileTags(1))).json as Json[];
    assert.ok(tag, 'the demo org has file tags');
    const patched = await h.remote('PATCH', apiPaths.privateFile(1, uploaded.id), { file_tags: [`${h.server.baseUrl}${apiPaths.fileTag(tag.id as number)}`], show_customer: true });
    assert.equal(patched.status, 200);
    await h.synced();
    const counts = () => ({ posts: h.proxy.count('POST', CREATE_PATH), deletes: h.proxy.count('DELETE', FILE_PATH), puts: h.proxy.count('PUT', CONTENTS_PATH) });
    const before = counts();

    const edited = Buffer.from('inverter datasheet, rev B with the new MPPT ranges');
    fs.writeFileSync(path.join(folderOfProject(root, 7), 'Datasheet.txt'), edited);
    await waitFor('the new contents here', async () => (await localFilesWithHash(h, sha256(edited))).length === 1);
    await settleFolders(h);

    const remote = await remoteFilesWithHash(h, sha256(edited));
    assert.equal(remote.length, 1, 'one remote file with the new bytes');
    const replacement = remote[0]!;
    assert.notEqual(replacement.id, uploaded.id);
    assert.ok((await download(replacement.file_contents)).body.equals(edited));
    assert.equal(replacement.title, 'Datasheet.txt', 'the old title');
    assert.equal(projectIdOf(replacement), 7, 'the old project');
    assert.deepEqual(tagIdsOf(replacement), [tag.id], 'the old tags');
    assert.equal(replacement.show_customer, true);
    assert.equal((await h.remote('GET', apiPaths.privateFile(1, uploaded.id))).status, 404, 'the old remote file is deleted');
    assert.equal((await remoteFilesWithHash(h, sha256(first))).length, 0);
    const after = counts();
    assert.deepEqual({ posts: after.posts - before.posts, deletes: after.deletes - before.deletes, puts: after.puts - before.puts }, { posts: 1, deletes: 1, puts: 0 });

    const local = await h.agent.engine.context.db.selectFrom('private_files').selectAll().where('project_id', '=', 7).where('title', '=', 'Datasheet.txt').execute();
    assert.deepEqual(local.map((file) => [file.id, file.file_hash]), [[replacement.id, sha256(edited)]], 'one local file, re-keyed to the new remote id');
    assert.equal(await mappedFileId(h, 'Datasheet.txt'), replacement.id, 'the folder mapping is intact');
    assert.deepEqual(await versionHashes(h, replacement.id), [sha256(first)], 'the earlier contents stay its version');
    assert.equal(await heldCount(h), 0, 'nothing held for deletion');
    assert.ok(fs.readFileSync(path.join(folderOfProject(root, 7), 'Datasheet.txt')).equals(edited), 'the folder copy is untouched');
    assert.equal(await storedSyncValue(h.agent.context.db, CONTENTS_ROUTE_KEY), undefined, 'off by option, nothing detected');
  });
});
