// The activity log from real events (issue 32): the core signed in to a real test
// server through the real sync agent, the real folder watcher on a temp folder
// root, and the real SQLite replica. Every entry here comes from what the watcher,
// the engine's change feed and sync announced; nothing is faked.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { SessionInfo } from '../../../shared/bridge.ts';
import crypto from 'node:crypto';
import { type ActivityEntry, type ActivityPage, actionsOf, stateLineOf } from '../../../shared/activity.ts';
import { NO_TRANSFER_CAPS } from '../../../shared/transfer-caps.ts';
import { multipartBody, postMultipart } from '../../engine/testing/multipart-upload.ts';
import { syncPaths, apiPaths } from '../../../shared/api-paths.ts';
import type { AppCore } from '../app-core.ts';
import type { TestServer } from '../../engine/testing/test-server.ts';
import { DEMO_PASSWORD } from '../../engine/seed/demo-seed.ts';
import { collect, ok, until, untilFirstSync, withRemoteAndCore } from '../testing/app-core-testing.ts';

describe('the activity log, signed in to a remote with project folders', () => {
  const started = withRemoteAndCore('solardesk-activity-', 1);
  let remote: TestServer;
  let core: AppCore;
  let token: string;
  let folder: string;
  before(async () => {
    remote = started.remote();
    core = started.core();
    const root = ok<SessionInfo>(await core.invoke('session.get', undefined)).folderRoot;
    fs.mkdirSync(root, { recursive: true });
    ok(await core.invoke('auth.signIn', { remoteUrl: remote.baseUrl, username: 'admin@sunrise.example', password: DEMO_PASSWORD }));
    await untilFirstSync(core);
    token = await remote.tokenFor('admin@sunrise.example');
    const folderOf = () => fs.readdirSync(root).find((name) => name.endsWith(' (11)'));
    await until(() => folderOf() !== undefined, 'the folder of project 11', 120_000);
    folder = path.join(root, folderOf()!);
  });

  const list = async (query: Parameters<AppCore['handlers']['activity.list']>[0] = {}) => ok<ActivityPage>(await core.invoke('activity.list', query)).entries;
  const api = async (method: 'GET' | 'POST' | 'PATCH', apiPath: string, body?: unknown) => ok<{ status: number; body: unknown }>(await core.invoke('api.request', { method, path: apiPath, body }));

  test('a file dropped in a project folder is attached, then uploaded with progress, then done', async () => {
    const changed = collect(core, 'activity.changed');
    fs.writeFileSync(path.join(folder, 'inverter-label.txt'), 'SMA Sunny Boy 5.0, serial 1234\n');
    await until(async () => (await list({ projectId: 11, kinds: ['upload'] })).some((entry) => entry.subject === 'inverter-label.txt' && entry.state === 'done'), 'the upload done', 120_000);
    const attached = (await list({ projectId: 11, kinds: ['attached'] })).find((entry) => entry.subject === 'inverter-label.txt');
    assert.ok(attached, 'the attach has its entry');
    assert.equal(attached.state, 'done');
    const upload = (await list({ projectId: 11, kinds: ['upload'] })).find((entry) => entry.subject === 'inverter-label.txt')!;
    const order = (await list({ projectId: 11 })).map((entry) => entry.id);
    assert.ok(order.indexOf(upload.id) < order.indexOf(attached.id), 'uploaded after it was attached: listed above it');
    assert.deepEqual(upload.progress, { done: 31, total: 31 });
    assert.ok(
      changed.some((entry) => entry.id === upload.id && entry.state === 'running' && entry.progress?.total === 31),
      `while it ran, its entry told its progress: ${JSON.stringify(changed.filter((entry) => entry.kind === 'upload'))}`,
    );
    const search = await list({ search: 'inverter battery' });
    assert.deepEqual(search.map((entry) => entry.id), [], 'a word it does not have finds nothing');
    assert.ok((await list({ search: 'INVERTER-label' })).some((entry) => entry.id === upload.id), 'its name finds it, in any case');
  });

  test('a change made on the server arrives naming the field in people\'s words', async () => {
    assert.equal((await remote.request('PATCH', apiPaths.project(1, 10), { token, body: { zip: '94110' } })).status, 200);
    await until(async () => (await list({ projectId: 10, kinds: ['remote_change'] })).some((entry) => entry.fields.includes('Postal code')), 'the remote change');
    const [entry] = await list({ projectId: 10, kinds: ['remote_change'] });
    assert.deepEqual(entry!.fields, ['Postal code'], 'the field that changed, and only it, never "zip"');
  });

  test('an edit made here waits while sync is paused, saying so, and is sent once it resumes', async () => {
    await api('POST', syncPaths.pause(1));
    await until(() => core.events.latestOf('sync.state')?.state === 'paused', 'paused');
    await api('PATCH', apiPaths.project(1, 12), { notes: 'Scaffold booked for Tuesday' });
    await until(async () => (await list({ projectId: 12, kinds: ['edit'] })).some((entry) => entry.state === 'waiting'), 'the waiting edit');
    const [waiting] = await list({ projectId: 12, kinds: ['edit'] });
    assert.equal(waiting!.waitReason, 'paused');
    assert.deepEqual(waiting!.fields, ['Notes']);
    await api('POST', syncPaths.resume(1));
    await until(async () => (await list({ projectId: 12, kinds: ['edit'] }))[0]?.state === 'done', 'the edit sent');
  });

  test('a field changed here and on the server becomes a conflict entry, told as a notice', async () => {
    const notices = collect(core, 'activity.notice');
    await api('POST', syncPaths.pause(1));
    await until(() => core.events.latestOf('sync.state')?.state === 'paused', 'paused');
    await api('PATCH', apiPaths.project(1, 13), { notes: 'Roof is slate (seen here)' });
    assert.equal((await remote.request('PATCH', apiPaths.project(1, 13), { token, body: { notes: 'Roof is tile (office)' } })).status, 200);
    await api('POST', syncPaths.resume(1));
    await until(async () => (await list({ kinds: ['conflict'] })).some((entry) => entry.projectId === 13 && entry.state === 'waiting'), 'the conflict entry');
    const conflict = (await list({ kinds: ['conflict'] })).find((entry) => entry.projectId === 13)!;
    assert.deepEqual(conflict.fields, ['Notes']);
    assert.equal(conflict.waitReason, 'conflict');
    assert.ok(conflict.conflictId !== null);
    assert.ok(notices.some((notice) => notice.kind === 'conflict' && notice.entryId === conflict.id), 'a notice for the new conflict');
    await api('POST', syncPaths.resolveConflict(1, conflict.conflictId!), { choice: 'local' });
    await until(async () => (await list({ kinds: ['conflict'] })).find((entry) => entry.id === conflict.id)?.state === 'done', 'the conflict entry settled');
  });

  test('a file arriving on a metered connection waits, saying why; Retry now brings it down as an open, with progress, into its folder', async () => {
    ok(await core.invoke('settings.set', { transferCaps: { ...NO_TRANSFER_CAPS, metered: true } }));
    try {
      // Half a megabyte: its bytes come down in several pieces, so the entry moves with them.
      const bytes = crypto.randomBytes(512 * 1024);
      const added = await postMultipart(`${remote.baseUrl}${apiPaths.privateFiles(1)}`, token, multipartBody({ title: 'Site survey', project: '11' }, { fileName: 'site-survey.bin', contents: bytes }));
      assert.equal(added.status, 201);
      const fileId = added.json.id as number;
      const entryOf = async () => (await list({ projectId: 11, kinds: ['download'] })).find((entry) => entry.fileId === fileId);
      await until(async () => (await entryOf())?.waitReason === 'metered', 'the download waiting for the metered connection', 120_000);
      const waiting = (await entryOf())!;
      assert.equal(waiting.state, 'waiting');
      assert.match(stateLineOf(waiting, String) ?? '', /metered connection/);
      assert.ok(actionsOf(waiting).includes('retry'), 'it offers Retry now');

      const changed = collect(core, 'activity.changed');
      const retried = ok<{ message: string }>(await core.invoke('activity.retry', { entryId: waiting.id }));
      assert.match(retried.message, /as a file you opened/);
      await until(async () => /Written into the project folder/.test((await entryOf())?.detail ?? ''), 'the download fetched and written', 120_000);
      const done = (await entryOf())!;
      assert.equal(done.id, waiting.id, 'one entry, from waiting to done');
      assert.equal(done.state, 'done');
      assert.deepEqual(done.progress, { done: bytes.length, total: bytes.length });
      assert.equal((await list({ projectId: 11, kinds: ['download'] })).filter((entry) => entry.fileId === fileId).length, 1, 'the write into the folder is told in the same entry');
      const running = changed.filter((entry) => entry.id === waiting.id && entry.state === 'running');
      assert.ok(running.some((entry) => entry.progress !== null && entry.progress.done > 0 && entry.progress.done < bytes.length), `while it ran, its entry told its bytes: ${JSON.stringify(running.map((entry) => entry.progress))}`);
      // The server's own note of the file ("File added: Site survey", an event it made) is not a second entry: the download tells it.
      assert.deepEqual((await list({ projectId: 11, kinds: ['remote_change'] })).filter((entry) => entry.subject.includes('Site survey')).map((entry) => entry.subject), []);
      const inFolder = fs.readdirSync(folder);
      assert.ok(inFolder.some((name) => fs.readFileSync(path.join(folder, name)).equals(bytes)), `the file whole in its project folder: ${inFolder.join(', ')}`);
    } finally {
      ok(await core.invoke('settings.set', { transferCaps: NO_TRANSFER_CAPS }));
    }
  });

  test('a file deleted in its folder is a held delete with its reason, undone from its entry', async () => {
    const notices = collect(core, 'activity.notice');
    fs.rmSync(path.join(folder, 'inverter-label.txt'));
    await until(async () => (await list({ kinds: ['delete_held'] })).some((entry) => entry.subject === 'inverter-label.txt'), 'the held delete', 120_000);
    const held = (await list({ kinds: ['delete_held'] })).find((entry) => entry.subject === 'inverter-label.txt')! satisfies ActivityEntry;
    assert.equal(held.state, 'waiting');
    assert.equal(held.waitReason, 'held_delete');
    assert.ok(notices.some((notice) => notice.kind === 'held_delete' && notice.entryId === held.id));
    // Undo, as the entry's action does: the Sync screen's restore of that hold.
    assert.equal((await api('POST', syncPaths.restorePending(1, held.holdId!))).status, 200);
    await until(async () => (await list({ kinds: ['delete_held'] })).find((entry) => entry.id === held.id)?.state === 'done', 'the held delete undone');
    assert.match((await list({ kinds: ['delete_held'] })).find((entry) => entry.id === held.id)!.detail ?? '', /Undone/);
  });
});
