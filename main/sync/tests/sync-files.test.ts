// Private files through sync: metadata replicated, contents on demand, local
// uploads pushed (multipart, streamed from the blob store), edits both ways.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { multipartBody, postMultipart } from '../../engine/testing/multipart-upload.ts';
import { download } from '../../engine/testing/file-testing.ts';
import { blobPath } from '../../engine/files/blob-store.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

describe('sync of private files', () => {
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness();
  });
  after(() => h.close());

  test('file metadata is replicated; contents come on demand and match', async () => {
    const remoteFiles = (await h.remote('GET', '/api/orgs/1/private_files/?limit=1000&ordering=created_date')).json;
    const localFiles = (await h.local('GET', '/api/orgs/1/private_files/?limit=1000&ordering=created_date')).json;
    assert.ok(remoteFiles.length > 0);
    assert.deepEqual(
      localFiles.map((file: { id: number; title: string; file_hash: string; project: string | null }) => [file.id, file.title, file.file_hash, file.project?.replace(/^http:\/\/[^/]+/, '')]),
      remoteFiles.map((file: { id: number; title: string; file_hash: string; project: string | null }) => [file.id, file.title, file.file_hash, file.project?.replace(/^http:\/\/[^/]+/, '')]),
    );
    const file = localFiles[0];
    assert.equal(fs.existsSync(blobPath(h.dataDir, file.file_hash)), false, 'no bytes until someone opens it');
    const local = await download(file.file_contents);
    const remote = await download(remoteFiles[0].file_contents);
    assert.equal(local.status, 200);
    assert.ok(local.body.equals(remote.body));
    assert.equal(fs.existsSync(blobPath(h.dataDir, file.file_hash)), true, 'kept once fetched');
  });

  test('a file uploaded locally offline reaches the remote once, attached to its project; edits follow', async () => {
    h.proxy.setOffline(true);
    const bytes = Buffer.from('%PDF-1.4\nsigned contract for project 30\n%%EOF\n');
    const uploaded = await postMultipart(
      `${h.agent.localApiUrl}${apiPaths.privateFiles(1)}`,
      h.agent.localToken,
      multipartBody({ title: 'Signed contract', project: '30' }, { fileName: 'contract.pdf', contents: bytes }),
    );
    assert.equal(uploaded.status, 201, JSON.stringify(uploaded.json));
    const localId = uploaded.json.id;
    assert.ok(localId >= 1_000_000_000_000);
    await h.local('PATCH', apiPaths.privateFile(1, localId), { title: 'Signed contract (final)' });
    h.proxy.setOffline(false);
    await h.synced();

    const remote = (await h.remote('GET', `${apiPaths.privateFiles(1)}?search=${uploaded.json.file_hash}`)).json;
    assert.equal(remote.length, 1, 'exactly one remote copy');
    assert.equal(remote[0].title, 'Signed contract (final)');
    assert.match(remote[0].project, /\/api\/orgs\/1\/projects\/30\/$/);
    const remoteBytes = await download(remote[0].file_contents);
    assert.ok(remoteBytes.body.equals(bytes), 'the bytes that were uploaded');
    assert.equal((await h.local('GET', apiPaths.privateFile(1, remote[0].id))).json.title, 'Signed contract (final)', 're-keyed to the remote id');

    await h.remote('PATCH', apiPaths.privateFile(1, remote[0].id), { show_customer: true });
    await h.local('PATCH', apiPaths.privateFile(1, remote[0].id), { title: 'Contract' });
    await h.synced();
    const merged = (await h.remote('GET', apiPaths.privateFile(1, remote[0].id))).json;
    assert.equal(merged.title, 'Contract');
    assert.equal(merged.show_customer, true);
    assert.equal((await h.local('GET', apiPaths.privateFile(1, remote[0].id))).json.show_customer, true);
  });

  test('a file create whose answer was lost is looked for among the files, counted against the file allowance, and made once', async () => {
    // Every request the agent makes, with the quota action it is paced and counted under (the real client still sends it).
    const remote = h.agent.context.remote;
    const asked: Array<{ method: string; path: string; query?: Record<string, string | number>; action: string }> = [];
    const send = remote.request.bind(remote);
    remote.request = (request) => (asked.push(request), send(request));
    h.proxy.addRule({ method: 'POST', path: /\/private_files\/$/, action: { kind: 'drop_response' }, times: 1 });
    const bytes = Buffer.from('%PDF-1.4\nstructural report, answer lost on the way back\n%%EOF\n');
    let fileHash = '';
    try {
      const uploaded = await postMultipart(
        `${h.agent.localApiUrl}${apiPaths.privateFiles(1)}`,
        h.agent.localToken,
        multipartBody({ title: 'Structural report', project: '31' }, { fileName: 'structural.pdf', contents: bytes }),
      );
      assert.equal(uploaded.status, 201, JSON.stringify(uploaded.json));
      fileHash = uploaded.json.file_hash;
      await h.synced();
    } finally {
      delete (remote as { request?: unknown }).request; // the client's own method again
    }
    h.proxy.clearRules();
    assert.ok(h.proxy.log.some((entry) => entry.status === 'dropped' && /\/private_files\/$/.test(entry.path)), 'the proxy did lose the create\'s answer');
    assert.equal((await h.remote('GET', `${apiPaths.privateFiles(1)}?search=${fileHash}`)).json.length, 1, 'made once on the remote');
    // The lookup is a list of private files: the server counts it in the org's file allowance, so the agent's pacer must too.
    const lookups = asked.filter((request) => request.method === 'GET' && request.query?.search === fileHash);
    assert.equal(lookups.length, 1, 'the lost create was looked for once');
    assert.equal(lookups[0]!.action, 'private_file_list');
  });

  test('a file assembled from a local chunked upload syncs and settles (its upload record re-keyed too)', async () => {
    const started = await h.local('POST', '/api/orgs/1/private_files/uploads/', { title: 'Chunked survey', filename: 'survey.txt', project: 32 });
    assert.equal(started.status, 201, started.text);
    const uploadPath = `${apiPaths.fileUploads(1)}${started.json.upload_id}`;
    for (const [part, text] of [[1, 'first half, '], [2, 'second half']] as const) {
      const response = await fetch(`${h.agent.localApiUrl}${uploadPath}/parts/${part}/`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${h.agent.localToken}`, 'content-type': 'application/octet-stream' },
        body: text,
      });
      assert.equal(response.status, 200);
    }
    const completed = await h.local('POST', `${uploadPath}/complete/`);
    assert.equal(completed.status, 201, completed.text);
    await h.synced();
    const remote = (await h.remote('GET', `${apiPaths.privateFiles(1)}?search=${completed.json.file_hash}`)).json;
    assert.equal(remote.length, 1);
    assert.equal((await download(remote[0].file_contents)).body.toString(), 'first half, second half');
    assert.equal((await h.local('GET', '/api/orgs/1/sync/status/')).json.pending, 0);
  });

  test('a file added on the remote appears locally', async () => {
    const remoteToken = await h.server.tokenFor('admin@sunrise.example');
    const added = await postMultipart(
      `${h.server.baseUrl}${apiPaths.privateFiles(1)}`,
      remoteToken,
      multipartBody({ title: 'Site photo from the office' }, { fileName: path.basename('photo.txt'), contents: Buffer.from('office photo') }),
    );
    assert.equal(added.status, 201);
    await h.synced();
    const local = await h.local('GET', apiPaths.privateFile(1, added.json.id));
    assert.equal(local.status, 200);
    assert.equal(local.json.title, 'Site photo from the office');
  });
});
