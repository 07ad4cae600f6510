// Issue 31: three `solardesk server` processes on one PostgreSQL schema and one
// bucket, each with its own --data folder and no shared disk. The bucket is a real
// S3-compatible server (s3rver on 127.0.0.1, objects in a temp folder) that the
// test starts, stops and starts again. Runs only on the PostgreSQL run:
// npm run test:postgres.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { makeTempDir, requestJson } from '../testing/test-server.ts';
import { dropTestDatabase, testDatabaseFor, testPostgresUrl } from '../testing/test-database.ts';
import { signIn, startServerProcess, stopServerProcess, type ServerProcess } from '../testing/server-process.ts';
import { startTestObjectStore, type TestObjectStore } from '../testing/s3rver-for-tests.ts';
import { multipartBody, postMultipart, sendMultipart } from '../testing/multipart-upload.ts';
import { download, eventually, filesBelow } from '../testing/file-testing.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

if (!testPostgresUrl()) {
  throw new Error('scale-out-object-store.postgres-test.ts needs a PostgreSQL server: run it through `npm run test:postgres`.');
}

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const uploadsPath = '/api/orgs/1/private_files/uploads/';

const root = makeTempDir('solardesk-scale-out-s3-');
const storeDir = path.join(root, 'store');
const dataDirs = [1, 2, 3].map((n) => path.join(root, `data-${n}`));
const database = testDatabaseFor(storeDir)!;

describe('three processes sharing only PostgreSQL and a bucket', () => {
  let objects: TestObjectStore;
  const servers: ServerProcess[] = [];
  let token = '';
  const args = (n: number) => ['--data', dataDirs[n]!, '--database', database, '--blob-store', objects.address('shared')];
  const upload = (server: ServerProcess, bytes: Buffer, fileName: string) =>
    postMultipart(`${server.baseUrl}${apiPaths.privateFiles(1)}`, token, multipartBody({}, { fileName, contents: bytes }));
  /** The file as another process serves it: its signed link points at that process. */
  const fileVia = async (server: ServerProcess, fileId: number) => {
    const answer = await requestJson(server.baseUrl, 'GET', apiPaths.privateFile(1, fileId), { token });
    assert.equal(answer.status, 200, answer.text);
    return answer.json;
  };

  before(async () => {
    objects = await startTestObjectStore();
    servers.push(await startServerProcess([...args(0), '--seed', 'demo']));
    servers.push(...(await Promise.all([startServerProcess(args(1)), startServerProcess(args(2))])));
    token = await signIn(servers[0]!.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
  });
  after(async () => {
    await Promise.all(servers.map((server) => stopServerProcess(server, 'SIGTERM')));
    await objects?.close();
    await dropTestDatabase(storeDir);
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('a file uploaded through one process downloads, with Range, through another; no process keeps it on its disk', { timeout: 60_000 }, async () => {
    const bytes = randomBytes(2 * 1024 * 1024 + 17);
    const created = await upload(servers[0]!, bytes, 'site-survey.bin');
    assert.equal(created.status, 201);
    const elsewhere = await fileVia(servers[1]!, created.json.id);
    assert.ok(elsewhere.file_contents.startsWith(servers[1]!.baseUrl));
    const ranged = await download(elsewhere.file_contents, { range: 'bytes=1048576-1049599' });
    assert.equal(ranged.status, 206);
    assert.deepEqual(ranged.body, bytes.subarray(1_048_576, 1_049_600));
    assert.deepEqual((await download((await fileVia(servers[2]!, created.json.id)).file_contents)).body, bytes);
    for (const dataDir of dataDirs) assert.deepEqual(filesBelow(path.join(dataDir, 'blobs')), [], `${dataDir} holds no contents`);
  });

  test('a chunked upload whose parts go to two processes completes through the third', { timeout: 60_000 }, async () => {
    const parts = [randomBytes(200_000), randomBytes(200_000), randomBytes(3_000)];
    const whole = Buffer.concat(parts);
    const started = await requestJson(servers[0]!.baseUrl, 'POST', uploadsPath, { token, body: { title: 'Spread', filename: 'spread.bin', size: whole.length } });
    assert.equal(started.status, 201, started.text);
    const uploadId = started.json.upload_id as string;
    for (const [index, bytes] of parts.entries()) {
      const via = servers[index % 2]!;
      const sent = await fetch(`${via.baseUrl}${uploadsPath}${uploadId}/parts/${index + 1}/`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
        body: bytes,
      });
      assert.equal(sent.status, 200);
    }
    const completed = await requestJson(servers[2]!.baseUrl, 'POST', `${uploadsPath}${uploadId}/complete/`, { token });
    assert.equal(completed.status, 201, completed.text);
    assert.equal(completed.json.file_hash, sha256(whole));
    assert.deepEqual((await download((await fileVia(servers[0]!, completed.json.id)).file_contents)).body, whole);
  });

  test('a version restored on one process is seen on the others', { timeout: 60_000 }, async () => {
    const created = await upload(servers[0]!, Buffer.from('the first roof layout'), 'layout.txt');
    const replaced = await sendMultipart('PUT', `${servers[1]!.baseUrl}${apiPaths.privateFileContents(1, created.json.id)}`, token, multipartBody({}, { fileName: 'layout.txt', contents: Buffer.from('a wrong edit') }));
    assert.equal(replaced.status, 200);
    const versions = await requestJson(servers[2]!.baseUrl, 'GET', apiPaths.privateFileVersions(1, created.json.id), { token });
    const restored = await requestJson(servers[2]!.baseUrl, 'POST', apiPaths.privateFileVersionRestore(1, created.json.id, versions.json[0].id), { token });
    assert.equal(restored.status, 200, restored.text);
    for (const server of [servers[0]!, servers[1]!]) {
      assert.deepEqual((await download((await fileVia(server, created.json.id)).file_contents)).body, Buffer.from('the first roof layout'));
    }
  });

  test('a process killed with SIGKILL mid-upload loses no acknowledged file and leaves no half-written blob', { timeout: 120_000 }, async () => {
    const acknowledged: { id: number; hash: string }[] = [];
    for (let n = 0; n < 3; n++) {
      const bytes = randomBytes(300_000);
      const created = await upload(servers[n]!, bytes, `before-${n}.bin`);
      assert.equal(created.status, 201);
      acknowledged.push({ id: created.json.id, hash: sha256(bytes) });
    }
    // A large upload to the third process, cut off by SIGKILL once the process is reading it.
    const victim = servers[2]!;
    const boundary = 'killedmidupload';
    const url = new URL(`${victim.baseUrl}${apiPaths.privateFiles(1)}`);
    const cut = new Promise<void>((resolve) => {
      const request = http.request(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      request.on('error', () => resolve());
      request.on('response', () => resolve());
      request.write(`--${boundary}\r\ncontent-disposition: form-data; name="file_contents"; filename="cut.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`);
      // Keeps writing until the process is gone; bounded at 64 MiB.
      let sent = 0;
      const chunk = randomBytes(256 * 1024);
      const pump = () => {
        while (sent < 64 * 1024 * 1024 && !request.destroyed) {
          sent += chunk.length;
          if (!request.write(chunk)) return request.once('drain', pump);
        }
      };
      pump();
    });
    const tempDir = path.join(dataDirs[2]!, 'tmp');
    await eventually(() => filesBelow(tempDir).length > 0, 'the victim is receiving the upload', 20_000);
    victim.child.kill('SIGKILL');
    await cut;
    servers[2] = await startServerProcess(args(2));
    for (const { id, hash } of acknowledged) {
      for (const server of servers) {
        const served = await download((await fileVia(server, id)).file_contents);
        assert.equal(sha256(served.body), hash, `file ${id} through ${server.baseUrl}`);
      }
    }
    // Every object under a blob key is whole: its bytes hash to its name.
    for (const key of await objects.keys('shared/blobs/')) {
      const body = await (await objects.client.send(new GetObjectCommand({ Bucket: objects.bucket, Key: key }))).Body!.transformToByteArray();
      assert.equal(sha256(Buffer.from(body)), path.basename(key), key);
    }
  });

  test('the store down gives 503s on every process, and service resumes when it is back', { timeout: 60_000 }, async () => {
    const kept = await upload(servers[0]!, Buffer.from('kept before the outage'), 'kept.txt');
    await objects.stop();
    try {
      for (const server of servers) {
        const refused = await upload(server, Buffer.from('during the outage'), 'during.txt');
        assert.equal(refused.status, 503);
        assert.equal(refused.headers['retry-after'], '30');
        assert.equal((await download((await fileVia(server, kept.json.id)).file_contents)).status, 503);
      }
    } finally {
      await objects.start();
    }
    for (const server of servers) {
      assert.deepEqual((await download((await fileVia(server, kept.json.id)).file_contents)).body, Buffer.from('kept before the outage'));
      assert.equal((await upload(server, Buffer.from(`after the outage via ${server.baseUrl}`), 'after.txt')).status, 201);
    }
  });
});
