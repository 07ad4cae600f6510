// Issue 35: a file's contents are never lost. A real server, the fault proxy and a
// real agent with project folders on the real filesystem, at the agent's
// files-on-demand policy; every file's bytes are checked by sha256 on disk, in the
// replica and on the server. The "program" holding a file open is this test process
// itself (a real open descriptor, listed in /proc like any editor's).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { SyncHarness } from '../../sync/testing/sync-harness.ts';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { createFile } from '../../engine/testing/file-testing.ts';
import { filesBelow } from '../../engine/testing/file-testing.ts';
import { folderOfProject, settleFolders, waitFor } from '../testing/folder-testing.ts';
import { startWithFolder, type Json } from '../testing/folder-harness.ts';
import { bytesEverywhere, mappedPath, sha256Of } from '../testing/bytes-everywhere.ts';
import { agentEvictedDir } from '../arrivals.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';

// The demo admin holds a role on every Sunrise project but every eighth (1, 9, 17...): those are kept only when pinned.
const UNPINNED_LATER = 9;

describe('eviction never removes a file a program can still write to', () => {
  let h: SyncHarness;
  let root: string;
  let adminToken: string;
  const attach = async (projectId: number, bytes: string, title: string) =>
    (await createFile(h.server, adminToken, bytes, `${title}.txt`, { title, project: `${h.server.baseUrl}${apiPaths.project(1, projectId)}` })) as Json;

  before(async () => {
    root = makeTempDir('solardesk-bytes-kept-');
    h = await startWithFolder(root, { contents: {} });
    adminToken = await h.server.tokenFor('admin@sunrise.example');
  });
  after(async () => {
    await h?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('a file open for writing stays through an unpin, and the save through its handle goes up', async () => {
    assert.equal((await h.local('POST', syncPaths.pinProject(1, UNPINNED_LATER), { pinned: true })).status, 200);
    const open = await attach(UNPINNED_LATER, 'bytes a program will have open', 'Held open');
    const clean = await attach(UNPINNED_LATER, 'bytes nobody has open', 'Nobody has it');
    await settleFolders(h);
    const folder = folderOfProject(root, UNPINNED_LATER);
    const openPath = await waitFor('the file to arrive', () => mappedPath(h, folder, open.id));
    const cleanPath = await waitFor('the other file to arrive', () => mappedPath(h, folder, clean.id));
    assert.ok(fs.existsSync(openPath) && fs.existsSync(cleanPath));

    // A program opens it read-write, with no lock file beside it.
    const handle = fs.openSync(openPath, 'r+');
    try {
      assert.equal((await h.local('POST', syncPaths.pinProject(1, UNPINNED_LATER), { pinned: false })).status, 200);
      await waitFor('the file nobody has open to be evicted', () => !fs.existsSync(cleanPath));
      await settleFolders(h);
      assert.equal(fs.existsSync(openPath), true, 'the file open for writing is still in its folder');
      const held = filesBelow(agentEvictedDir(root));
      assert.equal(held.length, 1, `the evicted copy is held, not unlinked: ${held.join(', ')}`);
      assert.equal(sha256Of(fs.readFileSync(path.join(agentEvictedDir(root), held[0]!))), clean.file_hash);

      // The program saves through its open handle.
      const saved = Buffer.from('the program saved this through its handle');
      fs.ftruncateSync(handle, 0);
      fs.writeSync(handle, saved, 0, saved.length, 0);
    } finally {
      fs.closeSync(handle);
    }
    const savedHash = sha256Of('the program saved this through its handle');
    await waitFor('the save to reach the server', async () => ((await h.remote('GET', apiPaths.privateFile(1, open.id))).json as Json).file_hash === savedHash, 30_000);
    await settleFolders(h);
    const where = await bytesEverywhere(h, openPath, open.id);
    assert.deepEqual(where, { disk: savedHash, replica: { hash: savedHash, blobHere: true }, server: { hash: savedHash, bytes: savedHash } });
  });
});
