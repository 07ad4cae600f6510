// The main-process core signed in to a real `solardesk server` (the test server)
// through the real sync agent, on a real temp data folder: sign-in and sign-out,
// views following the engine's change events, folder copies and downloads, and
// versions kept on this computer. The embedded core is main/app-core.test.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { SessionInfo, SignOutAnswer } from '../shared/bridge.ts';
import type { AppCore } from './core/app-core.ts';
import type { TestServer } from './engine/testing/test-server.ts';
import { DEMO_PASSWORD } from './engine/seed/demo-seed.ts';
import { multipartBody, postMultipart } from './engine/testing/multipart-upload.ts';
import { apiPaths } from '../shared/api-paths.ts';
import sharp from 'sharp';
import { collect, ok, until, untilFirstSync, withRemoteAndCore } from './core/testing/app-core-testing.ts';

describe('app core, signed in to a remote through the sync agent', () => {
  const started = withRemoteAndCore('solardesk-core-synced-', 1);
  let remote: TestServer;
  let core: AppCore;
  before(() => {
    remote = started.remote();
    core = started.core();
  });

  test('a wrong password fails with the reason and leaves the embedded store running', async () => {
    const refused = await core.invoke('auth.signIn', { remoteUrl: remote.baseUrl, username: 'admin@sunrise.example', password: 'wrong' });
    assert.equal(refused.ok, false);
    assert.match(!refused.ok ? refused.error.message : '', /Sign-in failed: .*refused that username and password/);
    // The user's to fix, not the app's failure: its own code, so browser mode answers 4xx, not 500.
    assert.equal(!refused.ok && refused.error.code, 'sign_in_failed');
    const session = ok<SessionInfo>(await core.invoke('session.get', undefined));
    assert.equal(session.mode, 'embedded');
    assert.equal(session.remoteUrl, null);
  });

  test('signing in starts the agent: the session is synced, edits reach the remote, signing out returns to the embedded store', async () => {
    const changed = collect(core, 'session.changed');
    const session = ok<SessionInfo>(await core.invoke('auth.signIn', { remoteUrl: remote.baseUrl, username: 'admin@sunrise.example', password: DEMO_PASSWORD }));
    assert.equal(session.mode, 'synced');
    assert.equal(session.remoteUrl, remote.baseUrl);
    assert.equal(session.orgId, 1);
    await untilFirstSync(core);
    // The user's name, not the email they signed in with: it comes with their role in the first pull, and the views hear of it.
    await until(() => changed.some((info) => info.mode === 'synced' && info.user.displayName === 'Alex Morgan'), 'a session.changed with the name');
    const named = ok<SessionInfo>(await core.invoke('session.get', undefined));
    assert.deepEqual(named.user, { id: session.user.id, email: 'admin@sunrise.example', displayName: 'Alex Morgan' });
    assert.equal(named.isAdmin, true);

    const replicaList = ok<{ body: unknown[] }>(await core.invoke('api.request', { method: 'GET', path: '/api/orgs/1/projects/', query: { limit: 100 } }));
    assert.equal(replicaList.body.length, 48);
    ok(await core.invoke('api.request', { method: 'PATCH', path: '/api/orgs/1/projects/9/', body: { notes: 'From the synced desktop' } }));
    const token = await remote.tokenFor('admin@sunrise.example');
    await until(async () => (await remote.request('GET', '/api/orgs/1/projects/9/', { token })).json.notes === 'From the synced desktop', 'the edit on the remote');
    const status = ok<{ status: number; body: { pending: number } }>(await core.invoke('api.request', { method: 'GET', path: '/api/orgs/1/sync/status/' }));
    assert.equal(status.status, 200);

    await until(() => core.events.latestOf('sync.state')?.pending === 0, 'nothing left to push');
    const signedOut = ok<SignOutAnswer>(await core.invoke('auth.signOut', undefined));
    assert.equal(signedOut.outcome === 'signed_out' && signedOut.session.mode, 'embedded');
    assert.equal(core.events.latestOf('sync.state')?.state, 'local_only');
  });
});

describe('app core, synced: views follow the engine’s change events, not a poll', () => {
  // Polls once an hour: nothing this test waits for may come from a timer.
  const started = withRemoteAndCore('solardesk-core-events-', 3600);
  let remote: TestServer;
  let core: AppCore;
  before(() => {
    remote = started.remote();
    core = started.core();
  });

  test('a write through the local API and a change a pull brings each reach records.changed, and sync.state follows', async () => {
    ok(await core.invoke('auth.signIn', { remoteUrl: remote.baseUrl, username: 'admin@sunrise.example', password: DEMO_PASSWORD }));
    await untilFirstSync(core);
    const changes = collect(core, 'records.changed');
    const states = collect(core, 'sync.state');

    // Someone edits project 10 on the remote; the next cycle's pull brings it down.
    const token = await remote.tokenFor('admin@sunrise.example');
    assert.equal((await remote.request('PATCH', '/api/orgs/1/projects/10/', { token, body: { title: 'Renamed on the remote' } })).status, 200);
    // A local write: announced at once, and it wakes the sync loop (pull first, then push).
    // What the first sync's pull changed last may still be gathered (core-runtime.ts,
    // gatherPulledChanges): it is told first, then the local write.
    ok(await core.invoke('api.request', { method: 'PATCH', path: '/api/orgs/1/projects/9/', body: { notes: 'Written on this desktop' } }));
    assert.deepEqual(changes.at(-1), { kinds: ['projects'], projectIds: [9], source: 'local' });
    assert.deepEqual(
      changes.slice(0, -1).map((change) => change.source),
      changes.slice(0, -1).map(() => 'sync'),
      'only gathered pulled changes come before the local write',
    );

    await until(() => changes.some((change) => change.source === 'sync' && change.projectIds.includes(10)), 'the pulled change announced');
    const pulled = ok<{ body: { title: string } }>(await core.invoke('api.request', { method: 'GET', path: '/api/orgs/1/projects/10/' }));
    assert.equal(pulled.body.title, 'Renamed on the remote');
    // The sync state went through the push and came back to synced with nothing pending, told as it happened.
    await until(() => core.events.latestOf('sync.state')?.state === 'synced' && core.events.latestOf('sync.state')?.pending === 0, 'synced again');
    assert.ok(states.some((state) => state.state === 'syncing' || state.pending > 0), 'the cycle was reported');
  });
});

describe('app core, synced: folder copies and downloads keep extensions, in the watcher’s folders', () => {
  const started = withRemoteAndCore('solardesk-core-names-', 1);
  let remote: TestServer;
  let core: AppCore;
  before(() => {
    remote = started.remote();
    core = started.core();
  });

  test('a file attached on the remote arrives as "<title>.jpg" (known only by its bytes), and its download is that very file', async () => {
    // The folder root the user chose in Settings (a missing root is a drive not mounted: the watcher waits for it).
    const root = ok<SessionInfo>(await core.invoke('session.get', undefined)).folderRoot;
    fs.mkdirSync(root, { recursive: true });
    ok(await core.invoke('auth.signIn', { remoteUrl: remote.baseUrl, username: 'admin@sunrise.example', password: DEMO_PASSWORD }));
    await untilFirstSync(core);
    const folderOf = (projectId: number) => fs.readdirSync(root).filter((name) => name.endsWith(` (${projectId})`));

    // Titled without an extension, named without one: the replica knows it only as octet-stream until its bytes arrive.
    const jpeg = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#8ec5ff' } }).jpeg().toBuffer();
    const added = await postMultipart(
      `${remote.baseUrl}${apiPaths.privateFiles(1)}`,
      await remote.tokenFor('admin@sunrise.example'),
      multipartBody({ title: 'Roof, south face', project: '11' }, { fileName: 'IMG_2291', contents: jpeg }),
    );
    assert.equal(added.status, 201);
    await until(() => folderOf(11).length === 1 && fs.existsSync(path.join(root, folderOf(11)[0]!, 'Roof, south face.jpg')), 'the arrival in the project folder', 60_000);
    const folder = path.join(root, folderOf(11)[0]!);
    assert.ok(fs.readFileSync(path.join(folder, 'Roof, south face.jpg')).equals(jpeg));
    assert.ok(!fs.readdirSync(folder).includes('Roof, south face'), 'never without its extension');

    // The app's download of it goes to the watcher's folder and finds the file already there.
    const fileId = added.json.id as number;
    const saved = ok<{ path: string }>(await core.invoke('files.download', { fileId }));
    assert.equal(saved.path, path.join(folder, 'Roof, south face.jpg'));
    assert.equal(folderOf(11).length, 1, 'one folder for the project');
    assert.deepEqual(fs.readdirSync(folder).filter((name) => name.startsWith('Roof, south face')), ['Roof, south face.jpg'], 'one copy');
    ok(await core.invoke('auth.signOut', undefined));
  });
});

describe('app core, synced: versions of a file are kept on this computer', () => {
  const started = withRemoteAndCore('solardesk-core-versions-', 3600);
  let remote: TestServer;
  let core: AppCore;
  before(() => {
    remote = started.remote();
    core = started.core();
  });

  // Only this computer's side: how sync sends new contents to the remote is docs/sync.md's.
  test('on the replica, new contents keep the file, the old ones are listed and restored', async () => {
    ok(await core.invoke('auth.signIn', { remoteUrl: remote.baseUrl, username: 'admin@sunrise.example', password: DEMO_PASSWORD }));
    await untilFirstSync(core);
    ok(await core.invoke('files.upload', { uploadId: 'synced-versioned', projectId: 7, fileName: 'meter.txt', bytes: new TextEncoder().encode('meter reading 1') }));
    // Once pushed, the file takes the remote's id: read it back from the replica.
    await until(() => core.events.latestOf('sync.state')?.state === 'synced' && core.events.latestOf('sync.state')?.pending === 0, 'the upload pushed');
    const listed = ok<{ body: Array<{ id: number; title: string }> }>(await core.invoke('api.request', { method: 'GET', path: apiPaths.privateFiles(1), query: { project: 7 } }));
    const fileId = listed.body.find((file) => file.title === 'meter.txt')!.id;
    const replaced = ok<{ body: { id: number; filesize: number } }>(
      await core.invoke('files.replaceContents', { fileId, fileName: 'meter.txt', bytes: new TextEncoder().encode('meter reading 2, later') }),
    );
    assert.equal(replaced.body.id, fileId);
    const versions = ok<{ status: number; body: Array<{ id: number; filesize: number }> }>(
      await core.invoke('api.request', { method: 'GET', path: apiPaths.privateFileVersions(1, fileId) }),
    );
    assert.equal(versions.status, 200);
    assert.deepEqual(versions.body.map((version) => version.filesize), ['meter reading 1'.length]);
    const restored = ok<{ status: number; body: { id: number; filesize: number } }>(
      await core.invoke('api.request', { method: 'POST', path: apiPaths.privateFileVersionRestore(1, fileId, versions.body[0]!.id) }),
    );
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    assert.deepEqual([restored.body.id, restored.body.filesize], [fileId, 'meter reading 1'.length]);
    // The restore is a change still on its way to the remote: signing out anyway is the user's confirmed choice.
    const signedOut = ok<SignOutAnswer>(await core.invoke('auth.signOut', { confirm: true }));
    assert.equal(signedOut.outcome, 'signed_out');
  });
});
