// Issue 31: `solardesk admin migrate-blobs` moves a populated server's contents from
// its folder to an object store and back, keeping every file, version and hash; a
// run cut off part way is finished by running it again; files added by the live
// server during a run are copied by its catch-up pass. The store is a real s3rver
// on 127.0.0.1; the interruption is a progress callback that throws (as a crash
// between two copies would leave things).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { startTestObjectStore, type TestObjectStore } from '../testing/s3rver-for-tests.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { createFile, download, filesBelow } from '../testing/file-testing.ts';
import { multipartBody, sendMultipart } from '../testing/multipart-upload.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { migrateBlobs, openBlobBackendAt } from '../files/migrate-blobs.ts';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

class Interrupted extends Error {}

describe('migrate-blobs: folder -> object store -> folder', () => {
  let objects: TestObjectStore;
  let server: TestServer;
  let admin: string;
  const storeAddress = () => objects.address('migrated');

  before(async () => {
    objects = await startTestObjectStore();
    server = await startTestServer();
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(async () => {
    await server?.close();
    await objects?.close();
  });

  /** Every file's contents and every kept version's, downloaded, by hash. */
  async function everyFileAndVersion(): Promise<Map<string, string>> {
    const served = new Map<string, string>();
    const files = await server.request('GET', apiPaths.privateFiles(1), { token: admin });
    for (const file of Array.isArray(files.json) ? files.json : files.json.results) {
      const bytes = await download(file.file_contents);
      assert.equal(bytes.status, 200, `file ${file.id}`);
      served.set(`file ${file.id}`, sha256(bytes.body));
      assert.equal(sha256(bytes.body), file.file_hash, `file ${file.id} downloads its own hash`);
      const versions = await server.request('GET', apiPaths.privateFileVersions(1, file.id), { token: admin });
      for (const version of versions.json) {
        const old = await fetch(`${server.baseUrl}${apiPaths.privateFileVersionContents(1, file.id, version.id)}`, { headers: { authorization: `Bearer ${admin}` } });
        assert.equal(old.status, 200);
        served.set(`version ${version.id}`, sha256(Buffer.from(await old.arrayBuffer())));
      }
    }
    return served;
  }

  test('every file and version keeps its hash both ways; an interrupted run finishes when run again; files added meanwhile are caught up', { timeout: 180_000 }, async () => {
    for (let n = 0; n < 6; n++) await createFile(server, admin, randomBytes(50_000 + n), `photo-${n}.bin`);
    const edited = await createFile(server, admin, 'first layout', 'layout.txt');
    const replaced = await sendMultipart('PUT', `${server.baseUrl}${apiPaths.privateFileContents(1, edited.id)}`, admin, multipartBody({}, { fileName: 'layout.txt', contents: Buffer.from('second layout') }));
    assert.equal(replaced.status, 200);
    const before = await everyFileAndVersion();
    assert.ok([...before.keys()].some((key) => key.startsWith('version')), 'the server has a kept version');

    const { store } = server.engine;
    const folder = openBlobBackendAt(server.dataDir, store, server.dataDir);
    const bucket = openBlobBackendAt(storeAddress(), store, server.dataDir);
    // Cut off after three copies.
    let seen = 0;
    await assert.rejects(
      migrateBlobs(store.db, folder, bucket, {
        onProgress: () => {
          if (++seen === 3) throw new Interrupted();
        },
      }),
      Interrupted,
    );
    assert.equal((await objects.keys('migrated/blobs/')).length, 3);

    // Run again beside the live server, which takes a new file during the first pass.
    let addedMeanwhile: { file_hash: string } | undefined;
    const resumed = await migrateBlobs(store.db, folder, bucket, {
      onProgress: async () => {
        addedMeanwhile ??= await createFile(server, admin, 'arrived during the migration', 'late.txt');
      },
    });
    assert.equal(resumed.skipped, 3, 'what the first run copied is not copied again');
    assert.deepEqual([resumed.missing, resumed.corrupt], [[], []]);
    assert.ok(resumed.passes >= 2, 'a catch-up pass ran');
    const inBucket = new Set((await objects.keys('migrated/blobs/')).map((key) => path.basename(key)));
    assert.ok(inBucket.has(addedMeanwhile!.file_hash), 'the file added meanwhile was copied');
    await Promise.all([folder.close(), bucket.close()]);

    // The server on the store alone: its folder's blobs are gone.
    const { dataDir } = server;
    await server.close({ keepData: true });
    fs.rmSync(path.join(dataDir, 'blobs'), { recursive: true, force: true });
    server = await startTestServer({ dataDir, blobStore: storeAddress() });
    const onStore = await everyFileAndVersion();
    assert.deepEqual([...onStore].filter(([key]) => before.has(key)), [...before]);

    // And back into the folder.
    const back = await migrateBlobs(server.engine.store.db, openBlobBackendAt(storeAddress(), server.engine.store, dataDir), openBlobBackendAt(dataDir, server.engine.store, dataDir));
    assert.equal(back.copied + back.skipped, inBucket.size, 'every named blob came back');
    assert.deepEqual([back.missing, back.corrupt], [[], []]);
    await server.close({ keepData: true });
    server = await startTestServer({ dataDir });
    assert.deepEqual(await everyFileAndVersion(), onStore);
    assert.equal(filesBelow(path.join(dataDir, 'blobs')).length, inBucket.size);
  });
});
