// Issue 35: a file's contents are never lost. A real server, the fault proxy and a
// real agent with project folders on the real filesystem, at the agent's
// files-on-demand policy; every file's bytes are checked by sha256 on disk, in the
// replica and on the server. The "program" holding a file open is this test process
// itself (a real open descriptor, listed in /proc like any editor's).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { FolderHarness } from '../../core/testing/folder-harness.ts';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { createFile } from '../../engine/testing/file-testing.ts';
import { filesBelow } from '../../engine/testing/file-testing.ts';
import { folderOfProject, settleFolders, waitFor } from '../testing/folder-testing.ts';
import { startWithFolder, type Json } from '../../core/testing/folder-harness.ts';
import { bytesEverywhere, mappedPath, replaceOnServer, sha256Of } from '../../core/testing/bytes-everywhere.ts';
import { multipartBody, sendMultipart } from '../../engine/testing/multipart-upload.ts';
import { folderStatus } from '../../core/testing/folder-harness.ts';
import { lockFileNamesFor } from '../folder-names.ts';
import { NEWER_VERSION_WAITING } from '../folder-status.ts';
import { agentEvictedDir } from '../arrivals.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';
import { type ContentsPolicyOptions, FETCHED_KEY, MADE_HERE_KEY } from '../../sync/contents-policy.ts';
import { ONLINE_ONLY_FILE_NAME, ONLINE_ONLY_NOTES_NAME } from '../online-only.ts';

// The demo admin holds a role on every Sunrise project but every eighth (1, 9, 17...): those are kept only when pinned.
const UNPINNED_LATER = 9;

/** A real server and agent with project folders under a fresh root, at the agent's files-on-demand policy. */
class AgentWithFolders {
  h!: FolderHarness;
  root = '';
  token = '';

  async start(prefix: string, contents: ContentsPolicyOptions = {}): Promise<void> {
    this.root = makeTempDir(prefix);
    this.h = await startWithFolder(this.root, { contents });
    this.token = await this.h.server.tokenFor('admin@sunrise.example');
  }

  /** A colleague attaches a file to the project on the server. */
  async attach(projectId: number, bytes: string, title: string): Promise<Json> {
    return (await createFile(this.h.server, this.token, bytes, `${title}.txt`, { title, project: `${this.h.server.baseUrl}${apiPaths.project(1, projectId)}` })) as Json;
  }

  async close(): Promise<void> {
    await this.h?.close();
    if (this.root) fs.rmSync(this.root, { recursive: true, force: true });
  }
}

describe('eviction never removes a file a program can still write to', () => {
  const agent = new AgentWithFolders();
  after(() => agent.close());

  before(async () => {
    await agent.start('solardesk-bytes-kept-');
  });

  test('a file open for writing stays through an unpin, and the save through its handle goes up', async () => {
    assert.equal((await agent.h.local('POST', syncPaths.pinProject(1, UNPINNED_LATER), { pinned: true })).status, 200);
    const open = await agent.attach(UNPINNED_LATER, 'bytes a program will have open', 'Held open');
    const clean = await agent.attach(UNPINNED_LATER, 'bytes nobody has open', 'Nobody has it');
    await settleFolders(agent.h);
    const folder = folderOfProject(agent.root, UNPINNED_LATER);
    const openPath = await waitFor('the file to arrive', () => mappedPath(agent.h, folder, open.id));
    const cleanPath = await waitFor('the other file to arrive', () => mappedPath(agent.h, folder, clean.id));
    assert.ok(fs.existsSync(openPath) && fs.existsSync(cleanPath));

    // A program opens it read-write, with no lock file beside it.
    const handle = fs.openSync(openPath, 'r+');
    try {
      assert.equal((await agent.h.local('POST', syncPaths.pinProject(1, UNPINNED_LATER), { pinned: false })).status, 200);
      await waitFor('the file nobody has open to be evicted', () => !fs.existsSync(cleanPath));
      await settleFolders(agent.h);
      assert.equal(fs.existsSync(openPath), true, 'the file open for writing is still in its folder');
      const held = filesBelow(agentEvictedDir(agent.root));
      assert.equal(held.length, 1, `the evicted copy is held, not unlinked: ${held.join(', ')}`);
      assert.equal(sha256Of(fs.readFileSync(path.join(agentEvictedDir(agent.root), held[0]!))), clean.file_hash);

      // The program saves through its open handle.
      const saved = Buffer.from('the program saved this through its handle');
      fs.ftruncateSync(handle, 0);
      fs.writeSync(handle, saved, 0, saved.length, 0);
    } finally {
      fs.closeSync(handle);
    }
    const savedHash = sha256Of('the program saved this through its handle');
    await waitFor('the save to reach the server', async () => ((await agent.h.remote('GET', apiPaths.privateFile(1, open.id))).json as Json).file_hash === savedHash, 30_000);
    await settleFolders(agent.h);
    const where = await bytesEverywhere(agent.h, openPath, open.id);
    assert.deepEqual(where, { disk: savedHash, replica: { hash: savedHash, blobHere: true }, server: { hash: savedHash, bytes: savedHash } });
  });
});

describe('contents changed on both sides are a conflict, and either choice makes every place agree', () => {
  const agent = new AgentWithFolders();
  after(() => agent.close());
  const contentsConflict = async (fileId: number) =>
    ((await agent.h.local('GET', syncPaths.conflicts(1))).json as Json[]).find((row) => row.model === 'private_file' && row.record_id === fileId && row.field === 'file_hash');
  const localVersions = async (fileId: number) => (await agent.h.local('GET', apiPaths.privateFileVersions(1, fileId))).json as Json[];
  /** A version listed here downloads, with exactly its bytes. */
  const versionDownloads = async (fileId: number, hash: string) => {
    const version = (await localVersions(fileId)).find((row) => row.file_hash === hash);
    assert.ok(version, `a version with ${hash.slice(0, 8)} is listed here`);
    const bytes = await fetch(version.contents as string, { headers: { authorization: `Bearer ${agent.h.agent.localToken}` } });
    assert.equal(bytes.status, 200, 'the version downloads');
    assert.equal(sha256Of(Buffer.from(await bytes.arrayBuffer())), hash);
  };
  /** A file of a pinned project, arrived in its folder: its path. */
  const arrived = async (projectId: number, file: Json) => {
    await settleFolders(agent.h);
    return waitFor('the file in its folder', () => mappedPath(agent.h, folderOfProject(agent.root, projectId), file.id as number));
  };
  const evictAndFetch = async (projectId: number, fileId: number, diskPath: string, hash: string) => {
    // The file was changed here, so it is kept for days; those days pass (its recorded times moved into the past, as the clock would).
    const db = agent.h.agent.engine.context.db;
    await db.updateTable('sync_state').set({ value: '2000-01-01T00:00:00.000Z' }).where((eb) => eb.or([eb('key', '=', `${FETCHED_KEY}${fileId}`), eb('key', 'like', `${MADE_HERE_KEY}%`)])).execute();
    assert.equal((await agent.h.local('POST', syncPaths.pinProject(1, projectId), { pinned: false })).status, 200);
    await waitFor('the copy to be evicted', () => !fs.existsSync(diskPath));
    await settleFolders(agent.h);
    const fetched = await agent.h.local('POST', syncPaths.fetchFileContents(1, fileId));
    assert.equal(fetched.status, 200, `fetching it again works (no hash mismatch): ${fetched.text}`);
    const where = await bytesEverywhere(agent.h, diskPath, fileId);
    assert.deepEqual(where.replica, { hash, blobHere: true });
    assert.deepEqual(where.server, { hash, bytes: hash });
  };

  /** Disk and replica hold `here`, the server `there` (each by sha256 of the bytes themselves). */
  const bytesAre = async (diskPath: string, fileId: number, here: string, there: string) =>
    assert.deepEqual(await bytesEverywhere(agent.h, diskPath, fileId), {
      disk: sha256Of(here),
      replica: { hash: sha256Of(here), blobHere: true },
      server: { hash: sha256Of(there), bytes: sha256Of(there) },
    });
  /** Settles the contents conflict with `choice`; then every place holds `chosen`, the conflict is gone and `other` downloads as a version here. */
  const settle = async (conflict: Json, diskPath: string, choice: 'local' | 'remote', chosen: string, other: string) => {
    assert.equal((await agent.h.local('POST', syncPaths.resolveConflict(1, conflict.id), { choice })).status, 200);
    await waitFor('the chosen contents on disk and on the server', async () =>
      fs.existsSync(diskPath) && sha256Of(fs.readFileSync(diskPath)) === sha256Of(chosen) && ((await agent.h.remote('GET', apiPaths.privateFile(1, conflict.record_id))).json as Json).file_hash === sha256Of(chosen),
    );
    await settleFolders(agent.h);
    await bytesAre(diskPath, conflict.record_id, chosen, chosen);
    assert.equal(await contentsConflict(conflict.record_id), undefined);
    await versionDownloads(conflict.record_id, sha256Of(other));
  };

  before(async () => {
    await agent.start('solardesk-bytes-conflicts-');
    for (const projectId of [17, 25, 33, 41]) assert.equal((await agent.h.local('POST', syncPaths.pinProject(1, projectId), { pinned: true })).status, 200);
  });

  test('with a lock file beside it, new remote contents wait; the save meanwhile is a conflict; "remote" makes disk, replica and server agree, then eviction', async () => {
    const file = await agent.attach(17, 'first bytes, open in an editor', 'Locked');
    const diskPath = await arrived(17, file);
    const lock = path.join(path.dirname(diskPath), lockFileNamesFor(path.basename(diskPath))[0]!);
    fs.writeFileSync(lock, 'owner');
    const colleague = 'the colleague\'s new contents';
    await replaceOnServer(agent.h.server, agent.token, file.id, colleague, 'Locked.txt');
    await settleFolders(agent.h);
    const status = await waitFor('the status to say a newer version waits', async () => (await folderStatus(agent.h)).files.find((row) => row.file_id === file.id && row.state === 'waiting'));
    assert.match(status.reason, new RegExp(NEWER_VERSION_WAITING));
    assert.equal(sha256Of(fs.readFileSync(diskPath)), file.file_hash, 'the open file was not written over');

    const mine = 'my save while the colleague\'s version waited';
    fs.writeFileSync(diskPath, mine);
    fs.rmSync(lock);
    const conflict = await waitFor('a contents conflict', () => contentsConflict(file.id));
    await settleFolders(agent.h);
    assert.deepEqual([conflict.local_value, conflict.remote_value], [sha256Of(mine), sha256Of(colleague)]);
    await bytesAre(diskPath, file.id, mine, colleague); // nothing was uploaded over the colleague's version
    await versionDownloads(file.id, sha256Of(colleague));

    await settle(conflict, diskPath, 'remote', colleague, mine);
    await evictAndFetch(17, file.id, diskPath, sha256Of(colleague));
    await versionDownloads(file.id, sha256Of(mine));
  });

  test('a file open for writing is not written over by remote contents; the save through the handle is a conflict; "local" sends it up', async () => {
    const file = await agent.attach(25, 'first bytes, held open by a program', 'Open handle');
    const diskPath = await arrived(25, file);
    const colleague = 'the colleague replaced these';
    const mine = 'saved through the open handle';
    const handle = fs.openSync(diskPath, 'r+');
    try {
      await replaceOnServer(agent.h.server, agent.token, file.id, colleague, 'Open handle.txt');
      await settleFolders(agent.h);
      await waitFor('the status to say a newer version waits', async () => (await folderStatus(agent.h)).files.some((row) => row.file_id === file.id && row.state === 'waiting'));
      fs.ftruncateSync(handle, 0);
      fs.writeSync(handle, Buffer.from(mine), 0, Buffer.byteLength(mine), 0);
    } finally {
      fs.closeSync(handle);
    }
    const conflict = await waitFor('a contents conflict', () => contentsConflict(file.id));
    assert.equal(sha256Of(fs.readFileSync(diskPath)), sha256Of(mine), 'the save is on disk');
    assert.equal(((await agent.h.remote('GET', apiPaths.privateFile(1, file.id))).json as Json).file_hash, sha256Of(colleague), 'and not over the colleague\'s bytes');

    await settle(conflict, diskPath, 'local', mine, colleague);
    await evictAndFetch(25, file.id, diskPath, sha256Of(mine));
  });

  test('edited here while the agent was stopped and replaced on the server meanwhile: a conflict, both byte sets kept', async () => {
    const file = await agent.attach(33, 'bytes before the agent stopped', 'Stopped');
    const diskPath = await arrived(33, file);
    const colleague = 'replaced on the server while this computer was off';
    const mine = 'edited here while the agent was stopped';
    await agent.h.restartAgent(async () => {
      fs.writeFileSync(diskPath, mine);
      await replaceOnServer(agent.h.server, agent.token, file.id, colleague, 'Stopped.txt');
    });
    await settleFolders(agent.h);
    const conflict = await waitFor('a contents conflict', () => contentsConflict(file.id));
    assert.deepEqual([conflict.local_value, conflict.remote_value], [sha256Of(mine), sha256Of(colleague)]);
    await bytesAre(diskPath, file.id, mine, colleague);
    await versionDownloads(file.id, sha256Of(colleague));
    await settle(conflict, diskPath, 'local', mine, colleague);
  });

  test('edited here and on the server while running (the edit taken first): "remote" makes every place agree, and the copy evicts and fetches again', async () => {
    const file = await agent.attach(41, 'bytes before both edits', 'Running');
    const diskPath = await arrived(41, file);
    const colleague = 'the server\'s edit, made while this one waited to go up';
    const mine = 'the edit made here, not yet sent';
    assert.equal((await agent.h.local('POST', syncPaths.pause(1))).status, 200);
    fs.writeFileSync(diskPath, mine);
    await waitFor('the edit to be taken', async () => (await agent.h.agent.engine.context.db.selectFrom('private_files').select('file_hash').where('id', '=', file.id).executeTakeFirst())?.file_hash === sha256Of(mine));
    await replaceOnServer(agent.h.server, agent.token, file.id, colleague, 'Running.txt');
    assert.equal((await agent.h.local('POST', syncPaths.resume(1))).status, 200);
    const conflict = await waitFor('a contents conflict', async () => {
      await agent.h.synced();
      return contentsConflict(file.id);
    });
    assert.equal(((await agent.h.remote('GET', apiPaths.privateFile(1, file.id))).json as Json).file_hash, sha256Of(colleague));

    await settle(conflict, diskPath, 'remote', colleague, mine);
    await evictAndFetch(41, file.id, diskPath, sha256Of(colleague));
    await versionDownloads(file.id, sha256Of(mine));
  });
});

describe('the "Online only" list keeps no text of the user\'s and never goes up; a dropped file stays, even with --keep-opened-days 0', () => {
  const agent = new AgentWithFolders();
  after(() => agent.close());
  const NOT_KEPT = 1;
  const localVersions = async (fileId: number) => (await agent.h.local('GET', apiPaths.privateFileVersions(1, fileId))).json as Json[];
  const remoteTitles = async () => ((await agent.h.remote('GET', `${apiPaths.privateFiles(1)}?limit=1000`)).json as Json[]).map((file) => file.title as string);

  before(async () => {
    await agent.start('solardesk-bytes-list-', { openedDays: 0 });
  });

  test('notes typed into the list move to a file beside it when the list changes; the renamed list is not uploaded', async () => {
    await agent.attach(NOT_KEPT, 'a file on the remote only', 'Remote only one');
    await settleFolders(agent.h);
    const folder = folderOfProject(agent.root, NOT_KEPT);
    const listing = path.join(folder, ONLINE_ONLY_FILE_NAME);
    await waitFor('the list', () => fs.existsSync(listing) && /Remote only one/.test(fs.readFileSync(listing, 'utf8')));
    fs.appendFileSync(listing, '\nNOTE: ask the office about the roof plan\n');
    await agent.attach(NOT_KEPT, 'another file on the remote only', 'Remote only two');
    await settleFolders(agent.h);
    await waitFor('the list to change', () => /Remote only two/.test(fs.readFileSync(listing, 'utf8')));
    assert.doesNotMatch(fs.readFileSync(listing, 'utf8'), /ask the office/, 'the list itself keeps no typed text');
    assert.match(fs.readFileSync(path.join(folder, ONLINE_ONLY_NOTES_NAME), 'utf8'), /NOTE: ask the office about the roof plan/, 'the notes are beside it');

    const renamed = path.join(folder, 'Files elsewhere.txt');
    fs.renameSync(listing, renamed);
    const renamedHash = sha256Of(fs.readFileSync(renamed));
    await settleFolders(agent.h);
    const leftAlone = async () => (await folderStatus(agent.h)).ignored.some((row) => row.path.endsWith('Files elsewhere.txt'));
    const uploaded = async () => ((await agent.h.remote('GET', `${apiPaths.privateFiles(1)}?search=${renamedHash}`)).json as Json[]).length > 0;
    await waitFor('the renamed list to be looked at (left alone, or uploaded)', async () => (await leftAlone()) || (await uploaded()));
    await settleFolders(agent.h);
    assert.equal(await uploaded(), false, 'the renamed list never went up');
    assert.ok(!(await remoteTitles()).includes('Files elsewhere.txt'));
    assert.equal(await leftAlone(), true, 'the status says it is left alone');
  });

  test('a version whose bytes only the server has is fetched when downloaded, and restores', async () => {
    const original = 'the contents only the server ever held';
    const file = await agent.attach(NOT_KEPT, original, 'Server only version');
    const replicaRow = () => agent.h.agent.engine.context.db.selectFrom('private_files').select(['file_hash']).where('id', '=', file.id as number).executeTakeFirst();
    await waitFor('the file record here', async () => (await replicaRow())?.file_hash === sha256Of(original), 30_000);
    assert.equal((await bytesEverywhere(agent.h, path.join(agent.root, 'not on disk'), file.id as number)).replica.blobHere, false, 'a project not kept: its bytes are on the server only');
    // New contents from here, over bytes never fetched: the old contents become a version here, with no blob.
    const mine = 'new contents sent from this computer';
    const replaced = await sendMultipart('PUT', `${agent.h.agent.localApiUrl}${apiPaths.privateFileContents(1, file.id as number)}`, agent.h.agent.localToken, multipartBody({}, { fileName: 'Server only version.txt', contents: Buffer.from(mine) }));
    assert.equal(replaced.status, 200, JSON.stringify(replaced.json));
    await agent.h.synced();
    assert.equal(((await agent.h.remote('GET', apiPaths.privateFile(1, file.id as number))).json as Json).file_hash, sha256Of(mine));
    const version = (await localVersions(file.id as number)).find((row) => row.file_hash === sha256Of(original));
    assert.ok(version, 'the server-only contents are listed as a version here');
    const bytes = await fetch(version.contents as string, { headers: { authorization: `Bearer ${agent.h.agent.localToken}` } });
    assert.equal(bytes.status, 200, 'the version downloads (fetched from the server)');
    assert.equal(sha256Of(Buffer.from(await bytes.arrayBuffer())), sha256Of(original));
    const restored = await agent.h.local('POST', new URL(version.restore as string).pathname);
    assert.equal(restored.status, 200, JSON.stringify(restored.json));
    await agent.h.synced();
    assert.equal(((await agent.h.remote('GET', apiPaths.privateFile(1, file.id as number))).json as Json).file_hash, sha256Of(original), 'the restore reached the server');
  });

  test('a file dropped into the folder of a project not kept goes up and stays in the folder', async () => {
    const dropped = path.join(folderOfProject(agent.root, NOT_KEPT), 'Dropped here.txt');
    fs.writeFileSync(dropped, 'dropped with --keep-opened-days 0');
    const hash = sha256Of('dropped with --keep-opened-days 0');
    await waitFor('the dropped file on the remote', async () => ((await agent.h.remote('GET', `${apiPaths.privateFiles(1)}?search=${hash}`)).json as Json[]).length === 1, 30_000);
    await settleFolders(agent.h);
    // More passes of the folders and sync cycles (each may evict): it stays, as made here.
    assert.equal((await agent.h.local('POST', syncPaths.projectOpened(1, NOT_KEPT))).status, 200);
    await settleFolders(agent.h);
    assert.equal(fs.existsSync(dropped) && sha256Of(fs.readFileSync(dropped)), hash);
  });
});
