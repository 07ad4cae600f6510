// Documents made on a signed-in computer (issue 29, docs/documents.md "Offline"):
// the app's requests go to the agent's local API (main/core/agent-backend.ts), so a
// proposal is made and saved by the replica's own engine with the network cut (the
// fault proxy offline: no request reaches the remote). Back online, the saved
// document goes up once as a private file of its project, with the fields that say
// what it was made from and its tags, spent as user work from the org's file quota.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { download } from '../../engine/testing/file-testing.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';

interface BucketSpend {
  bucket: string;
  user: number;
  background: number;
}

describe('documents made on the replica', () => {
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness();
  });
  after(() => h.close());

  const fileBucket = async () => {
    const budget = (await h.local('GET', syncPaths.budget(1))).json as { buckets: BucketSpend[] };
    // The org's 1,000 file requests a day (shared/throttle-rates.ts: the private_files bucket).
    return budget.buckets.find((each) => each.bucket === 'private_files') ?? { bucket: 'private_files', user: 0, background: 0 };
  };

  test('made and saved with the network cut, by the local engine: nothing reaches the remote', async () => {
    h.proxy.setOffline(true);
    const reachedRemote = h.proxy.log.length;
    const bytes = await fetch(`${h.agent.localApiUrl}${apiPaths.generateDocument(1, 7, 'proposal')}`, { method: 'POST', headers: { authorization: `Bearer ${h.agent.localToken}` } });
    assert.equal(bytes.status, 200);
    assert.equal(bytes.headers.get('content-type'), 'application/pdf');
    const saved = await h.local('POST', `${apiPaths.generateDocument(1, 7, 'proposal')}?action=save&language=en`);
    assert.equal(saved.status, 201, saved.text);
    assert.ok(saved.json.id >= 1_000_000_000_000, 'a record made here, waiting for its remote id');
    assert.match(saved.json.input_data_hash, /^[0-9a-f]{64}$/);
    assert.equal(h.proxy.log.slice(reachedRemote).filter((request) => request.status !== 'offline').length, 0, 'nothing reached the remote');
    h.proxy.setOffline(false);
  });

  type RemoteFile = Record<string, unknown> & { id: number; file_hash: string; file_contents: string; file_tags_data: { id: number; title: string }[] };
  const remoteFilesOf = async (projectId: number) => (await h.remote('GET', `${apiPaths.privateFiles(1)}?project=${projectId}&limit=1000`)).json as RemoteFile[];

  // The "Generated Document" tag is made on this replica, offline, with an id the remote
  // does not know; it goes up first (POST file_tags), and the file names the remote's.
  test('back online it goes up once, with what it was made from, as user work within the file quota', async () => {
    const saved = await h.local('POST', `${apiPaths.generateDocument(1, 8, 'proposal')}?action=save&language=en`);
    assert.equal(saved.status, 201, saved.text);
    const local = saved.json;
    const madeHere = await download(local.file_contents);
    assert.equal(madeHere.status, 200);
    assert.ok(local.file_tags_data[0].id >= 1_000_000_000_000, 'the tag was made here, with an id the remote cannot have');
    const before = await fileBucket();
    await h.synced();
    const copies = (await remoteFilesOf(8)).filter((file) => file.file_hash === local.file_hash);
    assert.equal(copies.length, 1, 'exactly one remote copy');
    const copy = copies[0]!;
    assert.equal(copy.title, local.title);
    assert.deepEqual(
      { system_uuid: copy.system_uuid, input_data: copy.input_data, input_data_hash: copy.input_data_hash, status: copy.status },
      { system_uuid: local.system_uuid, input_data: local.input_data, input_data_hash: local.input_data_hash, status: 'created' },
      'the remote knows what it was made from',
    );
    assert.deepEqual(copy.file_tags_data.map((tag) => tag.title), ['Generated Document']);
    assert.ok((await download(copy.file_contents)).body.equals(madeHere.body), 'the bytes made here');
    const after = await fileBucket();
    assert.ok(after.user > before.user, `the upload was spent as user work (${before.user} -> ${after.user})`);
    assert.equal(after.background, before.background, 'not from background sync’s small share');
    // Here, the file and its tag now have the remote's ids; the document made offline on project 7 went up too.
    const here = (await h.local('GET', apiPaths.privateFile(1, copy.id))).json;
    const idsAndTitles = (tags: { id: number; title: string }[]) => tags.map(({ id, title }) => ({ id, title }));
    assert.deepEqual(idsAndTitles(here.file_tags_data), idsAndTitles(copy.file_tags_data));
    assert.equal(here.input_data_hash, local.input_data_hash);
    assert.equal((await remoteFilesOf(7)).filter((file) => file.file_tags_data.some((tag) => tag.title === 'Generated Document')).length, 1);
  });

  test('saving the same inputs again here answers the synced file, and no second file reaches the remote', async () => {
    const again = await h.local('POST', `${apiPaths.generateDocument(1, 8, 'proposal')}?action=save&language=en`);
    assert.equal(again.status, 200, again.text);
    assert.ok(again.json.id < 1_000_000_000_000, 'the file already made, under the id the remote gave it');
    await h.synced();
    assert.equal((await remoteFilesOf(8)).filter((file) => file.input_data_hash === again.json.input_data_hash).length, 1);
  });

  // A tag of the same title made on the remote meanwhile (another computer): the remote refuses a
  // second, and the tag made here becomes the remote's, on the file too.
  test('a tag made here whose title the remote made meanwhile becomes the remote’s', async () => {
    h.proxy.setOffline(true);
    const tag = await h.local('POST', apiPaths.fileTags(1), { title: 'Roof survey' });
    assert.equal(tag.status, 201, tag.text);
    assert.ok(tag.json.id >= 1_000_000_000_000);
    const saved = await h.local('POST', `${apiPaths.generateDocument(1, 9, 'proposal')}?action=save&language=en&file_tags=${tag.json.id}`);
    assert.equal(saved.status, 201, saved.text);
    const theirs = await h.remote('POST', apiPaths.fileTags(1), { title: 'ROOF SURVEY' });
    assert.equal(theirs.status, 201, theirs.text);
    h.proxy.setOffline(false);
    await h.synced();
    const copies = (await remoteFilesOf(9)).filter((file) => file.input_data_hash === saved.json.input_data_hash);
    assert.equal(copies.length, 1);
    assert.deepEqual(copies[0]!.file_tags_data.map((each) => each.id).sort(), [theirs.json.id, ...copies[0]!.file_tags_data.filter((each) => each.title === 'Generated Document').map((each) => each.id)].sort());
    const here = (await h.local('GET', apiPaths.privateFile(1, copies[0]!.id))).json;
    assert.ok(here.file_tags_data.some((each: { id: number }) => each.id === theirs.json.id), JSON.stringify(here.file_tags_data));
    const tagsHere = (await h.local('GET', `${apiPaths.fileTags(1)}?limit=1000`)).json as Array<{ id: number; title: string }>;
    assert.deepEqual(tagsHere.filter((each) => each.title.toLowerCase() === 'roof survey').map((each) => each.id), [theirs.json.id], 'one tag of that title here, the remote’s');
  });

  /**
   * With the tag's POST answered `status` by the proxy (a faked remote answer), a tag titled
   * `title` is made here and a proposal of `projectId` saved with it in `language` (new
   * inputs), then sync runs. Answers the saved file's JSON.
   */
  const saveWithTagAnswered = async (status: number, body: unknown, title: string, projectId: number, language: string) => {
    h.proxy.addRule({ method: 'POST', path: /\/file_tags\/$/, action: { kind: 'status', status, body } });
    try {
      const tag = await h.local('POST', apiPaths.fileTags(1), { title });
      assert.equal(tag.status, 201, tag.text);
      const saved = await h.local('POST', `${apiPaths.generateDocument(1, projectId, 'proposal')}?action=save&language=${language}&file_tags=${tag.json.id}`);
      assert.equal(saved.status, 201, saved.text);
      await h.synced();
      return saved.json;
    } finally {
      h.proxy.clearRules();
    }
  };

  // A tag the remote refuses for another reason than its title being taken (the proxy answers
  // its POST 400 itself: a faked refusal): the file's change is parked with why, not left waiting unseen.
  test('a tag the remote refuses parks the file’s change with the remote’s reason', async () => {
    const saved = await saveWithTagAnswered(400, { title: ['This title is not allowed here.'] }, 'Refused here', 8, 'en-GB');
    const pending = (await h.local('GET', syncPaths.pending(1))).json as Array<{ record_id: number; status: string; last_error: string | null }>;
    const parked = pending.find((row) => row.record_id === saved.id);
    assert.equal(parked?.status, 'parked', JSON.stringify(pending));
    assert.match(parked!.last_error ?? '', /refused the file's tag "Refused here".*not allowed/);
    assert.equal((await remoteFilesOf(8)).filter((file) => file.input_data_hash === saved.input_data_hash).length, 0);
  });

  // A remote without tags of an org's own (the hosted service has only the catalogue): the
  // proxy answers the tag's POST 405 as such a remote does (a faked remote route). The file
  // goes up without the tag it cannot hold, and the answer leaves the local file without it too.
  test('a remote that makes no org tags gets the file without the tag made here, and both sides agree', async () => {
    const saved = await saveWithTagAnswered(405, { detail: 'Method "POST" not allowed.' }, 'Only here', 7, 'en-AU');
    const copies = (await remoteFilesOf(7)).filter((file) => file.input_data_hash === saved.input_data_hash);
    assert.equal(copies.length, 1);
    assert.deepEqual(copies[0]!.file_tags_data.map((each) => each.title), ['Generated Document']);
    const here = (await h.local('GET', apiPaths.privateFile(1, copies[0]!.id))).json;
    assert.deepEqual(here.file_tags_data.map((each: { title: string }) => each.title), ['Generated Document']);
  });

  // A project made offline has a provisional id, which its document's input_data names; the
  // re-key that gives the project its remote id moves it there too (main/sync/record-ids.ts).
  test('a document saved for a project made offline goes up naming the project’s remote id, and stays current here', async () => {
    h.proxy.setOffline(true);
    const made = await h.local('POST', apiPaths.projects(1), { title: 'Designed offline', address: '3 Provisional Lane' });
    assert.equal(made.status, 201, made.text);
    const provisional = made.json.id as number;
    assert.ok(provisional >= 1_000_000_000_000);
    // A design comes from the design tool, not this API (docs/systems.md): written into the replica's store, as the engine's document tests do.
    const db = h.agent.context.db;
    const { design } = await db.selectFrom('projects').select('design').where('id', '=', 8).executeTakeFirstOrThrow();
    await db.updateTable('projects').set({ design }).where('id', '=', provisional).execute();
    const saved = await h.local('POST', `${apiPaths.generateDocument(1, provisional, 'proposal')}?action=save&language=en`);
    assert.equal(saved.status, 201, saved.text);
    assert.equal(saved.json.input_data.project, provisional, 'made offline, it names the id the project has here');
    h.proxy.setOffline(false);
    await h.synced();

    const remoteProject = (await h.remote('GET', `${apiPaths.projects(1)}?search=${encodeURIComponent('3 Provisional Lane')}`)).json as Array<{ id: number }>;
    assert.equal(remoteProject.length, 1);
    const projectId = remoteProject[0]!.id;
    const copies = (await remoteFilesOf(projectId)).filter((file) => file.file_hash === saved.json.file_hash);
    assert.equal(copies.length, 1);
    const copy = copies[0]! as RemoteFile & { input_data: { project: number }; input_data_hash: string };
    assert.equal(copy.input_data.project, projectId, 'the remote copy names the project as the remote knows it');
    assert.deepEqual({ ...copy.input_data, project: provisional }, saved.json.input_data, 'nothing else of what it was made from changed');
    assert.equal(copy.input_data_hash, createHash('sha256').update(JSON.stringify(copy.input_data)).digest('hex'), 'its hash is of the input_data it carries');
    const here = (await h.local('GET', apiPaths.privateFile(1, copy.id))).json;
    assert.deepEqual({ input_data: here.input_data, input_data_hash: here.input_data_hash }, { input_data: copy.input_data, input_data_hash: copy.input_data_hash });

    // The remote answered the project's create without the design (no API writes one): the design tool
    // puts the same design there, and the replica reads the project afresh, as opening it does.
    await h.server.engine.context.db.updateTable('projects').set({ design }).where('id', '=', projectId).execute();
    assert.equal((await h.local('POST', syncPaths.refresh(1), { project_id: projectId, force: true })).status, 200);
    await h.synced();
    const deadline = Date.now() + 30_000;
    while ((await db.selectFrom('projects').select('design').where('id', '=', projectId).executeTakeFirstOrThrow()).design !== design) {
      if (Date.now() > deadline) throw new Error('the design did not reach the replica within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const states = (await h.local('GET', apiPaths.generatedDocuments(1, projectId))).json as Array<{ file: number; is_current: boolean; changed: string[]; problem: string | null }>;
    assert.deepEqual(states.map(({ file, is_current, changed, problem }) => ({ file, is_current, changed, problem })), [{ file: copy.id, is_current: true, changed: [], problem: null }]);
  });

  test('a document moved to a synced project before the project it was made from reached the remote waits for that project, then names its remote id', async () => {
    h.proxy.setOffline(true);
    const made = await h.local('POST', apiPaths.projects(1), { title: 'Quoted offline, then merged', address: '5 Merged Quote Crescent' });
    assert.equal(made.status, 201, made.text);
    const provisional = made.json.id as number;
    const db = h.agent.context.db;
    const { design } = await db.selectFrom('projects').select('design').where('id', '=', 8).executeTakeFirstOrThrow();
    await db.updateTable('projects').set({ design }).where('id', '=', provisional).execute();
    const saved = await h.local('POST', `${apiPaths.generateDocument(1, provisional, 'proposal')}?action=save&language=en`);
    assert.equal(saved.status, 201, saved.text);
    // The proposal is filed under the customer's existing project, which the remote has.
    const moved = await h.local('PATCH', apiPaths.privateFile(1, saved.json.id), { project: 8 });
    assert.equal(moved.status, 200, moved.text);
    // The remote is busy for the new project's create: the push goes on to the next change, the document's.
    h.proxy.addRule({ method: 'POST', path: /\/projects\/$/, action: { kind: 'status', status: 503, body: { detail: 'busy' } }, times: 1 });
    h.proxy.setOffline(false);
    await h.synced();
    h.proxy.clearRules();
    assert.ok(h.proxy.log.some((entry) => entry.method === 'POST' && entry.status === 503), 'the project\'s first create was refused as busy');

    const remoteProject = (await h.remote('GET', `${apiPaths.projects(1)}?search=${encodeURIComponent('5 Merged Quote Crescent')}`)).json as Array<{ id: number }>;
    assert.equal(remoteProject.length, 1);
    const copies = (await remoteFilesOf(8)).filter((file) => file.file_hash === saved.json.file_hash);
    assert.equal(copies.length, 1, 'the document reached the remote once, in the project it was moved to');
    const copy = copies[0]! as RemoteFile & { input_data: { project: number }; input_data_hash: string };
    assert.equal(copy.input_data.project, remoteProject[0]!.id, 'it names the project it was made from by the remote\'s id, not the id it had here');
    assert.equal(copy.input_data_hash, createHash('sha256').update(JSON.stringify(copy.input_data)).digest('hex'));
  });
});

// A document above the chunk size goes up through the remote's chunked upload (main/sync/push-chunked.ts):
// the upload's start carries its fields, as the multipart create does. Small sizes here make a proposal big.
describe('a document that goes up in parts', () => {
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness({ agent: { chunkedUploadAboveBytes: 8 * 1024, uploadPartBytes: 16 * 1024 } });
  });
  after(() => h.close());

  test('reaches the remote through parts with what it was made from', async () => {
    const saved = await h.local('POST', `${apiPaths.generateDocument(1, 8, 'proposal')}?action=save&language=en`);
    assert.equal(saved.status, 201, saved.text);
    assert.ok(saved.json.filesize > 2 * 16 * 1024, `a proposal of ${saved.json.filesize} bytes takes several parts`);
    await h.synced();
    const copies = ((await h.remote('GET', `${apiPaths.privateFiles(1)}?project=8&limit=1000`)).json as Array<Record<string, unknown> & { id: number; file_hash: string; parts: unknown[] }>).filter(
      (file) => file.file_hash === saved.json.file_hash,
    );
    assert.equal(copies.length, 1, 'exactly one remote copy');
    const copy = copies[0]!;
    assert.ok(copy.upload_id && copy.parts.length > 1, `it came in parts (${copy.parts.length})`);
    assert.deepEqual(
      { system_uuid: copy.system_uuid, input_data: copy.input_data, input_data_hash: copy.input_data_hash, status: copy.status },
      { system_uuid: saved.json.system_uuid, input_data: saved.json.input_data, input_data_hash: saved.json.input_data_hash, status: 'created' },
      'the remote knows what it was made from',
    );
    // Saving the same inputs again here answers that file; nothing more goes up.
    const again = await h.local('POST', `${apiPaths.generateDocument(1, 8, 'proposal')}?action=save&language=en`);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.id, copy.id);
  });
});
