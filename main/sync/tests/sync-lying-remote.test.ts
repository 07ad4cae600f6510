// The agent trusts nothing a remote says (issue 34 items 1-3, issue 36 items 3-4,
// issue 25 item 11): a write counts as applied only if its answer shows it, ids and
// orgs from a remote are checked, and an unreadable answer is retried, never parked.
// A real server and a real agent on 127.0.0.1; only the fault proxy between them
// lies (it answers for the remote, or rewrites what the remote answered).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';
import { PROVISIONAL_ID_FLOOR } from '../sync-models.ts';
import { OTHER_RECORD_TRIES } from '../push-requests.ts';
import { createFile } from '../../engine/testing/file-testing.ts';
import { DEMO_USERS } from '../../engine/seed/demo-accounts.ts';
import { setSweepDue } from '../sync-state.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API JSON

const ORG = 1;
const OTHER_ORG = 2;
const exactPath = (path: string) => new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
const PROJECT_LIST = exactPath(apiPaths.projects(ORG));
const FILE_LIST = exactPath(apiPaths.privateFiles(ORG));

/** Applies `change` to the record with id `id`, in a list answer or a detail answer. */
const relabel = (id: number, change: (record: Json) => Json) => (body: unknown) => {
  const one = (record: Json) => (record?.id === id ? change(record) : record);
  return Array.isArray(body) ? (body as Json[]).map(one) : one(body as Json);
};

describe('a lying remote: writes, ids and orgs', () => {
  let h: SyncHarness;
  const newProject = async (title: string, notes = '') => (await h.remote('POST', apiPaths.projects(ORG), { title, address: `${title} Street`, notes })).json as Json;
  const localConflicts = async () => (await h.local('GET', syncPaths.conflicts(ORG))).json as Json[];
  const localPending = async () => (await h.local('GET', syncPaths.pending(ORG))).json as Json[];

  before(async () => {
    // Lists and details are rewritten by the proxy; the change feed reads records one by
    // one (sync-change-feed.test.ts), so it is off and every pull goes through the lists.
    h = await startSyncHarness({ serverChangeFeed: false });
  });
  after(() => h.close());

  test('a PATCH answered 200 with the old values keeps the edit as a conflict naming the field; Keep mine sends it again', async () => {
    const project = await newProject('Old values answer');
    await h.synced();
    const asItWas = (await h.remote('GET', apiPaths.project(ORG, project.id))).json as Json;
    // The proxy does not forward the PATCH and answers with the record as it was.
    h.proxy.addRule({ method: 'PATCH', path: exactPath(apiPaths.project(ORG, project.id)), action: { kind: 'status', status: 200, body: asItWas }, times: 1 });
    assert.equal((await h.local('PATCH', apiPaths.project(ORG, project.id), { notes: 'the edit that must not vanish' })).status, 200);
    await h.synced();
    h.proxy.clearRules();

    assert.equal((await h.local('GET', apiPaths.project(ORG, project.id))).json.notes, 'the edit that must not vanish', 'the local edit stays');
    const conflict = (await localConflicts()).find((row) => row.record_id === project.id);
    assert.ok(conflict, 'the edit became a conflict');
    assert.equal(conflict.field, 'notes');
    assert.match(conflict.reason, /server did not take this value/);
    assert.equal(conflict.local_value, 'the edit that must not vanish');
    assert.ok((await localPending()).some((row) => row.record_id === project.id && row.fields.includes('notes')), 'the change is still in the outbox');

    // Keep mine: sent again, and this time the remote takes it.
    const resolved = await h.local('POST', syncPaths.resolveConflict(ORG, conflict.id), { choice: 'local', local_value: conflict.local_value });
    assert.equal(resolved.status, 200, resolved.text);
    await h.synced();
    assert.equal((await h.remote('GET', apiPaths.project(ORG, project.id))).json.notes, 'the edit that must not vanish');
    assert.equal((await localConflicts()).filter((row) => row.record_id === project.id).length, 0);
  });

  test('a create answered without a value sent keeps it as a conflict naming the field, and Keep mine sends it', async () => {
    h.proxy.addRule({ method: 'POST', path: exactPath(apiPaths.contacts(ORG)), action: { kind: 'rewrite', transform: (body) => ({ ...(body as Json), phone: '' }) }, times: 1 });
    const made = await h.local('POST', apiPaths.contacts(ORG), { first_name: 'Ignored', family_name: 'Phone', phone: '0400 111 222' });
    assert.equal(made.status, 201, made.text);
    await h.synced();
    h.proxy.clearRules();
    const conflict = (await localConflicts()).find((row) => row.model === 'contact' && row.field === 'phone');
    assert.ok(conflict, 'the value became a conflict');
    assert.match(conflict.reason, /server did not take this value/);
    assert.equal((await h.local('GET', apiPaths.contact(ORG, conflict.record_id))).json.phone, '0400 111 222', 'the value stays here');
    const resolved = await h.local('POST', syncPaths.resolveConflict(ORG, conflict.id), { choice: 'local', local_value: conflict.local_value });
    assert.equal(resolved.status, 200, resolved.text);
    await h.synced();
    assert.equal((await h.remote('GET', apiPaths.contact(ORG, conflict.record_id))).json.phone, '0400 111 222');
  });

  test('a PATCH answered with another record is a failed write: retried, then parked and shown, and Retry sends the edit', async () => {
    const target = await newProject('Written project');
    const other = await newProject('Answered project', "the answered project's notes");
    await h.synced();
    const otherDetail = (await h.remote('GET', apiPaths.project(ORG, other.id))).json as Json;
    h.proxy.addRule({ method: 'PATCH', path: exactPath(apiPaths.project(ORG, target.id)), action: { kind: 'status', status: 200, body: otherDetail }, times: OTHER_RECORD_TRIES });
    assert.equal((await h.local('PATCH', apiPaths.project(ORG, target.id), { notes: 'meant for the written project' })).status, 200);
    await h.synced();

    const parked = (await localPending()).find((row) => row.record_id === target.id);
    assert.ok(parked, 'the change is still in the outbox');
    assert.equal(parked.status, 'parked');
    assert.equal(parked.attempts, OTHER_RECORD_TRIES, 'it was tried again before it was parked');
    assert.match(parked.reason, /another record/);
    assert.match(parked.reason, /Retry/);
    const base = await h.agent.context.db.selectFrom('sync_records').select('base').where('model', '=', 'project').where('record_id', '=', target.id).executeTakeFirstOrThrow();
    assert.notEqual(JSON.parse(base.base).notes, otherDetail.notes, "the merge base did not take the other record's notes");
    assert.equal((await h.local('GET', apiPaths.project(ORG, other.id))).json.title, 'Answered project', 'the other record is untouched');
    assert.notEqual((await h.remote('GET', apiPaths.project(ORG, target.id))).json.notes, 'meant for the written project');

    h.proxy.clearRules();
    const retried = await h.local('POST', syncPaths.retryPending(ORG, parked.id));
    assert.equal(retried.status, 200, retried.text);
    await h.synced();
    assert.equal((await h.remote('GET', apiPaths.project(ORG, target.id))).json.notes, 'meant for the written project');
    assert.equal((await localPending()).filter((row) => row.record_id === target.id).length, 0);
    assert.equal((await h.local('POST', syncPaths.retryPending(ORG, parked.id))).status, 404, 'a change that went is no longer there to retry');
  });

  test('a remote id in the provisional range never overwrites a project made offline', async () => {
    const remoteOnes = (await h.remote('GET', `${apiPaths.projects(ORG)}?ordering=id&limit=1`)).json as Json[];
    const victim = remoteOnes[0]!;
    h.proxy.setOffline(true);
    const made = (await h.local('POST', apiPaths.projects(ORG), { title: 'Made offline', address: '1 Provisional Road' })).json as Json;
    assert.ok(made.id >= PROVISIONAL_ID_FLOOR, `an offline id (${made.id})`);
    // The remote now lists one of its own projects under that id (and answers its detail there).
    assert.equal((await h.remote('PATCH', apiPaths.project(ORG, victim.id), { notes: 'listed first now' })).status, 200);
    const victimDetail = (await h.remote('GET', apiPaths.project(ORG, victim.id))).json as Json;
    h.proxy.addRule({ method: 'GET', path: PROJECT_LIST, action: { kind: 'rewrite', transform: relabel(victim.id, (record) => ({ ...record, id: made.id })) } });
    h.proxy.addRule({ method: 'GET', path: exactPath(apiPaths.project(ORG, made.id)), action: { kind: 'status', status: 200, body: { ...victimDetail, id: made.id } } });
    // The next pull sweeps too: a list that lies about ids must not make the sweep remove the project it relabelled.
    await setSweepDue(h.agent.context.db, true);
    h.proxy.setOffline(false);
    try {
      await h.synced();
      assert.match(String((await h.agent.sync.status()).detail), /range this computer gives records made offline/, 'the refusal is reported');
    } finally {
      h.proxy.clearRules();
    }
    const onServer = (await h.remote('GET', `${apiPaths.projects(ORG)}?limit=1000`)).json as Json[];
    const created = onServer.find((row) => row.title === 'Made offline');
    assert.ok(created, 'the offline project reached the server');
    assert.equal((await h.remote('GET', apiPaths.project(ORG, created.id))).json.address, '1 Provisional Road');
    assert.equal((await h.local('GET', apiPaths.project(ORG, created.id))).json.title, 'Made offline');
    assert.equal((await h.local('GET', apiPaths.project(ORG, victim.id))).json.title, victim.title, "the remote's own project is still itself here");
  });

  test("a remote that relabels this org's project as another org's changes nothing in the replica", async () => {
    const project = await newProject('Stays ours');
    await h.synced();
    assert.equal((await h.remote('PATCH', apiPaths.project(ORG, project.id), { notes: 'changed while relabelled' })).status, 200);
    const toOtherOrg = relabel(project.id, (record) => ({ ...record, org_id: OTHER_ORG, org: apiPaths.org(OTHER_ORG), org_name: 'Invented By The Remote' }));
    h.proxy.addRule({ method: 'GET', path: PROJECT_LIST, action: { kind: 'rewrite', transform: toOtherOrg } });
    h.proxy.addRule({ method: 'GET', path: exactPath(apiPaths.project(ORG, project.id)), action: { kind: 'rewrite', transform: toOtherOrg } });
    try {
      await h.synced();
      assert.match(String((await h.agent.sync.status()).detail), new RegExp(`project ${project.id} \\(refused: it is this organisation's own project`));
    } finally {
      h.proxy.clearRules();
    }
    const db = h.agent.context.db;
    const row = await db.selectFrom('projects').select('org_id').where('id', '=', project.id).executeTakeFirstOrThrow();
    assert.equal(row.org_id, ORG, 'still this org');
    assert.notEqual((await h.local('GET', apiPaths.project(ORG, project.id))).json.notes, 'changed while relabelled', 'nothing of the relabelled record was taken');
    assert.equal(await db.selectFrom('orgs').select('id').where('name', '=', 'Invented By The Remote').executeTakeFirst(), undefined, 'no org invented');
    assert.equal((await db.selectFrom('connected_orgs').select('org_id').execute()).length, 0, 'no connection invented');
    assert.equal((await db.selectFrom('project_shares').select('org_id').where('project_id', '=', project.id).execute()).length, 0, 'no share invented');
    const edit = await h.local('PATCH', apiPaths.project(ORG, project.id), { title: 'Still editable' });
    assert.equal(edit.status, 200, 'not turned read-only');
    // Honest again: the remote's change comes down, and the project stays the org's own.
    await h.synced();
    assert.equal((await h.local('GET', apiPaths.project(ORG, project.id))).json.notes, 'changed while relabelled');
    assert.equal((await h.remote('GET', apiPaths.project(ORG, project.id))).json.title, 'Still editable');
  });

  test("a file whose project the remote points into another org keeps its last known link and is reported", async () => {
    const project = await newProject('Keeps its file');
    const token = await h.server.tokenFor(DEMO_USERS.sunriseAdmin);
    const file = await createFile(h.server, token, 'file bytes', 'kept.txt', { title: 'Kept link', project: `${h.server.baseUrl}${apiPaths.project(ORG, project.id)}` });
    await h.synced();
    assert.equal((await h.agent.context.db.selectFrom('private_files').select('project_id').where('id', '=', file.id).executeTakeFirstOrThrow()).project_id, project.id);
    assert.equal((await h.remote('PATCH', apiPaths.privateFile(ORG, file.id), { title: 'Retitled while pointed away' })).status, 200);
    const intoOtherOrg = relabel(file.id, (record) => ({ ...record, project: `${h.server.baseUrl}${apiPaths.project(OTHER_ORG, 999_999)}`, modified_date: '2099-01-01T00:00:00.000Z' }));
    h.proxy.addRule({ method: 'GET', path: FILE_LIST, action: { kind: 'rewrite', transform: intoOtherOrg } });
    h.proxy.addRule({ method: 'GET', path: exactPath(apiPaths.privateFile(ORG, file.id)), action: { kind: 'rewrite', transform: intoOtherOrg } });
    try {
      await h.synced();
      assert.match(String((await h.agent.sync.status()).detail), new RegExp(`private file ${file.id} \\(refused: its project 999999 is not one this organisation can see`));
    } finally {
      h.proxy.clearRules();
    }
    const row = await h.agent.context.db.selectFrom('private_files').select(['project_id', 'title', 'modified_date']).where('id', '=', file.id).executeTakeFirstOrThrow();
    assert.equal(row.project_id, project.id, 'its last known project');
    assert.equal(row.title, 'Kept link', 'nothing of the record was taken');
    assert.notEqual(row.modified_date, '2099-01-01T00:00:00.000Z');
  });

  test("a captive portal's page in a 200 is a failure to retry: the contact made then reaches the remote, never parked", async () => {
    const portal = '<!doctype html><html><body><h1>Welcome to Airport Wi-Fi</h1><p>Accept the terms to continue.</p></body></html>';
    const contactPosts = () => h.proxy.count('POST', exactPath(apiPaths.contacts(ORG)));
    const postsBefore = contactPosts();
    h.proxy.addRule({ method: 'POST', path: exactPath(apiPaths.contacts(ORG)), action: { kind: 'text', status: 200, body: portal, contentType: 'text/html' }, times: 1 });
    const made = await h.local('POST', apiPaths.contacts(ORG), { first_name: 'Portal', family_name: 'Window' });
    assert.equal(made.status, 201, made.text);
    await h.synced();
    h.proxy.clearRules();
    assert.ok(h.proxy.log.some((entry) => entry.method === 'POST' && entry.path === apiPaths.contacts(ORG) && entry.status === 200), 'the portal answered once');
    const contacts = (await h.remote('GET', `${apiPaths.contacts(ORG)}?limit=1000`)).json as Json[];
    assert.equal(contacts.filter((contact) => contact.family_name === 'Window').length, 1, 'on the remote, once');
    assert.equal(contactPosts() - postsBefore, 2, 'the portal answered one create, the retry made it: no storm of requests');
    const pending = await localPending();
    assert.equal(pending.length, 0, `nothing parked: ${JSON.stringify(pending)}`);
  });
});
