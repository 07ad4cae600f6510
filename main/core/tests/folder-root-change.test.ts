// Changing the folder root in Settings (issue 28, item 1), through the main-process
// core on the embedded store: real filesystem, real watcher (300 ms window), real
// engine; nothing faked. Moving takes the project folders there with their files
// (across disks when /dev/shm is another filesystem) with no held delete and no new
// file; declining leaves the old folders as they are and makes fresh ones in the new
// root, where the files arrive, again with no held delete.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BridgeEnvelope, FolderMoveProgress, FolderRootChange } from '../../../shared/bridge.ts';
import type { FolderStatusJson } from '../../../shared/schemas/folder.ts';
import type { PendingChangeJson } from '../../../shared/schemas/sync.ts';
import type { PrivateFileJson } from '../../../shared/schemas/private-file.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';
import { type AppCore, startAppCore } from '../app-core.ts';
import { defaultSettings, fileSettingsStore } from '../host-stores.ts';
import { EMBEDDED_WORKSPACE_FOLDER } from '../folder-session.ts';
import { projectFolderName } from '../../watch/folder-names.ts';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { waitFor } from '../../watch/testing/folder-testing.ts';

const ORG = 1;
const PROJECT = 7;

const ok = <T>(envelope: BridgeEnvelope<unknown>): T => {
  if (!envelope.ok) assert.fail(`expected ok, got ${JSON.stringify(envelope.error)}`);
  return envelope.response as T;
};

async function api<T>(core: AppCore, method: 'GET', apiPath: string, query?: Record<string, string | number>): Promise<T> {
  const answer = ok<{ status: number; body: T }>(await core.invoke('api.request', { method, path: apiPath, query }));
  assert.equal(answer.status, 200);
  return answer.body;
}

const filesOfProject = (core: AppCore) => api<PrivateFileJson[]>(core, 'GET', apiPaths.privateFiles(ORG), { project: PROJECT, limit: 1000 });
const heldDeletes = async (core: AppCore) => (await api<PendingChangeJson[]>(core, 'GET', syncPaths.pending(ORG))).filter((row) => row.status === 'held');

/** The watcher on `root` has looked at everything and has nothing left to do (no unlink waiting its pair window either). */
const settledOn = (core: AppCore, root: string) =>
  waitFor(`the watcher settled on ${root}`, async () => {
    const status = await api<FolderStatusJson>(core, 'GET', syncPaths.folder(ORG));
    return status.enabled && status.root === root && status.state === 'watching' && status.quiet && status.last_rescan_at !== null ? status : null;
  }, 60_000);

/** A folder on another filesystem when there is one (the tmpfs at /dev/shm), so the move copies; else beside the rest. */
function otherDiskDir(fallback: string): string {
  const shm = '/dev/shm';
  if (fs.existsSync(shm) && fs.statSync(shm).dev !== fs.statSync(os.tmpdir()).dev) return fs.mkdtempSync(path.join(shm, 'solardesk-root-'));
  return fs.mkdtempSync(path.join(fallback, 'other-'));
}

describe('changing the folder root', () => {
  const dataDir = makeTempDir('solardesk-root-change-');
  const otherDisk = otherDiskDir(dataDir);
  const firstRoot = path.join(dataDir, 'first-root');
  let core: AppCore;
  let folderName: string;
  let attached: PrivateFileJson[];

  before(async () => {
    core = await startAppCore({
      dataDir,
      settings: fileSettingsStore(path.join(dataDir, 'settings.json'), defaultSettings(firstRoot)),
      openFolder: async () => false,
      projectFolders: { stabilityWindowMs: 300, pairWindowMs: 1200, reconcileIntervalMs: 500 },
    });
    const project = await api<{ id: number; title: string; identifier: string }>(core, 'GET', apiPaths.project(ORG, PROJECT));
    folderName = projectFolderName(project);
    const workspace = path.join(firstRoot, EMBEDDED_WORKSPACE_FOLDER);
    await settledOn(core, workspace);
    fs.writeFileSync(path.join(workspace, folderName, 'site survey.txt'), 'measured on site');
    fs.writeFileSync(path.join(workspace, folderName, 'roof.bin'), Buffer.alloc(200_000, 7));
    await waitFor('both files attached', async () => {
      const files = await filesOfProject(core);
      return ['site survey.txt', 'roof.bin'].every((title) => files.some((file) => file.title === title));
    }, 60_000);
    await settledOn(core, workspace);
    attached = await filesOfProject(core);
  });
  after(async () => {
    await core?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(otherDisk, { recursive: true, force: true });
  });

  test('moving takes the project folders there with their files: no held delete, no new file, the old root emptied', async () => {
    const movedRoot = path.join(otherDisk, 'SolarDesk');
    const progress: FolderMoveProgress[] = [];
    const unsubscribe = core.events.subscribe('folders.moveProgress', (step) => progress.push(step));
    const change = ok<FolderRootChange>(await core.invoke('settings.changeFolderRoot', { folderRoot: movedRoot, moveFolders: true }));
    unsubscribe();
    assert.equal(change.settings.folderRoot, movedRoot);
    assert.ok(change.moved && change.moved.files >= 2, JSON.stringify(change.moved));
    assert.equal(progress.at(-1)?.files, progress.at(-1)?.totalFiles, 'progress reached the end');

    const workspace = path.join(movedRoot, EMBEDDED_WORKSPACE_FOLDER);
    await settledOn(core, workspace);
    assert.equal(fs.readFileSync(path.join(workspace, folderName, 'site survey.txt'), 'utf8'), 'measured on site');
    assert.deepEqual(fs.readdirSync(firstRoot), [], 'everything left the old root');
    assert.deepEqual(await heldDeletes(core), [], 'not one delete held');
    assert.deepEqual((await filesOfProject(core)).map((file) => file.id).sort(), attached.map((file) => file.id).sort(), 'the same files, none attached again');
  });

  test('declining leaves the old folders as they are and makes fresh ones, where the files arrive, with no held delete', async () => {
    const movedRoot = path.join(otherDisk, 'SolarDesk');
    const freshRoot = path.join(dataDir, 'fresh-root');
    const change = ok<FolderRootChange>(await core.invoke('settings.changeFolderRoot', { folderRoot: freshRoot, moveFolders: false }));
    assert.equal(change.moved, null);
    const workspace = path.join(freshRoot, EMBEDDED_WORKSPACE_FOLDER);
    await waitFor('the files to arrive in the fresh folder', () => fs.existsSync(path.join(workspace, folderName, 'site survey.txt')), 60_000);
    await waitFor('the other file too', () => fs.readdirSync(path.join(workspace, folderName)).some((name) => name.startsWith('roof')), 60_000);
    await settledOn(core, workspace);
    assert.deepEqual(await heldDeletes(core), [], 'not one delete held');
    assert.equal(fs.readFileSync(path.join(movedRoot, EMBEDDED_WORKSPACE_FOLDER, folderName, 'site survey.txt'), 'utf8'), 'measured on site', 'the old folders are as they were');
    assert.deepEqual((await filesOfProject(core)).map((file) => file.id).sort(), attached.map((file) => file.id).sort());
  });

  test('a move refused (a name already taken there) changes nothing', async () => {
    const settingsBefore = ok<{ folderRoot: string }>(await core.invoke('settings.get', undefined));
    const crowded = path.join(dataDir, 'crowded');
    fs.mkdirSync(path.join(crowded, EMBEDDED_WORKSPACE_FOLDER), { recursive: true });
    const refused = await core.invoke('settings.changeFolderRoot', { folderRoot: crowded, moveFolders: true });
    assert.ok(!refused.ok && /already has "On this computer".*nothing was moved/.test(refused.error.message), JSON.stringify(refused));
    assert.equal(ok<{ folderRoot: string }>(await core.invoke('settings.get', undefined)).folderRoot, settingsBefore.folderRoot);
  });
});

describe('the first start (issue 28, item 2)', () => {
  const dataDir = makeTempDir('solardesk-first-start-');
  const root = path.join(dataDir, 'Documents', 'SolarDesk');
  let core: AppCore;
  before(async () => {
    fs.mkdirSync(path.dirname(root), { recursive: true });
    core = await startAppCore({
      dataDir,
      // As the desktop's first start: a default folder root nobody has chosen yet.
      settings: fileSettingsStore(path.join(dataDir, 'settings.json'), defaultSettings(root, { isFolderRootChosen: false })),
      openFolder: async () => false,
      projectFolders: { stabilityWindowMs: 300, pairWindowMs: 1200, reconcileIntervalMs: 500 },
    });
  });
  after(async () => {
    await core?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('no project folder is made until the user says where; confirming the default starts them there', async () => {
    assert.equal(ok<{ folderRootChosen: boolean }>(await core.invoke('settings.get', undefined)).folderRootChosen, false);
    const status = await api<FolderStatusJson>(core, 'GET', syncPaths.folder(ORG));
    assert.equal(status.enabled, false, 'nothing watched before the answer');
    assert.equal(fs.existsSync(root), false, 'no folder made in the default place before the answer');

    const answered = ok<{ folderRootChosen: boolean; folderRoot: string }>(await core.invoke('settings.set', { folderRootChosen: true }));
    assert.deepEqual([answered.folderRootChosen, answered.folderRoot], [true, root]);
    await settledOn(core, path.join(root, EMBEDDED_WORKSPACE_FOLDER));
    assert.ok(fs.readdirSync(path.join(root, EMBEDDED_WORKSPACE_FOLDER)).some((name) => name.endsWith(`(${PROJECT})`)));
  });

  test('a folder root an earlier version saved counts as chosen', () => {
    const file = path.join(dataDir, 'earlier-settings.json');
    fs.writeFileSync(file, JSON.stringify({ folderRoot: '/srv/projects', theme: 'dark' }));
    assert.equal(fileSettingsStore(file, defaultSettings(root, { isFolderRootChosen: false })).read().folderRootChosen, true);
    fs.writeFileSync(file, JSON.stringify({ theme: 'dark' }));
    assert.equal(fileSettingsStore(file, defaultSettings(root, { isFolderRootChosen: false })).read().folderRootChosen, false);
  });
});
