// Files on demand (issue 15), synced: a real server, the fault proxy counting what
// reaches it, and a real agent with project folders on the real filesystem, at the
// agent's default policy. The agent signs in as the demo admin, who holds a role on
// every Sunrise project but every eighth (1, 9, 17, 25...: the member's).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { FolderHarness } from '../../core/testing/folder-harness.ts';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { createFile } from '../../engine/testing/file-testing.ts';
import { blobPath } from '../../engine/files/blob-store.ts';
import { folderOfProject, settleFolders, waitFor } from '../testing/folder-testing.ts';
import { sha256, startWithFolder, type Json } from '../../core/testing/folder-harness.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';
import { ONLINE_ONLY_FILE_NAME, ONLINE_ONLY_MARKER } from '../online-only.ts';
import { LINK_KEY } from '../../sync/contents-policy.ts';
import type { ProjectContentsJson } from '../../../shared/schemas/contents.ts';

const ROLE_PROJECT = 2;
const OTHER_PROJECT = 1;
const PINNED_PROJECT = 9;
const OPENED_PROJECT = 17;
const USER_NAMED_PROJECT = 25;

describe('files on demand: only the projects that matter keep their files here', () => {
  let h: FolderHarness;
  let root: string;
  let adminToken: string;
  const files: Record<string, Json> = {};
  const detailGets = (fileId: number) => h.proxy.count('GET', new RegExp(`^${apiPaths.privateFile(1, fileId).replace(/[/.]/g, '\\$&')}(\\?.*)?$`));
  const inFolder = (projectId: number) => fs.readdirSync(folderOfProject(root, projectId));
  const hasCopy = (projectId: number, bytes: string) => inFolder(projectId).some((name) => fs.readFileSync(path.join(folderOfProject(root, projectId), name), 'utf8') === bytes);
  const heldDeletes = async () => ((await h.local('GET', syncPaths.pending(1))).json as Json[]).filter((row) => row.status === 'held');
  const contentsOf = async (projectId: number) => (await h.local('GET', syncPaths.projectContents(1, projectId))).json as ProjectContentsJson;
  const attach = async (projectId: number, bytes: string, title: string) => {
    const file = await createFile(h.server, adminToken, bytes, `${title}.txt`, { title, project: `${h.server.baseUrl}${apiPaths.project(1, projectId)}` });
    files[title] = file as Json;
    return file as Json;
  };

  before(async () => {
    root = makeTempDir('solardesk-on-demand-');
    h = await startWithFolder(root, { contents: {} });
    adminToken = await h.server.tokenFor('admin@sunrise.example');
    // A file of the user's own with the list's name, in a project that is not kept: never written over.
    fs.writeFileSync(path.join(folderOfProject(root, USER_NAMED_PROJECT), ONLINE_ONLY_FILE_NAME), 'my own notes, not SolarDesk\'s');
    await attach(ROLE_PROJECT, 'role project bytes', 'Role file');
    await attach(OTHER_PROJECT, 'other project bytes, opened later', 'Other file');
    await attach(OTHER_PROJECT, 'other project bytes, downloaded later', 'Other download');
    await attach(PINNED_PROJECT, 'pinned clean bytes', 'Pinned clean');
    await attach(PINNED_PROJECT, 'pinned bytes to be edited', 'Pinned edited');
    await attach(OPENED_PROJECT, 'opened project bytes', 'Opened file');
    await attach(USER_NAMED_PROJECT, 'a file of the project with the user file', 'Beside user file');
    assert.equal((await h.local('POST', syncPaths.pinProject(1, PINNED_PROJECT), { pinned: true })).status, 200);
    assert.equal((await h.local('POST', syncPaths.projectOpened(1, OPENED_PROJECT))).status, 200);
    await settleFolders(h);
  });
  after(async () => {
    await h?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('files of a project with a role, a pinned one and one opened recently arrive in their folders; others do not', async () => {
    await waitFor('the kept files in their folders', () => hasCopy(ROLE_PROJECT, 'role project bytes') && hasCopy(PINNED_PROJECT, 'pinned clean bytes') && hasCopy(OPENED_PROJECT, 'opened project bytes'));
    assert.equal(hasCopy(OTHER_PROJECT, 'other project bytes, opened later'), false);
    assert.equal(hasCopy(OTHER_PROJECT, 'other project bytes, downloaded later'), false);
    const other = await contentsOf(OTHER_PROJECT);
    assert.equal(other.kept, false);
    assert.deepEqual((await contentsOf(ROLE_PROJECT)).reasons, ['role']);
    assert.deepEqual((await contentsOf(PINNED_PROJECT)).reasons, ['pinned']);
    assert.deepEqual((await contentsOf(OPENED_PROJECT)).reasons, ['opened']);
    const otherFile = other.files.find((file) => file.id === files['Other file']!.id)!;
    assert.equal(otherFile.here, false, 'its bytes stayed on the remote');
    assert.ok(otherFile.link_expires_at && Date.parse(otherFile.link_expires_at) > Date.now() + 50 * 60_000, 'the link the list gave is remembered for its hour');
  });

  test('the folder of a project not kept lists its files in the "Online only" text file, which is never attached', async () => {
    const listing = path.join(folderOfProject(root, OTHER_PROJECT), ONLINE_ONLY_FILE_NAME);
    const text = await waitFor('the online-only list', () => fs.existsSync(listing) && fs.readFileSync(listing, 'utf8'));
    assert.ok(text.startsWith(ONLINE_ONLY_MARKER));
    assert.match(text, /- Other file {2}\(\d+ B\)/);
    assert.match(text, /- Other download {2}\(\d+ B\)/);
    assert.match(text, /pin the project/);
    const remoteTitles = ((await h.remote('GET', `${apiPaths.privateFiles(1)}?limit=1000`)).json as Json[]).map((file) => file.title);
    assert.ok(!remoteTitles.some((title) => /Online only/.test(title)), 'the list never goes up as a file');
    assert.equal(fs.existsSync(path.join(folderOfProject(root, ROLE_PROJECT), ONLINE_ONLY_FILE_NAME)), false, 'a kept project has no list');
  });

  test('a user file with the list\'s name is left as it is, and the status says why', async () => {
    await settleFolders(h);
    const mine = path.join(folderOfProject(root, USER_NAMED_PROJECT), ONLINE_ONLY_FILE_NAME);
    assert.equal(fs.readFileSync(mine, 'utf8'), 'my own notes, not SolarDesk\'s');
    const status = (await h.local('GET', syncPaths.folder(1))).json as Json;
    assert.ok((status.files as Json[]).some((file) => file.path.endsWith(ONLINE_ONLY_FILE_NAME) && /did not write/.test(file.reason)));
  });

  test('fetching a file of a project not kept costs no request while the listed link is fresh, and one detail GET after it expired', async () => {
    const file = files['Other file']!;
    const fetched = await h.local('POST', syncPaths.fetchFileContents(1, file.id));
    assert.equal(fetched.status, 200, fetched.text);
    assert.equal(fetched.json.here, true);
    assert.equal(detailGets(file.id), 0, 'the signed link from the list was used: nothing counted against the file quota');
    const blob = blobPath(h.agent.engine.context.store.fileRoot, file.file_hash);
    assert.equal(sha256(fs.readFileSync(blob)), file.file_hash);

    // The hour passed (its recorded expiry moved into the past, as the clock would): one detail GET for a new link.
    const other = files['Other download']!;
    await h.agent.engine.context.db.updateTable('sync_state').set({ value: JSON.stringify({ url: 'http://127.0.0.1:9/expired', expires_at: '2000-01-01T00:00:00.000Z' }) }).where('key', '=', `${LINK_KEY}${other.id}`).execute();
    const described = await h.local('GET', apiPaths.privateFile(1, other.id));
    const downloaded = await fetch(described.json.file_contents);
    assert.equal(downloaded.status, 200);
    assert.equal(await downloaded.text(), 'other project bytes, downloaded later');
    assert.equal(detailGets(other.id), 1, 'one private_file_detail GET, counted once in the private_files bucket');
    const again = await fetch(described.json.file_contents);
    assert.equal(again.status, 200);
    assert.equal(detailGets(other.id), 1, 'here now: opening it again costs nothing');
  });

  test('a file dropped into the folder of a project not kept goes up and stays in the folder', async () => {
    const dropped = path.join(folderOfProject(root, OTHER_PROJECT), 'Dropped here.txt');
    fs.writeFileSync(dropped, 'dropped into a project that is not kept');
    const hash = sha256(Buffer.from('dropped into a project that is not kept'));
    await waitFor('the dropped file on the remote', async () => ((await h.remote('GET', `${apiPaths.privateFiles(1)}?search=${hash}`)).json as Json[]).length === 1, 30_000);
    await settleFolders(h);
    // More passes of the folders and sync cycles (each may evict): it stays, as made here.
    await h.local('POST', syncPaths.projectOpened(1, ROLE_PROJECT));
    await settleFolders(h);
    assert.equal(fs.readFileSync(dropped, 'utf8'), 'dropped into a project that is not kept');
  });

  test('unpinning evicts the clean copy, keeps a modified one, and neither holds nor sends a delete', async () => {
    const folder = folderOfProject(root, PINNED_PROJECT);
    const edited = inFolder(PINNED_PROJECT).find((name) => fs.readFileSync(path.join(folder, name), 'utf8') === 'pinned bytes to be edited')!;
    const clean = files['Pinned clean']!;
    assert.ok(fs.existsSync(blobPath(h.agent.engine.context.store.fileRoot, clean.file_hash)));
    // Sync paused: the edit waits in the outbox, so this copy differs from the synced one.
    assert.equal((await h.local('POST', syncPaths.pause(1))).status, 200);
    fs.writeFileSync(path.join(folder, edited), 'pinned bytes, edited here');
    await waitFor('the edit to be taken', async () => (await h.local('GET', syncPaths.pending(1))).json.some((row: Json) => row.record_id === files['Pinned edited']!.id));

    assert.equal((await h.local('POST', syncPaths.pinProject(1, PINNED_PROJECT), { pinned: false })).status, 200);
    await waitFor('the clean copy to leave the folder', () => !hasCopy(PINNED_PROJECT, 'pinned clean bytes'));
    await waitFor('the folders to be quiet', () => h.agent.folders!.isQuiet());
    assert.equal(fs.readFileSync(path.join(folder, edited), 'utf8'), 'pinned bytes, edited here', 'a modified copy is never evicted');
    const listing = await waitFor('the list of the unpinned project', () => fs.existsSync(path.join(folder, ONLINE_ONLY_FILE_NAME)) && fs.readFileSync(path.join(folder, ONLINE_ONLY_FILE_NAME), 'utf8'));
    assert.match(listing, /- Pinned clean/);
    assert.doesNotMatch(listing, /Pinned edited/);
    assert.deepEqual(await heldDeletes(), [], 'an eviction is no deletion');

    assert.equal((await h.local('POST', syncPaths.resume(1))).status, 200);
    await h.synced();
    await waitFor('the replica blob of the clean file to go', () => !fs.existsSync(blobPath(h.agent.engine.context.store.fileRoot, clean.file_hash)));
    const remoteIds = ((await h.remote('GET', `${apiPaths.privateFiles(1)}?project=${PINNED_PROJECT}&limit=100`)).json as Json[]).map((file) => file.id);
    assert.ok(remoteIds.includes(clean.id) && remoteIds.includes(files['Pinned edited']!.id), 'both files are still on the remote');
    assert.equal(h.proxy.count('DELETE', /private_files/), 0, 'no delete reached the remote');
    assert.deepEqual(await heldDeletes(), []);
    const local = await h.agent.engine.context.db.selectFrom('private_files').select('id').where('id', '=', clean.id).executeTakeFirst();
    assert.ok(local, 'the record stays; only its bytes left');
  });
});
