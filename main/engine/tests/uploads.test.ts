// Chunked, resumable uploads (issue 3) and what an interrupted upload leaves
// behind (nothing): sessions, idempotent parts, assembly, expiry, and a client
// that drops the connection halfway through a multipart create.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { ManualClock } from '../clock.ts';
import { sweepExpiredUploads } from '../files/uploads.ts';
import { multipartBody } from '../testing/multipart-upload.ts';
import { blobNames, download, eventually, tempFiles, uploadPartFiles } from '../testing/file-testing.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { SOLARDESK_EXTENSION_TAG } from '../http/extensions.ts';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const uploadsPath = '/api/orgs/1/private_files/uploads/';

async function putPart(server: TestServer, token: string, uploadId: string, part: number, bytes: Buffer, contentType = 'application/octet-stream') {
  const response = await fetch(`${server.baseUrl}${uploadsPath}${uploadId}/parts/${part}/`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body: bytes,
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests index into the answer
  return { status: response.status, json: (await response.json()) as any };
}

describe('chunked uploads', () => {
  let server: TestServer;
  let member: string;
  let admin: string;

  before(async () => {
    server = await startTestServer({ maxUploadBytes: 1024 * 1024 });
    member = await server.tokenFor(DEMO_USERS.sunriseMember);
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());

  test('start, send parts out of order and again, see them, complete: one file with the bytes in part order', async () => {
    const parts = [randomBytes(100_000), randomBytes(100_000), randomBytes(12_345)];
    const whole = Buffer.concat(parts);
    const started = await server.request('POST', uploadsPath, { token: member, body: { title: 'Drone survey', filename: 'survey.bin', project: 1, size: whole.length } });
    assert.equal(started.status, 201);
    assert.match(started.json.upload_id, /^[0-9a-f]{32}$/);
    assert.deepEqual(started.json.parts, []);
    assert.equal(started.json.status, 'open');
    const uploadId = started.json.upload_id as string;

    assert.deepEqual((await putPart(server, member, uploadId, 3, parts[2]!)).json, { part: 3, size: 12_345, etag: sha256(parts[2]!) });
    // A wrong part 1 first, then the right one: sending a part again replaces it.
    assert.equal((await putPart(server, member, uploadId, 1, randomBytes(777))).status, 200);
    assert.equal((await putPart(server, member, uploadId, 1, parts[0]!)).status, 200);
    // curl --data-binary sends a form content type; a part is raw bytes whatever the label.
    assert.equal((await putPart(server, member, uploadId, 2, parts[1]!, 'application/x-www-form-urlencoded')).status, 200);
    assert.equal((await putPart(server, member, uploadId, 2, parts[1]!)).status, 200, 'the same part twice is harmless');

    const shown = await server.request('GET', `${uploadsPath}${uploadId}/`, { token: member });
    assert.deepEqual(shown.json.parts, parts.map((bytes, index) => ({ part: index + 1, size: bytes.length, etag: sha256(bytes) })));
    assert.equal(shown.json.received_bytes, whole.length);

    const completed = await server.request('POST', `${uploadsPath}${uploadId}/complete/`, { token: member });
    assert.equal(completed.status, 201, completed.text);
    const file = completed.json;
    assert.equal(file.upload_id, uploadId);
    assert.deepEqual(file.parts, shown.json.parts);
    assert.match(file.completed_on, /^\d{4}-\d\d-\d\dT/);
    assert.equal(file.title, 'Drone survey');
    assert.equal(file.filesize, whole.length);
    assert.equal(file.file_hash, sha256(whole));
    assert.equal(file.project, `${server.baseUrl}${apiPaths.project(1, 1)}`);
    assert.deepEqual((await download(file.file_contents)).body, whole);
    assert.ok((await server.request('GET', '/api/orgs/1/projects/1/', { token: member })).json.private_files.includes(file.url));
    assert.deepEqual(uploadPartFiles(server).filter((name) => name.startsWith(uploadId)), [], 'parts are removed once assembled');

    const again = await server.request('POST', `${uploadsPath}${uploadId}/complete/`, { token: member });
    assert.equal(again.status, 200, 'completing again answers with the same file');
    assert.equal(again.json.id, file.id);
    assert.equal((await server.request('GET', `${uploadsPath}${uploadId}/`, { token: member })).json.status, 'completed');
    assert.equal((await putPart(server, member, uploadId, 1, parts[0]!)).status, 409);
  });

  test('completion needs parts 1..N with none missing, and the declared size', async () => {
    const start = async (body: Record<string, unknown>) => (await server.request('POST', uploadsPath, { token: member, body: { filename: 'f.bin', ...body } })).json.upload_id as string;
    const complete = async (uploadId: string) => server.request('POST', `${uploadsPath}${uploadId}/complete/`, { token: member });

    const empty = await start({});
    assert.deepEqual((await complete(empty)).json, { non_field_errors: ['No parts have been uploaded yet.'] });
    const gap = await start({});
    await putPart(server, member, gap, 1, Buffer.from('a'));
    await putPart(server, member, gap, 3, Buffer.from('c'));
    const gapAnswer = await complete(gap);
    assert.equal(gapAnswer.status, 400);
    assert.match(gapAnswer.json.non_field_errors[0], /Part 2 is missing/);
    const sized = await start({ size: 10 });
    await putPart(server, member, sized, 1, Buffer.from('abc'));
    assert.match((await complete(sized)).json.non_field_errors[0], /3 bytes.*size 10/);
    const blankTitle = await server.request('POST', uploadsPath, { token: member, body: { filename: 'f.bin', title: ' ' } });
    assert.equal(blankTitle.status, 400);
    assert.ok(blankTitle.json.title);
    const noName = await server.request('POST', uploadsPath, { token: member, body: { title: 'No file name' } });
    assert.deepEqual(noName.json, { filename: ['This field is required.'] });
  });

  test('an upload is its starter\'s: others get 403, unknown ids 404, non-Pro users 403', async () => {
    const uploadId = (await server.request('POST', uploadsPath, { token: member, body: { filename: 'mine.bin' } })).json.upload_id;
    assert.equal((await server.request('GET', `${uploadsPath}${uploadId}/`, { token: admin })).status, 403);
    assert.equal((await putPart(server, admin, uploadId, 1, Buffer.from('x'))).status, 403);
    assert.equal((await server.request('POST', `${uploadsPath}${uploadId}/complete/`, { token: admin })).status, 403);
    assert.equal((await server.request('GET', `${uploadsPath}${'0'.repeat(32)}/`, { token: member })).status, 404);
    assert.equal((await server.request('GET', `${uploadsPath}not-an-id/`, { token: member })).status, 404);
    assert.equal((await putPart(server, member, uploadId, 0, Buffer.from('x'))).status, 404, 'parts are numbered from 1');
    const viewer = await server.tokenFor(DEMO_USERS.sunriseViewer);
    assert.equal((await server.request('POST', uploadsPath, { token: viewer, body: { filename: 'x.bin' } })).status, 403);
    const hidden = await server.request('POST', uploadsPath, { token: member, body: { filename: 'x.bin', project: 2 } });
    assert.equal(hidden.status, 400, 'a project the member cannot see');
  });

  test('the upload size limit holds across parts: 413, and the part is not kept', async () => {
    const declared = await server.request('POST', uploadsPath, { token: member, body: { filename: 'big.bin', size: 2 * 1024 * 1024 } });
    assert.equal(declared.status, 413);
    const uploadId = (await server.request('POST', uploadsPath, { token: member, body: { filename: 'big.bin' } })).json.upload_id;
    assert.equal((await putPart(server, member, uploadId, 1, randomBytes(700 * 1024))).status, 200);
    const over = await putPart(server, member, uploadId, 2, randomBytes(400 * 1024));
    assert.equal(over.status, 413);
    assert.match(over.json.detail, /1 MiB/);
    const shown = await server.request('GET', `${uploadsPath}${uploadId}/`, { token: member });
    assert.deepEqual(shown.json.parts.map((part: { part: number }) => part.part), [1]);
    assert.equal((await putPart(server, member, uploadId, 1, randomBytes(1024 * 1024))).status, 200, 'a part may be replaced by one up to the limit');
    assert.deepEqual(tempFiles(server), []);
  });

  test('cancel (DELETE) removes the parts at once; the upload is gone; a completed one is 409 and keeps its file; others 403', async () => {
    const uploadId = (await server.request('POST', uploadsPath, { token: member, body: { filename: 'cancelled.bin', project: 1 } })).json.upload_id as string;
    assert.equal((await putPart(server, member, uploadId, 1, randomBytes(50_000))).status, 200);
    assert.equal((await putPart(server, member, uploadId, 2, randomBytes(50_000))).status, 200);
    assert.ok(uploadPartFiles(server).some((file) => file.includes(uploadId)), 'the parts are on disk before the cancel');
    assert.equal((await server.request('DELETE', `${uploadsPath}${uploadId}/`, { token: admin })).status, 403, "another user's upload");
    assert.equal((await server.request('DELETE', `${uploadsPath}${uploadId}/`, { token: member })).status, 204);
    assert.deepEqual(uploadPartFiles(server).filter((file) => file.includes(uploadId)), [], 'no part stays until expiry');
    assert.equal((await server.request('GET', `${uploadsPath}${uploadId}/`, { token: member })).status, 404);
    assert.equal((await server.request('POST', `${uploadsPath}${uploadId}/complete/`, { token: member })).status, 404, 'a cancelled upload never becomes a file');
    assert.equal((await putPart(server, member, uploadId, 3, randomBytes(10))).status, 404);
    const files = await server.request('GET', '/api/orgs/1/private_files/', { token: member });
    assert.ok(!files.json.some((file: { title: string }) => file.title === 'cancelled.bin'), 'nothing half-attached');
    assert.equal((await server.request('DELETE', `${uploadsPath}${uploadId}/`, { token: member })).status, 404, 'cancelling again');

    const done = (await server.request('POST', uploadsPath, { token: member, body: { filename: 'kept.bin' } })).json.upload_id as string;
    assert.equal((await putPart(server, member, done, 1, randomBytes(1000))).status, 200);
    const completed = await server.request('POST', `${uploadsPath}${done}/complete/`, { token: member });
    assert.equal(completed.status, 201);
    assert.equal((await server.request('DELETE', `${uploadsPath}${done}/`, { token: member })).status, 409);
    assert.equal((await server.request('GET', apiPaths.privateFile(1, completed.json.id), { token: member })).status, 200, 'the file stays');
    assert.deepEqual(tempFiles(server), []);

    // The hosted service has no such route: the OpenAPI document says so.
    const cancel = (await server.request('GET', '/api/schema/')).json.paths['/api/orgs/{org_id}/private_files/uploads/{upload_id}/'].delete;
    assert.ok(cancel.tags.includes(SOLARDESK_EXTENSION_TAG));
    assert.match(cancel.description, /^\*\*SolarDesk extension\*\*/);
  });
});

describe('upload expiry', () => {
  const clock = new ManualClock('2026-06-01T09:00:00.000Z');
  let server: TestServer;
  let member: string;

  before(async () => {
    server = await startTestServer({ clock, uploadExpiryHours: 2 });
    member = await server.tokenFor(DEMO_USERS.sunriseMember);
  });
  after(() => server.close());

  test('an unfinished upload expires after the configured time; the sweep removes it and its parts', async () => {
    const open = (await server.request('POST', uploadsPath, { token: member, body: { filename: 'left.bin' } })).json;
    assert.equal(open.expires_at, '2026-06-01T11:00:00.000Z');
    await putPart(server, member, open.upload_id, 1, randomBytes(1000));
    const done = (await server.request('POST', uploadsPath, { token: member, body: { filename: 'done.bin' } })).json;
    await putPart(server, member, done.upload_id, 1, Buffer.from('finished'));
    const file = (await server.request('POST', `${uploadsPath}${done.upload_id}/complete/`, { token: member })).json;
    assert.ok(uploadPartFiles(server).some((name) => name.startsWith(open.upload_id)));

    clock.advance(2 * 60 * 60 * 1000 - 1000);
    assert.equal(await sweepExpiredUploads(server.engine.context), 0, 'not yet');
    assert.equal((await server.request('GET', `${uploadsPath}${open.upload_id}/`, { token: member })).status, 200);

    clock.advance(1000);
    assert.equal((await server.request('GET', `${uploadsPath}${open.upload_id}/`, { token: member })).status, 404, 'expired, even before the sweep');
    assert.equal((await putPart(server, member, open.upload_id, 2, Buffer.from('late'))).status, 404);
    assert.equal(await sweepExpiredUploads(server.engine.context), 2);
    assert.deepEqual(uploadPartFiles(server), []);
    const rows = await server.engine.context.db.selectFrom('file_uploads').select('id').execute();
    assert.deepEqual(rows, []);
    const parts = await server.engine.context.db.selectFrom('file_upload_parts').select('upload_id').execute();
    assert.deepEqual(parts, []);
    const kept = await server.request('GET', apiPaths.privateFile(1, file.id), { token: member });
    assert.equal(kept.json.upload_id, done.upload_id, 'the completed file keeps its upload_id');
    assert.deepEqual((await download(kept.json.file_contents)).body, Buffer.from('finished'));
  });
});

describe('an upload cut off halfway', () => {
  let server: TestServer;
  let admin: string;

  before(async () => {
    server = await startTestServer();
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());

  /** Opens a raw connection, sends the headers and half the body, waits until the server is writing it, and hangs up. */
  async function sendHalfAndHangUp(method: string, urlPath: string, headers: Record<string, string>, body: Buffer): Promise<void> {
    const url = new URL(`${server.baseUrl}${urlPath}`);
    const socket = net.connect(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    const headerLines = Object.entries({ host: url.host, authorization: `Bearer ${admin}`, 'content-length': String(body.length), ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`${method} ${url.pathname} HTTP/1.1\r\n${headerLines}\r\n`);
    socket.write(body.subarray(0, body.length / 2));
    await eventually(() => tempFiles(server).length > 0, 'the server to start writing the body to a temp file');
    socket.destroy();
    await eventually(() => tempFiles(server).length === 0, 'the temp file to be removed');
  }

  test('a multipart create leaves no record, no temp file and no blob', async () => {
    const blobsBefore = blobNames(server);
    const countBefore = (await server.request('GET', '/api/orgs/1/private_files/?limit=1000', { token: admin })).json.length;
    const body = multipartBody({ title: 'cut off' }, { fileName: 'cut.bin', contents: randomBytes(4 * 1024 * 1024) });
    await sendHalfAndHangUp('POST', '/api/orgs/1/private_files/', { 'content-type': body.contentType }, Buffer.concat(await body.stream().toArray()));
    const countAfter = (await server.request('GET', '/api/orgs/1/private_files/?limit=1000', { token: admin })).json.length;
    assert.equal(countAfter, countBefore, 'no record');
    assert.deepEqual(blobNames(server), blobsBefore, 'no blob');
  });

  test('a chunked part leaves no part and no temp file', async () => {
    const uploadId = (await server.request('POST', uploadsPath, { token: admin, body: { filename: 'cut.bin' } })).json.upload_id;
    await sendHalfAndHangUp('PUT', `${uploadsPath}${uploadId}/parts/1/`, { 'content-type': 'application/octet-stream' }, randomBytes(4 * 1024 * 1024));
    const shown = await server.request('GET', `${uploadsPath}${uploadId}/`, { token: admin });
    assert.deepEqual(shown.json.parts, []);
    assert.deepEqual(uploadPartFiles(server), []);
  });
});
