// Documents made on a signed-in computer (issue 29, docs/documents.md "Offline"):
// the app's requests go to the agent's local API (main/core/agent-backend.ts), so a
// proposal is made and saved by the replica's own engine with the network cut (the
// fault proxy offline: no request reaches the remote). Back online, the saved
// document should go up once as a private file of its project, with the fields that
// say what it was made from, spent as user work from the org's file quota: a todo.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
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

  // Not yet (docs/documents.md "Not yet"): the remote answers the upload 400, because the
  // "Generated Document" tag was made on this replica with an id the remote does not know
  // (org tags are not synced), and sync's create sends no system_uuid, input_data,
  // input_data_hash or status. Run as a todo so it reports what still fails.
  test('back online it goes up once, with what it was made from, as user work within the file quota', { todo: 'tags made on a replica and the document fields do not go up yet' }, async () => {
    const saved = await h.local('POST', `${apiPaths.generateDocument(1, 8, 'proposal')}?action=save&language=en`);
    assert.equal(saved.status, 201, saved.text);
    const local = saved.json;
    const before = await fileBucket();
    await h.synced();
    const remote = (await h.remote('GET', `${apiPaths.privateFiles(1)}?project=8&limit=1000`)).json as Array<Record<string, unknown> & { id: number; file_contents: string; file_tags_data: { title: string }[] }>;
    const copies = remote.filter((file) => file.file_hash === local.file_hash);
    assert.equal(copies.length, 1, 'exactly one remote copy');
    const copy = copies[0]!;
    assert.equal(copy.title, local.title);
    assert.deepEqual(
      { system_uuid: copy.system_uuid, input_data: copy.input_data, input_data_hash: copy.input_data_hash, status: copy.status },
      { system_uuid: local.system_uuid, input_data: local.input_data, input_data_hash: local.input_data_hash, status: 'created' },
      'the remote knows what it was made from',
    );
    assert.deepEqual(copy.file_tags_data.map((tag) => tag.title), ['Generated Document']);
    assert.ok((await download(copy.file_contents)).body.equals((await download(local.file_contents)).body), 'the bytes made here');
    const after = await fileBucket();
    assert.ok(after.user > before.user, `the upload was spent as user work (${before.user} -> ${after.user})`);
    assert.equal(after.background, before.background, 'not from background sync’s small share');
  });
});
