// The main-process core on a real temp data folder: the embedded engine with the
// demo data, every bridge channel through the real dispatcher, and signing in to
// a real `solardesk server` (the test server) through the real sync agent. Only
// the folder opener is a recording stand-in for the operating system's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { BridgeEnvelope, BridgeEventChannels, EventChannel, SessionInfo, SignOutAnswer } from '../shared/bridge.ts';
import { type AppCore, describeChanges, startAppCore } from './core/app-core.ts';
import { byUser, type RecordChangeEvent } from './engine/changes/change-feed.ts';
import { createSyncAgentHost } from './core/agent-backend.ts';
import { defaultSettings, fileSettingsStore } from './core/host-stores.ts';
import { makeTempDir, startTestServer, type TestServer } from './engine/testing/test-server.ts';
import { DEMO_PASSWORD } from './engine/seed/demo-seed.ts';
import { multipartBody, postMultipart } from './engine/testing/multipart-upload.ts';
import { apiPaths } from '../shared/api-paths.ts';
import sharp from 'sharp';
import type { MediaAnswer } from './core/media.ts';
import { nestedXObjectPdf } from './core/testing/hostile-files.ts';
import { mediaPaths } from '../shared/media-paths.ts';

const ok = <T>(envelope: BridgeEnvelope<unknown>): T => {
  if (!envelope.ok) assert.fail(`expected ok, got ${JSON.stringify(envelope.error)}`);
  return envelope.response as T;
};

function collect<C extends EventChannel>(core: AppCore, channel: C): BridgeEventChannels[C][] {
  const seen: BridgeEventChannels[C][] = [];
  core.events.subscribe(channel, (payload) => seen.push(payload));
  return seen;
}

/** The chunked uploads' part files anywhere under a data folder (the engine's `uploads/<id>/<n>.part`). */
function uploadParts(dataDir: string): string[] {
  return fs
    .readdirSync(dataDir, { recursive: true })
    .map(String)
    .filter((name) => name.split(path.sep).includes('uploads') && name.endsWith('.part'));
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The first pull of the demo org (48 projects, their designs and files) is work, not a
 * wait: on a loaded machine it took over 30 s (issue 33). It is given 3 minutes as a
 * guard against a hang, and a state that will not turn into "synced" by itself
 * (needs attention, needs sign-in) fails at once with what the agent said.
 */
async function untilFirstSync(core: AppCore): Promise<void> {
  await until(() => {
    const state = core.events.latestOf('sync.state');
    if (state?.state === 'needs_attention' || state?.state === 'needs_sign_in') assert.fail(`the first sync stopped: ${JSON.stringify(state)}`);
    return state?.state === 'synced';
  }, 'the first sync', 180_000);
}

describe('app core, embedded', () => {
  const dataDir = makeTempDir('solardesk-core-');
  const opened: string[] = [];
  let core: AppCore;
  before(async () => {
    core = await startAppCore({
      dataDir,
      settings: fileSettingsStore(path.join(dataDir, 'desktop-settings.json'), defaultSettings(path.join(dataDir, 'folders'))),
      openFolder: async (folder) => {
        opened.push(folder);
        return true;
      },
    });
  });
  after(async () => {
    await core.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('an empty folder gets the demo data and a session as the demo admin, local only', async () => {
    const session = ok<SessionInfo>(await core.invoke('session.get', undefined));
    assert.equal(session.mode, 'embedded');
    assert.equal(session.orgName, 'Sunrise Solar');
    assert.equal(session.user.email, 'admin@sunrise.example');
    assert.equal(session.isAdmin, true);
    assert.equal(session.remoteUrl, null);
    assert.deepEqual(session.orgs.map((org) => org.name), ['Sunrise Solar', 'Basic Solar']); // Lapsed Solar's trial is over
    assert.equal(core.events.latestOf('sync.state')?.state, 'local_only');
  });

  test('api.request reaches the local API, and a write is announced as records.changed', async () => {
    const changes = collect(core, 'records.changed');
    const list = ok<{ status: number; body: unknown[] }>(await core.invoke('api.request', { method: 'GET', path: '/api/orgs/1/projects/', query: { limit: 100 } }));
    assert.equal(list.status, 200);
    assert.equal(list.body.length, 48);
    const patched = ok<{ status: number; body: { title: string } }>(
      await core.invoke('api.request', { method: 'PATCH', path: '/api/orgs/1/projects/4/', body: { title: 'Renamed by the core test' } }),
    );
    assert.equal(patched.body.title, 'Renamed by the core test');
    assert.deepEqual(changes, [{ kinds: ['projects'], projectIds: [4], source: 'local' }]);
    // The sync routes are the agent's: with no remote they are 404, which the renderer reads as local only.
    const status = ok<{ status: number }>(await core.invoke('api.request', { method: 'GET', path: '/api/orgs/1/sync/status/' }));
    assert.equal(status.status, 404);
  });

  test('requests that break the contract are refused before any handler runs', async () => {
    const outside = await core.invoke('api.request', { method: 'GET', path: '/etc/passwd' });
    assert.equal(!outside.ok && outside.error.code, 'invalid_request');
    const climbing = await core.invoke('api.request', { method: 'GET', path: '/api/../downloads/' });
    assert.equal(!climbing.ok && climbing.error.code, 'invalid_request');
    const unknown = await core.invoke('shell.exec', { command: 'rm -rf /' });
    assert.equal(!unknown.ok && unknown.error.code, 'unknown_channel');
    const extraKeys = await core.invoke('files.download', { fileId: 1, path: '/tmp/x' });
    assert.equal(!extraKeys.ok && extraKeys.error.code, 'invalid_request');
  });

  test('an upload reports progress part by part, lands on the project, and downloads into its folder', async () => {
    const progress = collect(core, 'upload.progress');
    const bytes = new Uint8Array(2.5 * 1024 * 1024).map((_, index) => index % 251);
    const created = ok<{ status: number; body: { id: number; filesize: number; project: string } }>(
      await core.invoke('files.upload', { uploadId: 'test-upload', projectId: 7, fileName: 'survey:photo?.bin', bytes, title: 'Survey photo' }),
    );
    assert.equal(created.status, 201);
    assert.equal(created.body.filesize, bytes.length);
    assert.match(created.body.project, /\/projects\/7\/$/);
    assert.deepEqual(progress.map((event) => [event.state, event.sentBytes]), [
      ['uploading', 0],
      ['uploading', 1024 * 1024],
      ['uploading', 2 * 1024 * 1024],
      ['uploading', bytes.length],
      ['done', bytes.length],
    ]);

    const first = ok<{ path: string; bytes: number }>(await core.invoke('files.download', { fileId: created.body.id }));
    assert.equal(first.bytes, bytes.length);
    assert.match(path.basename(path.dirname(first.path)), /\(7\)$/);
    assert.deepEqual(new Uint8Array(fs.readFileSync(first.path)), bytes);
    // The same bytes again: the same file, not a copy.
    assert.equal(ok<{ path: string }>(await core.invoke('files.download', { fileId: created.body.id })).path, first.path);

    const folder = ok<{ path: string; opened: boolean }>(await core.invoke('folder.open', { projectId: 7 }));
    assert.equal(folder.path, path.dirname(first.path));
    assert.deepEqual(opened, [folder.path]);
  });

  // Issue 25, item 2: the nested-XObject PDF held the main process's thread for over
  // 40 s. Its thumbnail is now drawn in the media worker under the 10 s limit, so the
  // bridge answers throughout. Checked against the drawing itself, not a clock bound
  // (a loaded machine makes any call slow, issue 33): a thread held by the drawing made
  // one call as slow as the whole drawing; now calls keep being answered, each a small
  // part of it. The slowest call is reported (the 200 ms on a quiet machine).
  test('while a hostile PDF is thumbnailed, bridge calls keep being answered, each in a small part of the drawing time; it ends as its icon', async (t) => {
    /** The slowest of `count` session.get calls, 50 ms apart, made until `done()` (bounded by `count`). */
    const slowestCall = async (count: number, done: () => boolean = () => false) => {
      let slowest = 0;
      let calls = 0;
      for (; calls < count && !done(); calls++) {
        const started = performance.now();
        ok<SessionInfo>(await core.invoke('session.get', undefined));
        slowest = Math.max(slowest, performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { slowest, calls };
    };
    const created = ok<{ status: number; body: { id: number; file_hash: string } }>(
      await core.invoke('files.upload', { uploadId: 'hostile-pdf', projectId: 7, fileName: 'nested.pdf', bytes: new Uint8Array(nestedXObjectPdf()), title: 'Nested' }),
    );
    assert.equal(created.status, 201);
    let answered: MediaAnswer | undefined;
    const drawingStarted = performance.now();
    const thumbnail = core.media(mediaPaths.thumbnail(created.body.file_hash)).then((answer) => (answered = answer));
    // Bounded: at most 600 calls (the thumbnail ends within the 10 s limit plus the worker's start).
    const { slowest, calls } = await slowestCall(600, () => answered !== undefined);
    await thumbnail;
    const drawingMs = performance.now() - drawingStarted;
    t.diagnostic(`slowest bridge call ${slowest.toFixed(0)} ms over ${calls} calls while the drawing took ${drawingMs.toFixed(0)} ms`);
    assert.equal(answered!.status, 204, 'no thumbnail');
    assert.equal(answered!.headers['x-thumbnail'], 'none');
    assert.ok(calls > 10, `calls made while it was drawn (${calls})`);
    assert.ok(slowest < drawingMs / 10, `the slowest bridge call took ${slowest.toFixed(0)} ms of the drawing's ${drawingMs.toFixed(0)} ms`);
  });

  test('a demo JPEG titled without an extension downloads as "<title>.jpg" into the folder the watcher keeps, even one the user renamed', async () => {
    const files = ok<{ body: Array<{ id: number; title: string; project: string | null }> }>(
      await core.invoke('api.request', { method: 'GET', path: '/api/orgs/1/private_files/', query: { limit: 100 } }),
    );
    const photo = files.body.find((file) => file.title === 'Roof, north face')!;
    const projectId = Number(/\/projects\/(\d+)\/$/.exec(photo.project!)![1]);
    // "Open project folder" makes the folder by the watcher's rule and records it; the user then renames it.
    const opened = ok<{ path: string }>(await core.invoke('folder.open', { projectId }));
    assert.match(path.basename(opened.path), new RegExp(` \\(${projectId}\\)$`));
    const renamed = path.join(path.dirname(opened.path), 'Roof job, renamed by me');
    fs.renameSync(opened.path, renamed);

    const saved = ok<{ path: string }>(await core.invoke('files.download', { fileId: photo.id }));
    assert.equal(saved.path, path.join(renamed, 'Roof, north face.jpg'));
    assert.deepEqual([...fs.readFileSync(saved.path).subarray(0, 3)], [0xff, 0xd8, 0xff], 'a JPEG');
    assert.equal(ok<{ path: string }>(await core.invoke('folder.open', { projectId })).path, renamed);
    const root = path.dirname(renamed);
    assert.deepEqual(fs.readdirSync(root).filter((name) => name.endsWith(`(${projectId})`)), [], 'no second folder for the project');
    // The watcher may meanwhile place the project's other files in its folder (they arrive on
    // their own schedule, sooner or later on a loaded machine): what must hold is one copy of this
    // file, under its name with the extension.
    assert.deepEqual(fs.readdirSync(renamed).filter((name) => name.startsWith('Roof, north face')), ['Roof, north face.jpg']);
  });

  test('new contents keep the file; the old ones are a version, saved outside the project folders and restored', async () => {
    const created = ok<{ body: { id: number } }>(
      await core.invoke('files.upload', { uploadId: 'versioned', projectId: 7, fileName: 'layout.txt', bytes: new TextEncoder().encode('layout one') }),
    );
    const fileId = created.body.id;
    const changes = collect(core, 'records.changed');
    const replaced = ok<{ status: number; body: { id: number; filesize: number } }>(
      await core.invoke('files.replaceContents', { fileId, fileName: 'layout.txt', bytes: new TextEncoder().encode('layout two, revised') }),
    );
    assert.equal(replaced.body.id, fileId);
    assert.equal(replaced.body.filesize, 'layout two, revised'.length);
    await until(() => changes.length > 0, 'records.changed for the new contents');
    assert.deepEqual(changes[0], { kinds: ['private_files'], projectIds: [7], source: 'local' });

    const versions = ok<{ status: number; body: Array<{ id: number; filesize: number }> }>(
      await core.invoke('api.request', { method: 'GET', path: apiPaths.privateFileVersions(1, fileId) }),
    );
    assert.deepEqual(versions.body.map((version) => version.filesize), ['layout one'.length]);
    const saved = ok<{ path: string; bytes: number }>(await core.invoke('files.downloadVersion', { fileId, versionId: versions.body[0]!.id }));
    assert.equal(fs.readFileSync(saved.path, 'utf8'), 'layout one');
    assert.match(path.basename(saved.path), /^layout \(version \d{4}-\d{2}-\d{2} \d{2}\.\d{2}\)\.txt$/);
    assert.equal(path.basename(path.dirname(path.dirname(saved.path))), '.earlier-versions', 'in a hidden folder the watcher leaves alone');
    assert.match(path.basename(path.dirname(saved.path)), /\(7\)$/, "beside the project's own folder name");

    const restored = ok<{ status: number; body: { filesize: number } }>(
      await core.invoke('api.request', { method: 'POST', path: apiPaths.privateFileVersionRestore(1, fileId, versions.body[0]!.id) }),
    );
    assert.equal(restored.status, 200);
    assert.equal(restored.body.filesize, 'layout one'.length);
    const missing = await core.invoke('files.downloadVersion', { fileId, versionId: 999999 });
    assert.equal(!missing.ok && missing.error.status, 404);
  });


  test('a failed upload says why, with the API status', async () => {
    const failed = await core.invoke('files.upload', { uploadId: 'nowhere', projectId: 999999, fileName: 'x.txt', bytes: new Uint8Array([1]) });
    assert.equal(failed.ok, false);
    assert.equal(!failed.ok && failed.error.status, 400);
    assert.match(!failed.ok ? failed.error.message : '', /Could not start uploading x\.txt/);
  });

  test('a chunked upload fed by the renderer: start, parts, finish attach the file; cancel leaves no file and no part', async () => {
    const bytes = new Uint8Array(2.5 * 1024 * 1024).map((_, index) => index % 241);
    const started = ok<{ uploadId: string; partBytes: number }>(await core.invoke('files.uploadStart', { projectId: 7, fileName: 'drone.bin', size: bytes.length }));
    assert.match(started.uploadId, /^[0-9a-f]{32}$/);
    for (let part = 1; part * started.partBytes < bytes.length + started.partBytes; part++) {
      const slice = bytes.subarray((part - 1) * started.partBytes, part * started.partBytes);
      assert.deepEqual(ok(await core.invoke('files.uploadPart', { uploadId: started.uploadId, fileName: 'drone.bin', part, bytes: slice })), { part, size: slice.length });
    }
    const finished = ok<{ status: number; body: { filesize: number; project: string } }>(await core.invoke('files.uploadFinish', { uploadId: started.uploadId, fileName: 'drone.bin' }));
    assert.equal(finished.status, 201);
    assert.equal(finished.body.filesize, bytes.length);
    assert.match(finished.body.project, /\/projects\/7\/$/);

    const partFiles = () => uploadParts(dataDir);
    const cancelled = ok<{ uploadId: string; partBytes: number }>(await core.invoke('files.uploadStart', { projectId: 7, fileName: 'cancelled.bin', size: bytes.length }));
    ok(await core.invoke('files.uploadPart', { uploadId: cancelled.uploadId, fileName: 'cancelled.bin', part: 1, bytes: bytes.subarray(0, cancelled.partBytes) }));
    assert.equal(partFiles().length, 1);
    assert.deepEqual(ok(await core.invoke('files.uploadCancel', { uploadId: cancelled.uploadId })), { cancelled: true });
    assert.deepEqual(partFiles(), []);
    const late = await core.invoke('files.uploadFinish', { uploadId: cancelled.uploadId, fileName: 'cancelled.bin' });
    assert.equal(!late.ok && late.error.status, 404);
    const files = ok<{ body: Array<{ title: string }> }>(await core.invoke('api.request', { method: 'GET', path: apiPaths.privateFiles(1), query: { project: 7, limit: 1000 } }));
    assert.ok(files.body.some((file) => file.title === 'drone.bin'));
    assert.ok(!files.body.some((file) => file.title === 'cancelled.bin'), 'nothing half-attached');
    const badId = await core.invoke('files.uploadPart', { uploadId: '../../etc', fileName: 'x', part: 1, bytes: new Uint8Array([1]) });
    assert.equal(!badId.ok && badId.error.code, 'invalid_request');
  });

  test('settings persist; another org restarts the session on it; a relative folder root is refused', async () => {
    const changed = collect(core, 'session.changed');
    const settings = ok<{ theme: string; orgId: number }>(await core.invoke('settings.set', { theme: 'dark', orgId: 2 }));
    assert.equal(settings.theme, 'dark');
    const session = ok<SessionInfo>(await core.invoke('session.get', undefined));
    assert.equal(session.orgName, 'Basic Solar');
    assert.equal(session.user.email, 'admin@basic.example');
    assert.equal(changed.at(-1)?.orgId, 2);
    const stored = JSON.parse(fs.readFileSync(path.join(dataDir, 'desktop-settings.json'), 'utf8'));
    assert.equal(stored.theme, 'dark');
    const relative = await core.invoke('settings.set', { folderRoot: 'relative/folder' });
    assert.equal(!relative.ok && relative.error.code, 'invalid_request');
    // Download hosts (issue 34): kept as typed hosts; a URL is refused with what to type, and the saved list stays.
    assert.deepEqual(ok<{ downloadHosts: string[] }>(await core.invoke('settings.set', { downloadHosts: ['Files.Example.com', 'cdn.example.com:8443'] })).downloadHosts, ['files.example.com', 'cdn.example.com:8443']);
    const url = await core.invoke('settings.set', { downloadHosts: ['https://files.example.com/bucket'] });
    assert.equal(!url.ok && url.error.code, 'invalid_request');
    assert.match(!url.ok ? url.error.message : '', /leave out the https:\/\//);
    assert.deepEqual(ok<{ downloadHosts: string[] }>(await core.invoke('settings.get', undefined)).downloadHosts, ['files.example.com', 'cdn.example.com:8443']);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dataDir, 'desktop-settings.json'), 'utf8')).downloadHosts, ['files.example.com', 'cdn.example.com:8443']);
    ok(await core.invoke('settings.set', { orgId: 1, downloadHosts: [] }));
  });

  test('describeChanges names the kinds and the projects of a write', () => {
    const change = (model: RecordChangeEvent['model'], id: number, projectId: number | null): RecordChangeEvent => ({ model, id, op: 'update', orgId: 1, by: byUser(1), projectId });
    assert.deepEqual(describeChanges([change('contact', 9, null)]), { kinds: ['contacts'], projectIds: [], source: 'local' });
    assert.deepEqual(describeChanges([change('event', 3, 12)]), { kinds: ['events'], projectIds: [12], source: 'local' });
    assert.deepEqual(describeChanges([change('project', 5, 5)]), { kinds: ['projects'], projectIds: [5], source: 'local' });
    // A contact belongs to no one project: any open project may show it.
    assert.deepEqual(describeChanges([change('project', 5, 5), change('contact', 9, null)]), { kinds: ['projects', 'contacts'], projectIds: [], source: 'local' });
    assert.deepEqual(describeChanges([{ ...change('private_file', 4, 7), by: { kind: 'sync' } }]), { kinds: ['private_files'], projectIds: [7], source: 'sync' });
    // A project pulled or made here is not yet a row of any list: the whole list is read again.
    assert.deepEqual(describeChanges([{ ...change('project', 60, 60), op: 'create', by: { kind: 'sync' } }]), { kinds: ['projects'], projectIds: [], source: 'sync' });
    assert.deepEqual(describeChanges([{ ...change('project', 60, 60), op: 'delete' }]), { kinds: ['projects'], projectIds: [], source: 'local' });
  });
});

/** A demo server and an app core that can sign in to it, on a data folder of its own; closed after the suite. */
function withRemoteAndCore(folderPrefix: string, pollIntervalSeconds: number): { remote: () => TestServer; core: () => AppCore } {
  const dataDir = makeTempDir(folderPrefix);
  let remote: TestServer;
  let core: AppCore;
  before(async () => {
    remote = await startTestServer();
    core = await startAppCore({
      dataDir,
      settings: fileSettingsStore(path.join(dataDir, 'desktop-settings.json'), defaultSettings(path.join(dataDir, 'folders'))),
      openFolder: async () => false,
      syncAgent: createSyncAgentHost({ pollIntervalSeconds }),
    });
  });
  after(async () => {
    await core.close();
    await remote.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { remote: () => remote, core: () => core };
}

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
    ok(await core.invoke('api.request', { method: 'PATCH', path: '/api/orgs/1/projects/9/', body: { notes: 'Written on this desktop' } }));
    assert.deepEqual(changes[0], { kinds: ['projects'], projectIds: [9], source: 'local' });

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

describe('app core, a small upload limit', () => {
  const dataDir = makeTempDir('solardesk-core-limit-');
  let core: AppCore;
  before(async () => {
    core = await startAppCore({
      dataDir,
      settings: fileSettingsStore(path.join(dataDir, 'desktop-settings.json'), defaultSettings(path.join(dataDir, 'folders'))),
      openFolder: async () => false,
      maxUploadBytes: 1024 * 1024,
    });
  });
  after(async () => {
    await core.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('a file over the limit is refused before a byte is sent, in a sentence that says what to do; parts past it leave nothing behind', async () => {
    const refused = await core.invoke('files.uploadStart', { projectId: 7, fileName: 'scan.pdf', size: 2 * 1024 * 1024 });
    assert.equal(!refused.ok && refused.error.status, 413);
    assert.match(!refused.ok ? refused.error.message : '', /^scan\.pdf was not uploaded: it is too large for this server\. .*at most 1 MiB.* Make it smaller/);

    // The whole-file channel: the engine refuses the declared size too, and says so the same way.
    const whole = await core.invoke('files.upload', { uploadId: 'too-big', projectId: 7, fileName: 'big.bin', bytes: new Uint8Array(1024 * 1024 + 1) });
    assert.match(!whole.ok ? whole.error.message : '', /^big\.bin was not uploaded: it is too large/);

    // A part that passes the limit (the parts' total is checked as they come): refused, and the upload's parts go.
    const started = ok<{ uploadId: string; partBytes: number }>(await core.invoke('files.uploadStart', { projectId: 7, fileName: 'grown.bin', size: 1000 }));
    ok(await core.invoke('files.uploadPart', { uploadId: started.uploadId, fileName: 'grown.bin', part: 1, bytes: new Uint8Array(600 * 1024) }));
    const over = await core.invoke('files.uploadPart', { uploadId: started.uploadId, fileName: 'grown.bin', part: 2, bytes: new Uint8Array(600 * 1024) });
    assert.equal(!over.ok && over.error.status, 413);
    assert.deepEqual(uploadParts(dataDir), []);
    const gone = await core.invoke('files.uploadFinish', { uploadId: started.uploadId, fileName: 'grown.bin' });
    assert.equal(!gone.ok && gone.error.status, 404);
  });
});

describe('app core, documents: made on the local engine for a preview; a copy saved where the save dialog says', () => {
  const dataDir = makeTempDir('solardesk-core-documents-');
  const copies = path.join(dataDir, 'copies');
  // The desktop's save dialog, faked: it answers what the user picked (null: cancelled).
  let picked: string | null = null;
  const offered: string[] = [];
  let desktop: AppCore;
  let browser: AppCore;
  before(async () => {
    const settings = (name: string) => fileSettingsStore(path.join(dataDir, name), defaultSettings(path.join(dataDir, `folders-${name}`)));
    desktop = await startAppCore({
      dataDir: path.join(dataDir, 'desktop'),
      settings: settings('desktop.json'),
      openFolder: async () => false,
      chooseSaveFile: async (fileName) => {
        offered.push(fileName);
        return picked;
      },
    });
    // Browser mode's core, as main/cli/web-command.ts builds it: no save dialog.
    browser = await startAppCore({ dataDir: path.join(dataDir, 'browser'), settings: settings('browser.json'), openFolder: async () => false });
  });
  after(async () => {
    await desktop.close();
    await browser.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test("documents.make answers the PDF's bytes and name; a refusal carries the engine's sentence as it is", async () => {
    const made = ok<{ bytes: Uint8Array; fileName: string; contentType: string }>(await desktop.invoke('documents.make', { projectId: 1, documentType: 'proposal' }));
    assert.equal(made.contentType, 'application/pdf');
    assert.match(made.fileName, /^proposal-[\w-]+\.pdf$/);
    assert.equal(Buffer.from(made.bytes.subarray(0, 5)).toString('latin1'), '%PDF-');
    const csv = ok<{ bytes: Uint8Array; contentType: string }>(await desktop.invoke('documents.make', { projectId: 1, documentType: 'global_bom', fileFormat: 'csv' }));
    assert.equal(csv.contentType, 'text/csv');
    assert.match(new TextDecoder().decode(csv.bytes), /^kind,manufacturer,code,description,quantity/);
    const refused = await desktop.invoke('documents.make', { projectId: 1, documentType: 'proposal', systemUuid: 'not-a-system' });
    assert.equal(!refused.ok && refused.error.status, 400);
    assert.match(!refused.ok ? refused.error.message : '', /^system_uuid: No system of this project has the uuid not-a-system\. Send one of: /);
    const unknown = await desktop.invoke('documents.make', { projectId: 1, documentType: 'owners_brochure' });
    assert.match(!unknown.ok ? unknown.error.message : '', /There is no document type "owners_brochure"/);
  });

  test('documents.saveCopy writes the bytes where the dialog says, writes nothing when cancelled, and is not available in browser mode', async () => {
    const bytes = new TextEncoder().encode('%PDF-1.4\nproposal\n%%EOF\n');
    fs.mkdirSync(copies, { recursive: true });
    picked = path.join(copies, 'Proposal for Zoë.pdf');
    assert.deepEqual(ok(await desktop.invoke('documents.saveCopy', { fileName: '../proposal-sd-0001.pdf', bytes })), { path: picked });
    assert.deepEqual(fs.readFileSync(picked), Buffer.from(bytes));
    assert.equal(offered.at(-1), 'proposal-sd-0001.pdf', 'only a name is offered to the dialog, never a path');
    picked = null;
    assert.deepEqual(ok(await desktop.invoke('documents.saveCopy', { fileName: 'proposal.pdf', bytes })), { path: null });
    assert.deepEqual(fs.readdirSync(copies), ['Proposal for Zoë.pdf']);
    const answered = await browser.invoke('documents.saveCopy', { fileName: 'proposal.pdf', bytes });
    assert.equal(!answered.ok && answered.error.code, 'not_available');
  });
});
