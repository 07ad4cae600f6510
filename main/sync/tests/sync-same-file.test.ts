// Issue 19, finding 9: the same bytes dropped into one project's folder on two
// computers become one remote file, and deleting it in one folder deletes that one
// file. Two real agents with real project folders (the real watcher on the real
// filesystem), one real server, all on 127.0.0.1. Nothing is faked: the second
// computer's sync is paused (through its API) so both drops happen before either
// knows of the other's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startSyncHarness, type SyncedAgent, type SyncHarness } from '../testing/sync-harness.ts';
import type { AgentOptions } from '../agent.ts';
import type { FolderWatcher } from '../../watch/watcher.ts';
import { projectFolderRecords, watchProjectFolders } from '../../core/agent-folders.ts';
import { makeTempDir, UNTHROTTLED_RATES } from '../../engine/testing/test-server.ts';
import type { ThrottleRates } from '../../../shared/throttle-rates.ts';
import { folderOfProject, settleFolders, sleep, waitFor } from '../../watch/testing/folder-testing.ts';
import { multipartBody, postMultipart } from '../../engine/testing/multipart-upload.ts';
import { sha256, type Json } from '../../core/testing/folder-harness.ts';
import { DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';

const PROJECT = 5;
const withFolder = (root: string): Partial<AgentOptions<FolderWatcher>> => ({
  folders: watchProjectFolders(root, { stabilityWindowMs: 300, pairWindowMs: 1200, reconcileIntervalMs: 500, burstThreshold: 100 }),
  folderRecords: projectFolderRecords,
});

describe('the same bytes dropped into one project on two computers', () => {
  let first: SyncHarness<FolderWatcher>;
  let second: SyncedAgent<FolderWatcher>;
  const firstRoot = makeTempDir('solardesk-folders-first-');
  const secondRoot = makeTempDir('solardesk-folders-second-');
  before(async () => {
    // The server is unthrottled; so is the agents' pacing, or the waits below would spend its budget.
    first = await startSyncHarness({ remoteRates: UNTHROTTLED_RATES as ThrottleRates, agent: withFolder(firstRoot) });
    second = await first.addAgent(DEMO_USERS.sunriseAdmin, withFolder(secondRoot));
    await settleFolders(first);
    await settleFolders(second);
  });
  after(async () => {
    await first.close();
    fs.rmSync(firstRoot, { recursive: true, force: true });
    fs.rmSync(secondRoot, { recursive: true, force: true });
  });

  const remoteFilesWithHash = async (hash: string): Promise<Json[]> =>
    ((await first.remote('GET', `${apiPaths.privateFiles(1)}?search=${hash}&limit=100`)).json as Json[]).filter((file) => file.file_hash === hash);
  const secondsFilesWithHash = (hash: string) => second.agent.engine.context.db.selectFrom('private_files').selectAll().where('file_hash', '=', hash).execute();
  const sameBytesIn = (folder: string, bytes: Buffer) => fs.readdirSync(folder).filter((name) => fs.readFileSync(path.join(folder, name)).equals(bytes));

  test('end as one remote file; deleted in one folder, it is deleted remotely and leaves the other folder', async () => {
    const bytes = Buffer.from('%PDF-1.4\nthe same site survey, on two laptops\n%%EOF\n');
    const hash = sha256(bytes);
    assert.equal((await second.local('POST', '/api/orgs/1/sync/pause/')).status, 200);
    fs.writeFileSync(path.join(folderOfProject(firstRoot, PROJECT), 'survey.pdf'), bytes);
    fs.writeFileSync(path.join(folderOfProject(secondRoot, PROJECT), 'survey copy.pdf'), bytes);
    await waitFor('the first computer to upload it', async () => (await remoteFilesWithHash(hash)).length === 1);
    await waitFor('the second computer to attach it locally', async () => (await secondsFilesWithHash(hash)).length === 1);
    assert.equal((await second.local('POST', '/api/orgs/1/sync/resume/')).status, 200);
    await settleFolders(second);
    await settleFolders(first);

    const remote = await remoteFilesWithHash(hash);
    assert.equal(remote.length, 1, 'one remote file');
    const [local] = await secondsFilesWithHash(hash);
    assert.equal(local!.id, remote[0]!.id, "the second computer's file is linked to it");
    assert.deepEqual(sameBytesIn(folderOfProject(secondRoot, PROJECT), bytes), ['survey copy.pdf'], 'and its folder still shows it once');

    fs.rmSync(path.join(folderOfProject(firstRoot, PROJECT), 'survey.pdf'));
    const held = await waitFor('the delete to be held', async () =>
      ((await first.local('GET', '/api/orgs/1/sync/pending/')).json as Json[]).find((row) => row.status === 'held' && row.record_id === remote[0]!.id),
    );
    assert.equal((await first.local('POST', syncPaths.confirmPending(1, held.id))).status, 200);
    await settleFolders(first);
    assert.equal((await remoteFilesWithHash(hash)).length, 0, 'the one remote file is deleted');

    // The second computer notices the deletion at its next sweep, and its unchanged copy goes to its trash.
    await second.agent.context.db.updateTable('sync_state').set({ value: '0' }).where('key', '=', 'pull_count').execute();
    await settleFolders(second);
    await waitFor('the copy to leave the second folder', () => sameBytesIn(folderOfProject(secondRoot, PROJECT), bytes).length === 0);
    const trash = path.join(secondRoot, '.solardesk', 'trash');
    assert.ok(fs.readdirSync(trash, { recursive: true }).map(String).some((entry) => entry.endsWith('survey copy.pdf')), 'kept in its trash');
    await settleFolders(second);
    assert.equal((await remoteFilesWithHash(hash)).length, 0, 'not uploaded again');
  });

  /**
   * Each computer's lookup by `hash` waits at the proxy until the other's has arrived,
   * so both are answered "none" before either create lands: both create. Returns
   * whether both lookups have come.
   */
  const raceTheLookups = (hash: string): (() => boolean) => {
    let looked = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    first.proxy.addRule({
      method: 'GET',
      path: /\/private_files\/$/,
      query: new RegExp(`search=${hash}`),
      times: 2,
      action: {
        kind: 'hook',
        run: async () => {
          if (++looked === 2) release();
          await Promise.race([released, sleep(20_000)]);
        },
      },
    });
    return () => looked === 2;
  };
  const creates = () => first.proxy.count('POST', /\/private_files\/$/);
  const deletes = () => first.proxy.count('DELETE', /\/private_files\/\d+\/$/);
  const remoteCopiesInProject = async (hash: string) => (await remoteFilesWithHash(hash)).filter((file) => String(file.project).endsWith(`/projects/${PROJECT}/`));
  const marksOf = (side: SyncHarness | SyncedAgent) => side.agent.context.db.selectFrom('sync_state').select('key').where('key', 'like', 'folder_copy:%').execute();

  const twinMarksOf = (side: SyncHarness | SyncedAgent) => side.agent.context.db.selectFrom('sync_state').select('key').where('key', 'like', 'folder_twin:%').execute();

  /** Both settled, a few rounds over, with no sweep: what a replica pulled stays unless something removes it. */
  const settleBeforeAnySweep = async () => {
    for (const side of [first, second]) await side.agent.context.db.updateTable('sync_state').set({ value: '1' }).where('key', '=', 'pull_count').execute();
    for (let round = 0; round < 2; round++) {
      await settleFolders(first);
      await settleFolders(second);
    }
  };

  /** Both settled, then a sweep on each (a copy deleted on the remote leaves a replica that had pulled it at its next sweep). */
  const settleBoth = async () => {
    for (let round = 0; round < 2; round++) {
      await settleFolders(first);
      await settleFolders(second);
    }
    for (const side of [first, second]) await side.agent.context.db.updateTable('sync_state').set({ value: '0' }).where('key', '=', 'pull_count').execute();
    await settleFolders(first);
    await settleFolders(second);
  };

  const assertOneFile = async (hash: string, bytes: Buffer, names: readonly [string, string]) => {
    const remote = await remoteCopiesInProject(hash);
    assert.equal(remote.length, 1, 'one remote file with those bytes in the project');
    for (const [index, side] of [first, second].entries()) {
      const root = index === 0 ? firstRoot : secondRoot;
      assert.deepEqual(sameBytesIn(folderOfProject(root, PROJECT), bytes), [names[index]], 'each folder shows it once, under its own name');
      const records = await side.agent.context.db.selectFrom('private_files').select('id').where('file_hash', '=', hash).execute();
      assert.deepEqual(records.map((record) => record.id), [remote[0]!.id], 'each replica has one record: the remote file');
      assert.deepEqual((await side.local('GET', '/api/orgs/1/sync/pending/')).json, [], 'nothing held, parked or waiting');
      assert.deepEqual(await marksOf(side), [], 'no race check left');
    }
  };

  test('dropped at once on two running computers, both create it: they agree on one remote file', async () => {
    const bytes = Buffer.from('%PDF-1.4\nthe roof photos, dropped on both laptops at once\n%%EOF\n');
    const hash = sha256(bytes);
    const bothLooked = raceTheLookups(hash);
    const [createsBefore, deletesBefore] = [creates(), deletes()];
    try {
      fs.writeFileSync(path.join(folderOfProject(firstRoot, PROJECT), 'roof.pdf'), bytes);
      fs.writeFileSync(path.join(folderOfProject(secondRoot, PROJECT), 'roof (laptop).pdf'), bytes);
      await waitFor('both computers to look for it before either created it', bothLooked, 30_000);
      await settleBeforeAnySweep();
      // A replica that pulled the other computer's copy before it was deleted drops it at once, not at its next sweep.
      for (const side of [first, second]) {
        const records = await side.agent.context.db.selectFrom('private_files').select('id').where('file_hash', '=', hash).execute();
        assert.equal(records.length, 1, 'each replica has one record with those bytes, before any sweep');
        assert.deepEqual(await twinMarksOf(side), [], 'no twin left to look at');
      }
      await settleBoth();
    } finally {
      first.proxy.clearRules();
    }
    assert.equal(creates() - createsBefore, 2, 'the race happened: both computers created it');
    assert.equal(deletes() - deletesBefore, 1, 'the copy that was not chosen was deleted by the computer that made it');
    await assertOneFile(hash, bytes, ['roof.pdf', 'roof (laptop).pdf']);
  });

  test('a race check cut off after both creates (the remote busy, then a restart) is settled at the next cycle', async () => {
    const bytes = Buffer.from('%PDF-1.4\nthe wiring diagram, dropped on both laptops at once\n%%EOF\n');
    const hash = sha256(bytes);
    const bothLooked = raceTheLookups(hash);
    // The check after each create is refused for a while: as if each computer had been killed right after its create.
    first.proxy.addRule({
      method: 'GET',
      path: /\/private_files\/$/,
      query: new RegExp(`search=${hash}`),
      times: 2,
      action: { kind: 'status', status: 429, body: { detail: 'Request was throttled.' }, headers: { 'retry-after': '6' } },
    });
    try {
      fs.writeFileSync(path.join(folderOfProject(firstRoot, PROJECT), 'wiring.pdf'), bytes);
      fs.writeFileSync(path.join(folderOfProject(secondRoot, PROJECT), 'wiring (laptop).pdf'), bytes);
      await waitFor('both computers to look for it before either created it', bothLooked, 30_000);
      await waitFor('both to have created it, each with its check still due', async () => (await marksOf(first)).length === 1 && (await marksOf(second)).length === 1, 30_000);
      assert.equal((await remoteCopiesInProject(hash)).length, 2, 'two copies for now');
      await first.restartAgent(); // only the mark in its store carries the check over
      await settleBoth();
    } finally {
      first.proxy.clearRules();
    }
    await assertOneFile(hash, bytes, ['wiring.pdf', 'wiring (laptop).pdf']);
  });

  test('the same bytes uploaded twice through the app stay two files: an explicit upload is never merged', async () => {
    const bytes = Buffer.from('%PDF-1.4\nuploaded on purpose, twice\n%%EOF\n');
    // Sync waits until the watcher has written both into the project's folder: an upload
    // placed in a folder is still no file dropped there (on a busy machine the folder
    // copies were written before the creates went up, and the second upload was merged).
    assert.equal((await second.local('POST', '/api/orgs/1/sync/pause/')).status, 200);
    for (const title of ['quote v1.pdf', 'quote v1 (signed).pdf']) {
      const body = multipartBody({ title, project: '6' }, { fileName: title, contents: bytes });
      assert.equal((await postMultipart(`${second.agent.localApiUrl}${apiPaths.privateFiles(1)}`, second.agent.localToken, body)).status, 201);
    }
    await waitFor('both uploads in the project folder', () => sameBytesIn(folderOfProject(secondRoot, 6), bytes).length === 2);
    assert.equal((await second.local('POST', '/api/orgs/1/sync/resume/')).status, 200);
    await settleFolders(second);
    const titles = (await remoteFilesWithHash(sha256(bytes))).map((file) => file.title).sort();
    assert.deepEqual(titles, ['quote v1 (signed).pdf', 'quote v1.pdf']);
  });
});
