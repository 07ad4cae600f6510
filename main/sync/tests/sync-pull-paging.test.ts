// Issue 19, finding 3: pulls never skip a remote record. Lists are paged by offset
// (`page`, `limit`: all the hosted API offers), so a record deleted on the remote
// between two page requests shifts every later record one place towards the start.
// A real server, a real agent and the fault proxy between them; the proxy's hook
// makes the remote change exactly between two of the agent's page requests (the
// only thing controlled here is that timing). Small pages make the boundaries.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { multipartBody, postMultipart } from '../../engine/testing/multipart-upload.ts';
import { deleteReplicaRecord } from '../replica-removal.ts';
import type { SyncedModel } from '../sync-models.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API JSON

const PAGE_SIZE = 10;
const PROJECT_LIST = /^\/api\/orgs\/1\/projects\/$/;
/** A query string that carries every one of these `name=value` pairs, in any order. */
const queryWith = (...pairs: string[]) => new RegExp(`^${pairs.map((pair) => `(?=(?:.*&)?${pair}(?:&|$))`).join('')}`);

describe('pulls page by offset without skipping', () => {
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness({ agent: { pullPageSize: PAGE_SIZE } });
  });
  after(() => h.close());

  const ids = (records: Json[]) => records.map((record) => record.id as number).sort((a, b) => a - b);
  const remoteProjects = async () => (await h.remote('GET', '/api/orgs/1/projects/?limit=1000&ordering=id&fieldset=list')).json as Json[];
  const localProjects = async () => (await h.local('GET', '/api/orgs/1/projects/?limit=1000&ordering=id&fieldset=list')).json as Json[];
  const sweepOnNextPull = () => h.agent.context.db.updateTable('sync_state').set({ value: '0' }).where('key', '=', 'pull_count').execute();

  test('a project deleted on the remote between two pages of changes does not make the next one skipped', async () => {
    const made: number[] = [];
    for (let index = 0; index < 2.5 * PAGE_SIZE; index++) {
      made.push((await h.remote('POST', '/api/orgs/1/projects/', { title: `Paged ${index}`, address: `${index} Page Road` })).json.id);
    }
    // While the agent asks for page 2 of the newest changes, the newest project (on page 1) goes.
    const newest = made.at(-1)!;
    h.proxy.addRule({
      method: 'GET',
      path: PROJECT_LIST,
      query: queryWith('ordering=-modified_date', 'page=2'),
      times: 1,
      action: { kind: 'hook', run: async () => assert.equal((await h.remote('DELETE', apiPaths.project(1, newest))).status, 204) },
    });
    await h.synced();
    h.proxy.clearRules();
    const remote = await remoteProjects();
    assert.ok(!ids(remote).includes(newest), 'the hook ran');
    const local = ids(await localProjects());
    const missing = ids(remote).filter((id) => !local.includes(id));
    assert.deepEqual(missing, [], 'every remote project reached the replica');
    assert.deepEqual(local, ids(remote), 'and the deletion was noticed in the same pull');
  });

  test('a sweep that pages while a project is deleted removes that one only, and keeps the one that moved', async () => {
    const before = ids(await remoteProjects());
    const doomed = before[1]!; // on the first page of the sweep
    h.proxy.addRule({
      method: 'GET',
      path: PROJECT_LIST,
      query: queryWith('ordering=id', 'page=2'),
      times: 1,
      action: { kind: 'hook', run: async () => assert.equal((await h.remote('DELETE', apiPaths.project(1, doomed))).status, 204) },
    });
    await sweepOnNextPull();
    await h.synced();
    h.proxy.clearRules();
    const remote = ids(await remoteProjects());
    assert.ok(!remote.includes(doomed), 'the hook ran');
    assert.deepEqual(ids(await localProjects()), remote, 'the replica holds exactly what the remote holds');
  });

  test('a sweep fetches records the replica lacks or holds stale, of every paged model', async () => {
    const project = (await h.remote('POST', '/api/orgs/1/projects/', { title: 'Lost in the replica', address: '1 Gap Lane' })).json;
    const contact = (await h.remote('POST', '/api/orgs/1/contacts/', { first_name: 'Lena', family_name: 'Lost' })).json;
    const upload = await postMultipart(
      `${h.server.baseUrl}${apiPaths.privateFiles(1)}`,
      await h.server.tokenFor('admin@sunrise.example'),
      multipartBody({ title: 'lost.pdf' }, { fileName: 'lost.pdf', contents: Buffer.from('%PDF-1.4\nlost\n%%EOF\n') }),
    );
    assert.equal(upload.status, 201);
    const stale = (await remoteProjects()).find((candidate) => candidate.id !== project.id)!;
    await h.synced();
    // As if earlier pulls had skipped them: gone from the replica, and the marks of
    // what was pulled already past them, so an incremental pull will not look again.
    await h.agent.context.db.transaction().execute(async (trx) => {
      const lost: Array<[SyncedModel, number]> = [['project', project.id], ['contact', contact.id], ['private_file', upload.json.id]];
      for (const [model, id] of lost) await deleteReplicaRecord(trx, model, id);
    });
    assert.equal((await h.remote('PATCH', apiPaths.project(1, stale.id), { title: 'Renamed while skipped' })).status, 200);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    for (const model of ['project', 'contact', 'private_file']) {
      await h.agent.context.db.updateTable('sync_state').set({ value: future }).where('key', '=', `${model}_high_water`).execute();
    }
    await sweepOnNextPull();
    await h.synced();
    assert.equal((await h.local('GET', apiPaths.project(1, project.id))).json.title, 'Lost in the replica');
    assert.equal((await h.local('GET', apiPaths.contact(1, contact.id))).json.family_name, 'Lost');
    assert.equal((await h.local('GET', apiPaths.privateFile(1, upload.json.id))).json.title, 'lost.pdf');
    assert.equal((await h.local('GET', apiPaths.project(1, stale.id))).json.title, 'Renamed while skipped');
  });
});
