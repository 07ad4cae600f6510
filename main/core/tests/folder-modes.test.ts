// Project folders in every mode the app runs (issue 14), through the main-process
// core as the desktop and browser mode run it: the embedded store, and signed in to
// a real demo server through the real sync agent. Real filesystem, real watcher
// (300 ms stability window), real HTTP; nothing is faked. The same scenario runs in
// both modes: files already in a project folder when watching starts are attached
// and the status says what was left and why; a file written slowly is attached once;
// held deletes are listed, survive a restart (embedded) or a sign-out and sign-in
// (synced), and both Restore and Confirm work.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { BridgeEnvelope, RecordsChanged, SessionInfo, SignOutAnswer } from '../../../shared/bridge.ts';
import type { FolderStatusJson } from '../../../shared/schemas/folder.ts';
import type { PendingChangeJson } from '../../../shared/schemas/sync.ts';
import type { PrivateFileJson } from '../../../shared/schemas/private-file.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';
import { type AppCore, startAppCore } from '../app-core.ts';
import { createSyncAgentHost } from '../agent-backend.ts';
import { defaultSettings, fileSettingsStore } from '../host-stores.ts';
import { EMBEDDED_WORKSPACE_FOLDER } from '../folder-session.ts';
import { projectFolderName } from '../../watch/folder-names.ts';
import { makeTempDir, startTestServer, type TestServer } from '../../engine/testing/test-server.ts';
import { DEMO_PASSWORD } from '../../engine/seed/demo-seed.ts';
import { waitFor, writeSlowly } from '../../watch/testing/folder-testing.ts';

const ORG = 1;
const PROJECT = 7;
const ADMIN = 'admin@sunrise.example';

const ok = <T>(envelope: BridgeEnvelope<unknown>): T => {
  if (!envelope.ok) assert.fail(`expected ok, got ${JSON.stringify(envelope.error)}`);
  return envelope.response as T;
};

async function api<T>(core: AppCore, method: 'GET' | 'POST', apiPath: string, query?: Record<string, string | number>): Promise<{ status: number; body: T }> {
  return ok<{ status: number; body: T }>(await core.invoke('api.request', { method, path: apiPath, query }));
}

const filesOfProject = async (core: AppCore) => (await api<PrivateFileJson[]>(core, 'GET', apiPaths.privateFiles(ORG), { project: PROJECT, limit: 1000 })).body;
const folderStatus = async (core: AppCore) => (await api<FolderStatusJson>(core, 'GET', syncPaths.folder(ORG))).body;
const heldDeletes = async (core: AppCore) => (await api<PendingChangeJson[]>(core, 'GET', syncPaths.pending(ORG))).body.filter((row) => row.status === 'held');

interface ModeSetup {
  mode: 'embedded' | 'synced';
  /** Where this mode keeps the project folders under a Settings folder root. */
  workspaceOf(folderRoot: string): string;
  /** Starts watching `folderRoot` in this mode (a folder root just chosen; the first sign-in). */
  startWatching(core: AppCore, folderRoot: string): Promise<void>;
  /** What the user does between holding a delete and deciding: restart the app (embedded), or sign out and in (synced). */
  interrupt(core: AppCore): Promise<AppCore>;
  /** The file is gone wherever this mode keeps it (locally; on the remote too when synced). */
  isGoneEverywhere(fileId: number): Promise<boolean>;
}

function folderScenario(prefix: string, setupFor: (dataDir: string, remote: () => TestServer | null, startCore: () => Promise<AppCore>) => ModeSetup, withRemote: boolean): void {
  const dataDir = makeTempDir(prefix);
  let remote: TestServer | null = null;
  let core: AppCore;
  let setup: ModeSetup;
  let projectFolder: string;
  const changes: RecordsChanged[] = [];
  const startCore = async () => {
    const started = await startAppCore({
      dataDir,
      settings: fileSettingsStore(path.join(dataDir, 'settings.json'), defaultSettings(path.join(dataDir, 'first-root'))),
      openFolder: async () => false,
      syncAgent: withRemote ? createSyncAgentHost({ pollIntervalSeconds: 1 }) : undefined,
      projectFolders: { stabilityWindowMs: 300, pairWindowMs: 1200, reconcileIntervalMs: 500 },
    });
    started.events.subscribe('records.changed', (change) => changes.push(change));
    return started;
  };

  before(async () => {
    if (withRemote) remote = await startTestServer();
    core = await startCore();
    setup = setupFor(dataDir, () => remote, startCore);
  });
  after(async () => {
    await core?.close();
    await remote?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('files already in a project folder when watching starts are attached; the status says what was left and why', async () => {
    const project = (await api<{ id: number; title: string; identifier: string }>(core, 'GET', apiPaths.project(ORG, PROJECT))).body;
    const root = path.join(dataDir, 'chosen-root');
    const workspace = setup.workspaceOf(root);
    projectFolder = path.join(workspace, projectFolderName(project));
    fs.mkdirSync(projectFolder, { recursive: true });
    fs.writeFileSync(path.join(projectFolder, 'already here.txt'), `present before watching (${setup.mode})`);
    fs.writeFileSync(path.join(projectFolder, '~$contract.docx'), 'an Office owner file');
    fs.writeFileSync(path.join(workspace, 'loose.txt'), 'directly in the root');

    await setup.startWatching(core, root);

    const attached = await waitFor('the file present before watching to be attached', async () => (await filesOfProject(core)).find((file) => file.title === 'already here.txt'), 60_000);
    assert.equal(attached.filesize, Buffer.byteLength(`present before watching (${setup.mode})`));
    // The open views hear of it from the engine's change feed.
    await waitFor('records.changed for the project', () => changes.some((change) => change.kinds.includes('private_files') && change.projectIds.includes(PROJECT)));
    const status = await waitFor('the status to list what was left', async () => {
      const answer = await folderStatus(core);
      // The note of the attach follows its commit, so the API may show the file a moment before the status says so.
      if (!answer.enabled) return null;
      const noted = answer.recent.some((line) => line.includes('already here.txt: attached'));
      return noted && answer.ignored.length > 0 && answer.outside.some((entry) => entry.path === 'loose.txt') ? answer : null;
    });
    assert.equal(status.root, workspace);
    assert.equal(status.state, 'watching');
    const folderName = path.basename(projectFolder);
    assert.ok(status.ignored.some((entry) => entry.path === `${folderName}/~$contract.docx` && /Office/i.test(entry.reason)), JSON.stringify(status.ignored));
    assert.ok(!status.outside.some((entry) => entry.path.startsWith(`${folderName}/`)), `nothing in the project's folder is "outside": ${JSON.stringify(status.outside)}`);
    assert.equal((await filesOfProject(core)).filter((file) => file.title === '~$contract.docx').length, 0);
  });

  test('a file written slowly is attached once, when complete', async () => {
    const file = path.join(projectFolder, 'slow survey.bin');
    // 16 chunks 100 ms apart: longer than the window in all, never a pause as long as it.
    const bytes = await writeSlowly(file, 16, 4096, 100);
    const attached = await waitFor('the slow file to be attached', async () => (await filesOfProject(core)).find((candidate) => candidate.title === 'slow survey.bin'), 60_000);
    assert.equal(attached.filesize, bytes.length);
    await waitFor('the watcher to be quiet', async () => {
      const status = await folderStatus(core);
      return status.enabled && status.quiet;
    });
    assert.equal((await filesOfProject(core)).filter((candidate) => candidate.title === 'slow survey.bin').length, 1, 'attached once');
  });

  test('held deletes are listed, survive what happens before the user decides, and Restore and Confirm both work', async () => {
    // Synced: the files have reached the remote (and taken its ids) before anything is held.
    await waitFor('nothing waiting to go out', () => (core.events.latestOf('sync.state')?.pending ?? 0) === 0 && core.events.latestOf('sync.state')?.state !== 'syncing', 60_000);
    const files = await filesOfProject(core);
    const kept = files.find((file) => file.title === 'already here.txt')!;
    const dropped = files.find((file) => file.title === 'slow survey.bin')!;
    fs.rmSync(path.join(projectFolder, 'already here.txt'));
    fs.rmSync(path.join(projectFolder, 'slow survey.bin'));
    await waitFor('both deletions held', async () => (await heldDeletes(core)).length === 2, 30_000);
    await waitFor('sync.state to count them', () => core.events.latestOf('sync.state')?.heldDeletes === 2);

    core = await setup.interrupt(core);

    const held = await waitFor('the holds after the interruption', async () => {
      const rows = await heldDeletes(core);
      return rows.length === 2 ? rows : null;
    }, 60_000);
    await waitFor('sync.state to count them again', () => core.events.latestOf('sync.state')?.heldDeletes === 2, 60_000);
    const holdOf = (fileId: number) => held.find((row) => row.record_id === fileId)!;

    const restored = await api<{ file_id: number }>(core, 'POST', syncPaths.restorePending(ORG, holdOf(kept.id).id));
    assert.equal(restored.status, 200);
    await waitFor('the restored file back in its folder', () => fs.existsSync(path.join(projectFolder, 'already here.txt')), 30_000);
    assert.equal(fs.readFileSync(path.join(projectFolder, 'already here.txt'), 'utf8'), `present before watching (${setup.mode})`);

    const confirmed = await api<{ file_id: number; deleted: boolean }>(core, 'POST', syncPaths.confirmPending(ORG, holdOf(dropped.id).id));
    assert.deepEqual([confirmed.status, confirmed.body.deleted], [200, true]);
    await waitFor('the confirmed file gone everywhere', () => setup.isGoneEverywhere(dropped.id), 60_000);
    assert.ok((await filesOfProject(core)).some((file) => file.id === kept.id), 'the restored file is still attached');
    assert.ok(!(await filesOfProject(core)).some((file) => file.id === dropped.id));
    await waitFor('nothing held, nothing left waiting', async () => (await api<PendingChangeJson[]>(core, 'GET', syncPaths.pending(ORG))).body.length === 0, 60_000);
    await waitFor('sync.state to count none', () => core.events.latestOf('sync.state')?.heldDeletes === 0);
  });
}

describe('project folders on the embedded store', () => {
  folderScenario(
    'solardesk-folders-embedded-',
    (_dataDir, _remote, startCore) => {
      let current: AppCore | null = null;
      return {
        mode: 'embedded',
        workspaceOf: (folderRoot) => path.join(folderRoot, EMBEDDED_WORKSPACE_FOLDER),
        async startWatching(core, folderRoot) {
          current = core;
          const session = ok<{ folderRoot: string }>(await core.invoke('settings.set', { folderRoot }));
          assert.equal(session.folderRoot, folderRoot);
          const info = ok<SessionInfo>(await core.invoke('session.get', undefined));
          assert.equal(info.projectFoldersRoot, path.join(folderRoot, EMBEDDED_WORKSPACE_FOLDER));
        },
        async interrupt(core) {
          await core.close();
          current = await startCore();
          return current;
        },
        async isGoneEverywhere(fileId) {
          const answer = await api<unknown>(current!, 'GET', apiPaths.privateFile(ORG, fileId));
          return answer.status === 404;
        },
      };
    },
    false,
  );
});

describe('project folders signed in to a remote', () => {
  folderScenario(
    'solardesk-folders-synced-',
    (_dataDir, remote) => {
      let current: AppCore | null = null;
      const signIn = async (core: AppCore) => {
        const session = ok<SessionInfo>(await core.invoke('auth.signIn', { remoteUrl: remote()!.baseUrl, username: ADMIN, password: DEMO_PASSWORD }));
        assert.equal(session.mode, 'synced');
      };
      return {
        mode: 'synced',
        workspaceOf: (folderRoot) => folderRoot,
        async startWatching(core, folderRoot) {
          current = core;
          // The root is chosen while on the embedded store (whose folders go in "On this computer"), then the first sign-in.
          ok(await core.invoke('settings.set', { folderRoot }));
          await signIn(core);
          const info = ok<SessionInfo>(await core.invoke('session.get', undefined));
          assert.equal(info.projectFoldersRoot, folderRoot);
          // The embedded store's folder in the synced root is never a project's.
          const status = await waitFor('the synced watcher to report the embedded folder', async () => {
            const answer = await folderStatus(core);
            return answer.enabled && answer.outside.some((entry) => entry.path === `${EMBEDDED_WORKSPACE_FOLDER}/`) ? answer : null;
          }, 60_000);
          assert.ok(!status.outside.some((entry) => entry.path.startsWith(`${EMBEDDED_WORKSPACE_FOLDER}/`) && entry.path !== `${EMBEDDED_WORKSPACE_FOLDER}/`));
        },
        async interrupt(core) {
          // Held deletes wait: signing out asks first (app-core-synced.test.ts), so this sign-out says yes.
          const out = ok<SignOutAnswer>(await core.invoke('auth.signOut', { confirm: true }));
          assert.equal(out.outcome === 'signed_out' && out.session.mode, 'embedded');
          // The embedded store holds no holds of the synced workspace's folders.
          assert.equal((await heldDeletes(core)).length, 0);
          await signIn(core);
          return core;
        },
        async isGoneEverywhere(fileId) {
          const local = await api<unknown>(current!, 'GET', apiPaths.privateFile(ORG, fileId));
          const token = await remote()!.tokenFor(ADMIN);
          const onRemote = await remote()!.request('GET', apiPaths.privateFile(ORG, fileId), { token });
          return local.status === 404 && onRemote.status === 404;
        },
      };
    },
    true,
  );
});
