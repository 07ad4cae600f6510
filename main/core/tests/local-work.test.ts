// Local work survives sign-in (issue 15): records made or changed on the embedded
// store before signing in are offered to the signed-in org; sent ones land on the
// remote through the agent (ids re-keyed, files with their bytes, webhooks), kept
// ones stay in the local workspace the user can switch back to; signing out with
// changes not yet on the remote asks first. All real: the app core on a temp data
// folder, the sync agent, and a `solardesk server` (the test server) on 127.0.0.1.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { BridgeEnvelope, LocalWorkOffer, LocalWorkProgress, LocalWorkSendResult, SessionInfo, SignOutAnswer } from '../../../shared/bridge.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';
import { type AppCore, startAppCore } from '../app-core.ts';
import { createSyncAgentHost, REPLICA_FOLDER } from '../agent-backend.ts';
import { defaultSettings, fileSettingsStore } from '../host-stores.ts';
import { makeTempDir, startTestServer, type TestServer } from '../../engine/testing/test-server.ts';
import { DEMO_PASSWORD } from '../../engine/seed/demo-seed.ts';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../../engine/store/tables.ts';
import { DATABASE_FILE_NAME } from '../../engine/store/database.ts';
import { currentIdOf } from '../../sync/replica.ts';
import { STATE_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

const ADMIN = 'admin@sunrise.example';
const ORG = 1;
/** Offline-made records get ids from here up until the remote gives them theirs (docs/sync.md). */
const PROVISIONAL_IDS = 1_000_000_000_000;
const HOOK = 'https://hooks.example.com/solar';

const ok = <T>(envelope: BridgeEnvelope<unknown>): T => {
  if (!envelope.ok) assert.fail(`expected ok, got ${JSON.stringify(envelope.error)}`);
  return envelope.response as T;
};

async function until<T>(check: () => T | null | undefined | false | Promise<T | null | undefined | false>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + Math.max(timeoutMs, STATE_HANG_GUARD_MS); // a hang guard (issue 33)
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const api = async <T>(core: AppCore, method: 'GET' | 'POST' | 'PATCH', apiPath: string, body?: unknown, query?: Record<string, string | number>) =>
  ok<{ status: number; body: T }>(await core.invoke('api.request', { method, path: apiPath, body, query }));

describe('local work survives sign-in', () => {
  const dataDir = makeTempDir('solardesk-local-work-');
  let remote: TestServer;
  let core: AppCore;
  let token: string;
  const onRemote = async <T>(apiPath: string) => (await remote.request('GET', apiPath, { token })).json as T;
  before(async () => {
    remote = await startTestServer();
    token = await remote.tokenFor(ADMIN);
    core = await startAppCore({
      dataDir,
      settings: fileSettingsStore(path.join(dataDir, 'desktop-settings.json'), defaultSettings(path.join(dataDir, 'folders'))),
      openFolder: async () => false,
      syncAgent: createSyncAgentHost({ pollIntervalSeconds: 1 }),
    });
  });
  after(async () => {
    await core.close();
    await remote.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const signIn = async () => ok<SessionInfo>(await core.invoke('auth.signIn', { remoteUrl: remote.baseUrl, username: ADMIN, password: DEMO_PASSWORD }));
  const offer = async () => ok<LocalWorkOffer>(await core.invoke('localWork.list', undefined));
  let madeProjectId = 0;

  test('a sign-in that fails answers sign_in_failed in a sentence, not a 500', async () => {
    const unreachable = await core.invoke('auth.signIn', { remoteUrl: 'http://127.0.0.1:9', username: ADMIN, password: DEMO_PASSWORD });
    assert.equal(!unreachable.ok && unreachable.error.code, 'sign_in_failed');
    assert.match(!unreachable.ok ? unreachable.error.message : '', /^Sign-in failed: the server at http:\/\/127\.0\.0\.1:9 is not answering.*Check the address/);
    assert.equal(ok<SessionInfo>(await core.invoke('session.get', undefined)).mode, 'embedded');
  });

  test('before signing in: the demo data as seeded is no local work, and nothing is offered to anyone', async () => {
    const nothing = await offer();
    assert.deepEqual(nothing, { isOpen: false, isKept: false, orgName: null, remoteUrl: null, items: [] });
  });

  test('after signing in, what was made or changed here is listed by title, kind and what changed', async () => {
    // Work on the embedded store: an edit of a demo project, a new project with a contact, a file in it, a file in a demo project, a webhook.
    assert.equal((await api(core, 'PATCH', apiPaths.project(ORG, 4), { title: 'Renamed on this laptop' })).status, 200);
    const made = await api<{ id: number }>(core, 'POST', apiPaths.projects(ORG), {
      title: 'Made offline',
      address: '1 Field Road',
      notes: 'Measured the roof in the rain.',
      contacts_new: [{ first_name: 'Kim', family_name: 'Fieldworker', email: 'kim@example.com' }],
    });
    assert.equal(made.status, 201);
    madeProjectId = made.body.id;
    ok(await core.invoke('files.upload', { uploadId: 'lw-1', projectId: madeProjectId, fileName: 'roof-sketch.txt', bytes: new TextEncoder().encode('roof sketch: 12 panels') }));
    ok(await core.invoke('files.upload', { uploadId: 'lw-2', projectId: 5, fileName: 'meter-note.txt', bytes: new TextEncoder().encode('meter 4411') }));
    assert.equal((await api(core, 'POST', apiPaths.webhooks(ORG), { endpoint: HOOK, enabled: true, debug: false })).status, 201);

    const session = await signIn();
    assert.equal(session.mode, 'synced');
    assert.equal(session.workspace, 'remote');
    assert.deepEqual(session.signedIn, { remoteUrl: remote.baseUrl, orgName: 'Sunrise Solar' });

    const listed = await offer();
    assert.equal(listed.isOpen, true);
    assert.equal(listed.orgName, 'Sunrise Solar');
    const summary = listed.items.map((item) => `${item.kind} ${item.change} ${item.title}${item.projectTitle ? ` in ${item.projectTitle}` : ''}`).sort();
    assert.deepEqual(summary, [
      'contact created Kim Fieldworker in Made offline',
      'private_file created meter-note.txt in ' + listed.items.find((item) => item.title === 'meter-note.txt')!.projectTitle,
      'private_file created roof-sketch.txt in Made offline',
      'project changed Renamed on this laptop',
      'project created Made offline',
      `webhook created Webhook to ${HOOK}`,
    ]);
    assert.deepEqual(listed.items.find((item) => item.title === 'Renamed on this laptop')!.fields, ['title']);
    // Nothing went up on its own: the remote has none of it.
    assert.equal((await onRemote<{ title: string }>(apiPaths.project(ORG, 4))).title !== 'Renamed on this laptop', true);
  });

  test('sending some: they land on the remote with the ids it gives, files with their bytes, the rest stays offered', async () => {
    const listed = await offer();
    const keyOf = (title: string) => listed.items.find((item) => item.title === title)!.key;
    const progress: LocalWorkProgress[] = [];
    const unsubscribe = core.events.subscribe('localWork.progress', (event) => progress.push(event));
    // The new project's file (its project goes first), the webhook, and the file of a demo project that is only here.
    const result = ok<LocalWorkSendResult>(await core.invoke('localWork.send', { keys: [keyOf('roof-sketch.txt'), keyOf(`Webhook to ${HOOK}`), keyOf('meter-note.txt')] }));
    unsubscribe();
    assert.deepEqual(result.sent.map((item) => item.title).sort(), ['Made offline', 'Webhook to https://hooks.example.com/solar', 'roof-sketch.txt'], JSON.stringify(result.failed));
    assert.deepEqual(result.failed.map((item) => item.title), ['meter-note.txt'], JSON.stringify(result.failed));
    assert.match(result.failed[0]!.error, /^The file “meter-note\.txt” did not reach Sunrise Solar: its project .* is not on Sunrise Solar.*It stays on this computer and stays offered\.$/);
    assert.deepEqual(progress.at(-1), { done: 3, total: 3, title: null });
    assert.ok(progress.some((event) => event.done === 0 && event.total === 3 && event.title !== null), 'n of m told while sending');
    // Sent ones are not offered again; the others are.
    assert.deepEqual(result.offer.items.map((item) => item.title).sort(), ['Kim Fieldworker', 'Renamed on this laptop', 'meter-note.txt']);

    // The agent's outbox takes them up: the remote has them, and the replica's provisional ids became the remote's.
    const listedRemote = await until(async () => (await onRemote<{ id: number; title: string }[]>(`${apiPaths.projects(ORG)}?search=Made%20offline`)).find((project) => project.title === 'Made offline'), 'the project on the remote');
    const remoteProject = await onRemote<{ id: number; notes: string; contacts_data: { first_name: string }[] }>(apiPaths.project(ORG, listedRemote.id));
    assert.equal(remoteProject.notes, 'Measured the roof in the rain.');
    assert.deepEqual(remoteProject.contacts_data.map((contact) => contact.first_name), ['Kim']);
    const remoteFile = await until(async () => (await onRemote<{ id: number; title: string; file_contents: string }[]>(`${apiPaths.privateFiles(ORG)}?project=${remoteProject.id}`)).find((file) => file.title === 'roof-sketch.txt'), 'the file on the remote');
    assert.equal(await (await fetch(remoteFile.file_contents)).text(), 'roof sketch: 12 panels');
    await until(async () => (await onRemote<{ endpoint: string }[]>(apiPaths.webhooks(ORG))).some((hook) => hook.endpoint === HOOK), 'the webhook on the remote');
    await until(async () => {
      const replica = await api<{ id: number; title: string }[]>(core, 'GET', apiPaths.projects(ORG), undefined, { search: 'Made offline' });
      return replica.body.some((project) => project.id === remoteProject.id && project.id < PROVISIONAL_IDS);
    }, 'the replica re-keyed to the remote id');
    // What was sent is recorded by the agent's provisional id; the replica remembers where sync moved it,
    // so a later send (another file of this project, say) links to the project the remote has.
    const recorded = JSON.parse(fs.readFileSync(path.join(dataDir, 'local-work.json'), 'utf8')) as { targets: Record<string, { sent: Record<string, { remoteId: number }> }> };
    const sentProject = Object.values(recorded.targets)[0]!.sent[`project:${madeProjectId}`]!;
    assert.ok(sentProject.remoteId >= PROVISIONAL_IDS, 'recorded by the provisional id it was made with');
    const replicaFile = new BetterSqlite3(path.join(dataDir, REPLICA_FOLDER, DATABASE_FILE_NAME), { readonly: true });
    const replica = new Kysely<Database>({ dialect: new SqliteDialect({ database: replicaFile }) });
    try {
      assert.equal(await currentIdOf(replica, 'project', sentProject.remoteId), remoteProject.id);
    } finally {
      await replica.destroy();
    }
    // Sending again sends nothing twice.
    const again = ok<LocalWorkSendResult>(await core.invoke('localWork.send', { keys: [keyOf('roof-sketch.txt')] }));
    assert.deepEqual(again.sent, []);
    const projects = await onRemote<{ title: string }[]>(`${apiPaths.projects(ORG)}?search=Made%20offline`);
    assert.equal(projects.filter((project) => project.title === 'Made offline').length, 1);
    assert.ok(JSON.parse(fs.readFileSync(path.join(dataDir, 'local-work.json'), 'utf8')).targets, 'what was sent is recorded in the data folder');
  });

  test('keeping: the offer closes, and the work is still in "On this computer", reachable by switching, with the sign-in kept', async () => {
    const kept = ok<LocalWorkOffer>(await core.invoke('localWork.keep', undefined));
    assert.equal(kept.isOpen, false);
    assert.equal(kept.isKept, true);
    assert.ok(kept.items.some((item) => item.title === 'Renamed on this laptop'), 'still listed, so it can be sent later');

    const local = ok<SessionInfo>(await core.invoke('workspace.switch', { workspace: 'local' }));
    assert.equal(local.mode, 'embedded');
    assert.equal(local.workspace, 'local');
    assert.equal(local.signedIn?.remoteUrl, remote.baseUrl);
    assert.equal((await api<{ title: string }>(core, 'GET', apiPaths.project(ORG, 4))).body.title, 'Renamed on this laptop');
    assert.equal((await api<{ title: string }>(core, 'GET', apiPaths.project(ORG, madeProjectId))).body.title, 'Made offline', 'the sent copy stays here too');
    // While the local workspace is open, the offer is still read from it.
    assert.ok((await offer()).items.some((item) => item.title === 'meter-note.txt'));

    const back = ok<SessionInfo>(await core.invoke('workspace.switch', { workspace: 'remote' }));
    assert.equal(back.mode, 'synced');
    assert.equal(back.workspace, 'remote');
    // A restart of the core opens the workspace last chosen.
    assert.equal(JSON.parse(fs.readFileSync(path.join(dataDir, 'local-work.json'), 'utf8')).workspace, 'remote');
  });

  test('signing out with a change not yet on the remote asks first; the change waits in the replica and goes up after signing in again', async () => {
    await until(() => core.events.latestOf('sync.state')?.state === 'synced', 'synced');
    ok(await core.invoke('api.request', { method: 'POST', path: syncPaths.pause(ORG) }));
    assert.equal((await api(core, 'PATCH', apiPaths.project(ORG, 9), { notes: 'Written before signing out' })).status, 200);

    const asked = ok<SignOutAnswer>(await core.invoke('auth.signOut', undefined));
    assert.equal(asked.outcome, 'needs_confirmation');
    if (asked.outcome !== 'needs_confirmation') return;
    assert.equal(asked.pending, 1);
    assert.equal(asked.heldDeletes, 0);
    assert.equal(asked.question, `1 change has not reached ${remote.baseUrl} yet. Sign out anyway? They stay on this computer and go up when you sign in to ${remote.baseUrl} again.`);
    assert.equal(ok<SessionInfo>(await core.invoke('session.get', undefined)).mode, 'synced', 'asking changed nothing');

    const out = ok<SignOutAnswer>(await core.invoke('auth.signOut', { confirm: true }));
    assert.equal(out.outcome === 'signed_out' && out.session.mode, 'embedded');
    assert.equal(out.outcome === 'signed_out' && out.session.signedIn, null);
    assert.ok(fs.existsSync(path.join(dataDir, REPLICA_FOLDER)), 'the replica, with its outbox, stays on disk');

    await signIn();
    ok(await core.invoke('api.request', { method: 'POST', path: syncPaths.resume(ORG) }));
    await until(async () => (await onRemote<{ notes: string }>(apiPaths.project(ORG, 9))).notes === 'Written before signing out', 'the change on the remote after signing in again');
  });
});
