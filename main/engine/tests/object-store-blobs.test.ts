// Issue 31: file contents in an S3-compatible object store (--blob-store). A real
// S3 server (s3rver, on 127.0.0.1, objects in a temp folder) that the test starts,
// stops (the store down) and starts again. Nothing is faked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { startTestObjectStore, type TestObjectStore } from '../testing/s3rver-for-tests.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { createFile, download, filesBelow, uploadFile } from '../testing/file-testing.ts';
import { multipartBody, sendMultipart } from '../testing/multipart-upload.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { parseObjectStoreAddress } from '../files/object-store-address.ts';
import { PROCESS_HANG_GUARD_MS } from '../../testing/hang-guards.ts';
import { ManualClock } from '../clock.ts';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { sweepExpiredUploads } from '../files/uploads.ts';
import { SHARED_LEFTOVER_AGE_MS } from '../files/blob-store.ts';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const blobKey = (hash: string, prefix = 'files') => `${prefix}/blobs/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}`;
const uploadsPath = '/api/orgs/1/private_files/uploads/';

describe('file contents in an object store', () => {
  let objects: TestObjectStore;
  let server: TestServer;
  let admin: string;

  before(async () => {
    objects = await startTestObjectStore();
    server = await startTestServer({ blobStore: objects.address('files') });
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(async () => {
    await server?.close();
    await objects?.close();
  });

  test('an upload is kept in the store, once for identical contents, and downloads whole and by Range from it', async () => {
    const bytes = randomBytes(300_000);
    const first = await createFile(server, admin, bytes, 'survey.bin');
    const second = await createFile(server, admin, bytes, 'copy.bin');
    assert.equal(first.file_hash, sha256(bytes));
    assert.deepEqual((await objects.keys('files/blobs/')).filter((key) => key === blobKey(sha256(bytes))), [blobKey(sha256(bytes))], 'one object for both files');
    assert.deepEqual(filesBelow(path.join(server.dataDir, 'blobs')), [], 'nothing in the local folder');
    assert.deepEqual((await download(first.file_contents)).body, bytes);
    const ranged = await download(second.file_contents, { range: 'bytes=1000-1999' });
    assert.equal(ranged.status, 206);
    assert.equal(ranged.headers.get('content-range'), `bytes 1000-1999/${bytes.length}`);
    assert.deepEqual(ranged.body, bytes.subarray(1000, 2000));
    assert.equal((await download(first.file_contents, { range: 'bytes=400000-' })).status, 416);

    // The blob goes only when no file names it.
    assert.equal((await server.request('DELETE', apiPaths.privateFile(1, first.id), { token: admin })).status, 204);
    assert.ok((await objects.keys('files/blobs/')).includes(blobKey(sha256(bytes))), 'kept while the copy names it');
    assert.equal((await server.request('DELETE', apiPaths.privateFile(1, second.id), { token: admin })).status, 204);
    assert.ok(!(await objects.keys('files/blobs/')).includes(blobKey(sha256(bytes))), 'removed with the last file naming it');
  });

  test('a large file goes on to the store while it arrives, under an incoming key, and is copied to its blob key: once, and nothing incoming is left', async () => {
    const bytes = randomBytes(12 * 1024 * 1024 + 5);
    const blob = blobKey(sha256(bytes));
    const seenBefore = objects.events.length;
    const first = await createFile(server, admin, bytes, 'drone survey.bin');
    const copies = objects.events.slice(seenBefore).filter((event) => event.name === 'ObjectCreated:Copy');
    assert.deepEqual(copies.map((event) => event.key), [blob], 'copied inside the store to its blob key, not sent again');
    assert.deepEqual(await objects.keys('files/incoming/'), [], 'the incoming object is removed once copied');
    assert.deepEqual((await download(first.file_contents)).body, bytes);
    const ranged = await download(first.file_contents, { range: 'bytes=9000000-9000999' });
    assert.deepEqual(ranged.body, bytes.subarray(9_000_000, 9_001_000));

    // The same contents again: stored once, so nothing is copied; the incoming object still goes.
    const again = objects.events.length;
    await createFile(server, admin, bytes, 'drone survey (copy).bin');
    assert.equal(objects.events.slice(again).filter((event) => event.name === 'ObjectCreated:Copy').length, 0);
    assert.deepEqual((await objects.keys('files/blobs/')).filter((key) => key === blob), [blob]);
    assert.deepEqual(await objects.keys('files/incoming/'), []);

    // Refused after it arrived (no such project): no file, and nothing incoming is left.
    const refused = await uploadFile(server, admin, randomBytes(9 * 1024 * 1024), 'wrong project.bin', { project: '999999' });
    assert.equal(refused.status, 400, JSON.stringify(refused.json));
    assert.deepEqual(await objects.keys('files/incoming/'), []);
  });

  test('the upload sweep removes incoming objects a crash left behind, never one this process is receiving', async () => {
    const { blobs, store } = server.engine.context;
    // One arriving now in this process: its upload to the store has ended, its copy to the blob key is still to come.
    const arriving = blobs.startIncoming(9 * 1024 * 1024)!;
    arriving.sink.end(randomBytes(9 * 1024 * 1024));
    const arrivingKey = await arriving.stored;
    await objects.client.send(new PutObjectCommand({ Bucket: objects.bucket, Key: 'files/incoming/left-by-a-crash', Body: randomBytes(1000) }));
    await sweepExpiredUploads(server.engine.context);
    if (store.shared) {
      // On a shared database another process may be receiving it: a leftover is one nobody has written for an hour.
      assert.deepEqual(await objects.keys('files/incoming/'), ['files/incoming/left-by-a-crash', arrivingKey].sort());
      objects.age('files/incoming/left-by-a-crash', SHARED_LEFTOVER_AGE_MS + 60_000);
      objects.age(arrivingKey, SHARED_LEFTOVER_AGE_MS + 60_000);
      await sweepExpiredUploads(server.engine.context);
    }
    assert.deepEqual(await objects.keys('files/incoming/'), [arrivingKey], 'the leftover goes; the one being received stays');
    await arriving.discard();
    assert.deepEqual(await objects.keys('files/incoming/'), []);
  });

  test('a chunked upload keeps its parts in the store and assembles them into one blob, a large one in the store too', async () => {
    // Small: assembled into a temp file, then put. Large (over one multipart part): assembled into the store as it is hashed, then copied to its blob key.
    for (const partBytes of [70_000, 4_500_000]) {
      const parts = [randomBytes(partBytes), randomBytes(partBytes), randomBytes(5_000)];
      const whole = Buffer.concat(parts);
      const started = await server.request('POST', uploadsPath, { token: admin, body: { title: 'Drone survey', filename: 'survey.bin', size: whole.length } });
      assert.equal(started.status, 201, started.text);
      const uploadId = started.json.upload_id as string;
      for (const [index, bytes] of parts.entries()) {
        const sent = await fetch(`${server.baseUrl}${uploadsPath}${uploadId}/parts/${index + 1}/`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/octet-stream' },
          body: bytes,
        });
        assert.equal(sent.status, 200);
      }
      assert.equal((await objects.keys(`files/uploads/${uploadId}/`)).length, 3, 'each part is an object in the store');
      const seenBefore = objects.events.length;
      const completed = await server.request('POST', `${uploadsPath}${uploadId}/complete/`, { token: admin });
      assert.equal(completed.status, 201, completed.text);
      assert.equal(completed.json.file_hash, sha256(whole));
      const copies = objects.events.slice(seenBefore).filter((event) => event.name === 'ObjectCreated:Copy').map((event) => event.key);
      assert.deepEqual(copies, partBytes > 1_000_000 ? [blobKey(sha256(whole))] : [], `${whole.length} bytes`);
      assert.deepEqual((await download(completed.json.file_contents)).body, whole);
      assert.deepEqual(await objects.keys(`files/uploads/${uploadId}/`), [], 'parts are removed once assembled');
      assert.deepEqual(await objects.keys('files/incoming/'), []);
    }
  });

  test('a replaced file keeps its version in the store, and restoring it serves the old bytes', async () => {
    const file = await createFile(server, admin, 'original roof photo', 'roof.txt');
    const replaced = await sendMultipart('PUT', `${server.baseUrl}${apiPaths.privateFileContents(1, file.id)}`, admin, multipartBody({}, { fileName: 'roof.txt', contents: Buffer.from('a bad edit') }));
    assert.equal(replaced.status, 200);
    const versions = await server.request('GET', apiPaths.privateFileVersions(1, file.id), { token: admin });
    assert.ok((await objects.keys('files/blobs/')).includes(blobKey(sha256('original roof photo'))), 'the kept version names its blob');
    const restored = await server.request('POST', apiPaths.privateFileVersionRestore(1, file.id, versions.json[0].id), { token: admin });
    assert.equal(restored.status, 200, restored.text);
    assert.deepEqual((await download(restored.json.file_contents)).body, Buffer.from('original roof photo'));
  });

  test('with the store down, uploads and reads get 503 with Retry-After, and service resumes when it is back', async () => {
    const kept = await createFile(server, admin, 'stored before the outage', 'before.txt');
    await objects.stop();
    try {
      const refused = await uploadFile(server, admin, Buffer.from('during the outage'), 'during.txt');
      assert.equal(refused.status, 503, JSON.stringify(refused.json));
      assert.equal(refused.headers['retry-after'], '30');
      assert.match(refused.json.detail, /file store is not answering/);
      const read = await download(kept.file_contents);
      assert.equal(read.status, 503);
      assert.equal(read.headers.get('retry-after'), '30');
      const listed = await server.request('GET', apiPaths.privateFiles(1), { token: admin });
      assert.equal(listed.status, 200, 'what lives in the database still answers');
      const titles = (Array.isArray(listed.json) ? listed.json : listed.json.results).map((file: { title: string }) => file.title);
      assert.ok(titles.includes('before.txt') && !titles.includes('during.txt'), 'the refused upload made no file');
    } finally {
      await objects.start();
    }
    assert.deepEqual((await download(kept.file_contents)).body, Buffer.from('stored before the outage'));
    const after = await createFile(server, admin, 'after the outage', 'after.txt');
    // A large file, which goes on to the store as it arrives, meets the same outage the same way.
    await objects.stop();
    try {
      const refused = await uploadFile(server, admin, randomBytes(10 * 1024 * 1024), 'large during.bin');
      assert.equal(refused.status, 503, JSON.stringify(refused.json));
      assert.equal(refused.headers['retry-after'], '30');
    } finally {
      await objects.start();
    }
    assert.deepEqual(await objects.keys('files/incoming/'), [], 'nothing of it was kept');
    assert.deepEqual((await download(after.file_contents)).body, Buffer.from('after the outage'));
  });
});

/**
 * A TCP relay to the store that can turn silent: it then takes bytes and never
 * answers, on new and kept-alive connections alike, as a hung store does. Turned
 * back on, it drops the connections that went silent, so clients open new ones.
 */
async function startSilenceableRelay(target: string): Promise<{ endpoint: string; setSilent(silent: boolean): void; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  let silent = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk) => silent || upstream.write(chunk));
    upstream.on('data', (chunk) => silent || client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    setSilent(value) {
      if (silent && !value) for (const socket of sockets) socket.destroy();
      silent = value;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a store that stops answering', () => {
  test('uploads and reads get 503 within the request timeout, never a hang, and work again once it answers', { timeout: PROCESS_HANG_GUARD_MS }, async () => {
    const objects = await startTestObjectStore();
    const relay = await startSilenceableRelay(objects.endpoint);
    // 5 s, not less: the same timeout also bounds the store's answers while it answers, and at load 30 a
    // 500 ms one refused the upload made before the silence (issue 33). The silent part costs two timeouts each.
    const address = `s3://${objects.bucket}/hung?endpoint=${encodeURIComponent(relay.endpoint)}&force_path_style=true&request_timeout_ms=5000`;
    const server = await startTestServer({ blobStore: address });
    try {
      const admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const kept = await createFile(server, admin, 'stored while it answered', 'kept.txt');
      relay.setSilent(true);
      const refused = await uploadFile(server, admin, Buffer.from('while it is silent'), 'silent.txt');
      assert.equal(refused.status, 503);
      assert.equal(refused.headers['retry-after'], '30');
      assert.equal((await download(kept.file_contents)).status, 503);
      relay.setSilent(false);
      assert.deepEqual((await download(kept.file_contents)).body, Buffer.from('stored while it answered'));
    } finally {
      await server.close();
      await relay.close();
      await objects.close();
    }
  });
});

describe('downloads=redirect: a link sends its client to the store', () => {
  // The clock is the server's own, moved by the test, so a link can be near its end.
  const clock = new ManualClock(new Date());
  let objects: TestObjectStore;
  let server: TestServer;
  let admin: string;

  before(async () => {
    objects = await startTestObjectStore();
    server = await startTestServer({ blobStore: `${objects.address('direct')}&downloads=redirect`, clock });
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(async () => {
    await server?.close();
    await objects?.close();
  });

  const expiresOf = (link: string) => Number(new URL(link).searchParams.get('expires'));
  const secondsLeft = (link: string) => expiresOf(link) - clock.now().getTime() / 1000;

  test('the link answers 302 to a presigned URL of the store, valid no longer than the link; following it gives the bytes, named and by Range', async () => {
    const bytes = randomBytes(200_000);
    const file = await createFile(server, admin, bytes, 'roof survey.bin');
    clock.advance(3_000_000); // 50 minutes of the link's hour gone: 600 s are left
    const answer = await fetch(file.file_contents, { redirect: 'manual' });
    assert.equal(answer.status, 302);
    assert.equal(answer.headers.get('cache-control'), 'private, no-store');
    const location = new URL(answer.headers.get('location')!);
    assert.equal(location.origin, new URL(objects.endpoint).origin, 'the store serves it');
    assert.ok(location.pathname.endsWith(blobKey(sha256(bytes), 'direct')), location.pathname);
    const validFor = Number(location.searchParams.get('X-Amz-Expires'));
    assert.ok(validFor > 0 && validFor <= secondsLeft(file.file_contents), `valid ${validFor} s; the link has ${secondsLeft(file.file_contents)} s left`);

    const whole = await download(file.file_contents);
    assert.equal(whole.status, 200);
    assert.deepEqual(whole.body, bytes);
    assert.match(whole.headers.get('content-disposition') ?? '', /roof survey\.bin/);
    assert.equal(whole.headers.get('content-type'), 'application/octet-stream');
    const ranged = await download(file.file_contents, { range: 'bytes=1000-1999' });
    assert.equal(ranged.status, 206);
    assert.equal(ranged.headers.get('content-range'), `bytes 1000-1999/${bytes.length}`);
    assert.deepEqual(ranged.body, bytes.subarray(1000, 2000));
  });

  test('If-Range, a range past the end and an expired link are answered by the server itself, as without the store', async () => {
    const bytes = randomBytes(50_000);
    const file = await createFile(server, admin, bytes, 'plan.bin');
    const resumed = await fetch(file.file_contents, { redirect: 'manual', headers: { range: 'bytes=100-', 'if-range': `"${sha256(bytes)}"` } });
    assert.equal(resumed.status, 206, 'the store could not check our ETag, so the server streams it');
    assert.deepEqual(Buffer.from(await resumed.arrayBuffer()), bytes.subarray(100));
    assert.equal((await fetch(file.file_contents, { redirect: 'manual', headers: { range: 'bytes=60000-' } })).status, 416);
    clock.advance(3_601_000);
    const expired = await fetch(file.file_contents, { redirect: 'manual' });
    assert.equal(expired.status, 403);
    assert.equal(expired.headers.get('location'), null);
  });
});

describe('--blob-store addresses', () => {
  test('bucket, prefix and settings are read; credentials and unknown settings are refused with a sentence', () => {
    assert.deepEqual(parseObjectStoreAddress('s3://media/solardesk/prod?endpoint=https://minio.local:9000&region=eu-west-1&force_path_style=true'), {
      bucket: 'media',
      prefix: 'solardesk/prod/',
      endpoint: 'https://minio.local:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      requestTimeoutMs: 30_000,
      downloads: 'stream',
    });
    assert.equal(parseObjectStoreAddress('s3://media/x?downloads=redirect').downloads, 'redirect');
    assert.throws(() => parseObjectStoreAddress('s3://media/x?downloads=proxy'), /downloads must be stream or redirect \(got "proxy"\)/);
    assert.throws(() => parseObjectStoreAddress('s3://KEY:SECRET@media/x'), /must not carry credentials: set AWS_ACCESS_KEY_ID/);
    assert.throws(() => parseObjectStoreAddress('s3://media/x?acl=public'), /unknown setting "acl"/);
    assert.throws(() => parseObjectStoreAddress('https://media/x'), /must start with s3:\/\//);
  });
});
