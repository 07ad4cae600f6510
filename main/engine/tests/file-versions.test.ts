// Issue 14: SolarDesk's contents and versions extension of the private files API
// (docs/files.md "Versions"), over a real server: new contents keep the file's id,
// the replaced contents are kept as versions on this computer, listed, downloaded
// and restored; retention, the quota, If-Match, access and the OpenAPI entry.
// Only the clock is faked (ManualClock), to age versions past 30 days.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-accounts.ts';
import { DEMO_PASSWORD } from '../seed/demo-seed.ts';
import { ManualClock } from '../clock.ts';
import { multipartBody, sendMultipart, type UploadResponse } from '../testing/multipart-upload.ts';
import { blobNames, createFile, download } from '../testing/file-testing.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { KEPT_VERSIONS, KEPT_VERSION_AGE_MS } from '../files/file-versions.ts';
import { SOLARDESK_EXTENSION_TAG } from '../http/extensions.ts';
import type { RecordChangeEvent } from '../changes/change-feed.ts';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const DAY_MS = 24 * 60 * 60_000;

function putContents(server: TestServer, token: string, fileId: number, bytes: Buffer | string, fileName: string, headers: Record<string, string> = {}): Promise<UploadResponse> {
  return sendMultipart('PUT', `${server.baseUrl}${apiPaths.privateFileContents(1, fileId)}`, token, multipartBody({}, { fileName, contents: Buffer.from(bytes) }), headers);
}

async function replaceOk(server: TestServer, token: string, fileId: number, bytes: Buffer | string, fileName: string) {
  const response = await putContents(server, token, fileId, bytes, fileName);
  assert.equal(response.status, 200, JSON.stringify(response.json));
  return response.json;
}

async function versionsOf(server: TestServer, token: string, fileId: number) {
  const response = await server.request('GET', apiPaths.privateFileVersions(1, fileId), { token });
  assert.equal(response.status, 200, response.text);
  return response.json as Array<{ id: number; filesize: number; file_hash: string; file_name: string; replaced_at: string; replaced_by_name: string | null; contents: string; restore: string }>;
}

async function versionBytes(server: TestServer, token: string, fileId: number, versionId: number) {
  const response = await fetch(`${server.baseUrl}${apiPaths.privateFileVersionContents(1, fileId, versionId)}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

const blobExists = (server: TestServer, hash: string) => fs.existsSync(path.join(server.dataDir, 'blobs', hash.slice(0, 2), hash.slice(2, 4), hash));

describe('private file contents and versions', () => {
  let server: TestServer;
  let admin: string;
  let member: string;
  let viewer: string;

  before(async () => {
    server = await startTestServer();
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    member = await server.tokenFor(DEMO_USERS.sunriseMember);
    viewer = await server.tokenFor(DEMO_USERS.sunriseViewer);
  });
  after(() => server.close());

  test('new contents keep the id and change contents, size, hash and type; the link serves the new bytes', async () => {
    const file = await createFile(server, admin, 'first draft', 'notes.txt', { title: 'Site notes', project: '5' });
    const events: RecordChangeEvent[] = [];
    const stop = server.engine.context.changes.subscribe((changes) => events.push(...changes));
    const replaced = await replaceOk(server, admin, file.id, 'second draft, longer', 'notes.txt');
    stop();
    assert.equal(replaced.id, file.id);
    assert.equal(replaced.title, 'Site notes', 'the title is the file\'s, not the contents\'');
    assert.equal(replaced.project, file.project);
    assert.equal(replaced.filesize, 'second draft, longer'.length);
    assert.equal(replaced.file_hash, sha256('second draft, longer'));
    assert.ok(replaced.modified_date > file.modified_date);
    assert.deepEqual((await download(replaced.file_contents)).body, Buffer.from('second draft, longer'));
    assert.deepEqual(
      events.map((event) => [event.model, event.id, event.op]),
      [['private_file', file.id, 'update']],
      'one private_file update on the change feed, and no project snapshot',
    );
    const list = await server.request('GET', apiPaths.privateFiles(1), { token: admin });
    assert.equal(list.json.filter((other: { title: string }) => other.title === 'Site notes').length, 1, 'still one file');
  });

  test('the replaced contents are a version: listed newest first with who and when, downloadable with their old name', async () => {
    const file = await createFile(server, admin, 'v1', 'plan.csv');
    await replaceOk(server, admin, file.id, 'v2 v2', 'plan.csv');
    await replaceOk(server, admin, file.id, 'v3 v3 v3', 'plan-final.csv');
    const versions = await versionsOf(server, admin, file.id);
    assert.deepEqual(versions.map((version) => version.file_hash), [sha256('v2 v2'), sha256('v1')]);
    assert.deepEqual(versions.map((version) => version.filesize), [5, 2]);
    assert.equal(versions[0]!.replaced_by_name, 'Alex Morgan');
    assert.ok(versions[0]!.replaced_at >= versions[1]!.replaced_at);
    const oldest = await versionBytes(server, admin, file.id, versions[1]!.id);
    assert.equal(oldest.status, 200);
    assert.deepEqual(oldest.body, Buffer.from('v1'));
    assert.match(oldest.headers.get('content-disposition') ?? '', /plan\.csv/);
    const current = await server.request('GET', apiPaths.privateFile(1, file.id), { token: admin });
    assert.match((await download(current.json.file_contents)).headers.get('content-disposition') ?? '', /plan-final\.csv/, 'a named part renames the contents');
    assert.ok(blobExists(server, sha256('v1')) && blobExists(server, sha256('v2 v2')), 'blobs named only by versions are kept');
  });

  test('restore makes a version the contents again, and the contents it replaces a version in turn', async () => {
    const file = await createFile(server, admin, 'original photo bytes', 'roof.txt');
    await replaceOk(server, admin, file.id, 'a bad edit', 'roof.txt');
    const [original] = await versionsOf(server, admin, file.id);
    const restored = await server.request('POST', apiPaths.privateFileVersionRestore(1, file.id, original!.id), { token: admin });
    assert.equal(restored.status, 200, restored.text);
    assert.equal(restored.json.id, file.id);
    assert.equal(restored.json.file_hash, sha256('original photo bytes'));
    assert.ok(restored.headers.get('etag'));
    assert.deepEqual((await download(restored.json.file_contents)).body, Buffer.from('original photo bytes'));
    const versions = await versionsOf(server, admin, file.id);
    assert.deepEqual(versions.map((version) => version.file_hash), [sha256('a bad edit'), sha256('original photo bytes')], 'the bad edit can be restored in turn');
  });

  test('the same contents again make no version and no change', async () => {
    const file = await createFile(server, admin, 'unchanged', 'same.txt');
    const again = await replaceOk(server, admin, file.id, 'unchanged', 'same.txt');
    assert.equal(again.modified_date, file.modified_date);
    assert.deepEqual(await versionsOf(server, admin, file.id), []);
  });

  test('If-Match: a stale version is 412 and nothing changes; the current one passes', async () => {
    const file = await createFile(server, admin, 'base', 'cond.txt');
    const detail = await server.request('GET', apiPaths.privateFile(1, file.id), { token: admin });
    const etag = detail.headers.get('etag')!;
    assert.equal((await replaceOk(server, admin, file.id, 'moved on', 'cond.txt')).file_hash, sha256('moved on'));
    const stale = await putContents(server, admin, file.id, 'based on the old one', 'cond.txt', { 'if-match': etag });
    assert.equal(stale.status, 412);
    assert.ok(stale.headers.etag);
    const [version] = await versionsOf(server, admin, file.id);
    const staleRestore = await server.request('POST', apiPaths.privateFileVersionRestore(1, file.id, version!.id), { token: admin, headers: { 'if-match': etag } });
    assert.equal(staleRestore.status, 412);
    const now = await server.request('GET', apiPaths.privateFile(1, file.id), { token: admin });
    assert.equal(now.json.file_hash, sha256('moved on'), 'nothing changed');
    assert.equal((await versionsOf(server, admin, file.id)).length, 1, 'and no version was recorded');
    const fresh = await putContents(server, admin, file.id, 'based on the new one', 'cond.txt', { 'if-match': now.headers.get('etag')! });
    assert.equal(fresh.status, 200);
    assert.ok(!blobNames(server).includes(sha256('based on the old one')), 'refused bytes leave no blob');
  });

  test('access is that of PATCH: not Pro 403, a file one cannot see 403, no such file or version 404', async () => {
    const hidden = await createFile(server, admin, 'admin only', 'private.txt');
    await replaceOk(server, admin, hidden.id, 'admin only, edited', 'private.txt');
    const [version] = await versionsOf(server, admin, hidden.id);
    for (const token of [member, viewer]) {
      assert.equal((await putContents(server, token, hidden.id, 'intruder', 'private.txt')).status, 403);
      assert.equal((await server.request('GET', apiPaths.privateFileVersions(1, hidden.id), { token })).status, 403);
      assert.equal((await versionBytes(server, token, hidden.id, version!.id)).status, 403);
      assert.equal((await server.request('POST', apiPaths.privateFileVersionRestore(1, hidden.id, version!.id), { token })).status, 403);
    }
    assert.equal((await server.request('GET', apiPaths.privateFileVersions(1, hidden.id), { token: admin })).json.length, 1, 'nothing changed');
    const own = await createFile(server, member, 'mine', 'mine.txt');
    assert.equal((await putContents(server, member, own.id, 'mine, edited', 'mine.txt')).status, 200, 'a member replaces a file they created');
    assert.equal((await putContents(server, admin, 999999, 'x', 'x.txt')).status, 404);
    assert.equal((await versionBytes(server, admin, own.id, version!.id)).status, 404, "another file's version is not this file's");
    assert.equal((await server.request('POST', apiPaths.privateFileVersionRestore(1, own.id, version!.id), { token: admin })).status, 404);
  });

  test('deleting a file deletes its versions and their blobs', async () => {
    const file = await createFile(server, admin, 'doomed one', 'doomed.txt');
    await replaceOk(server, admin, file.id, 'doomed two', 'doomed.txt');
    assert.ok(blobExists(server, sha256('doomed one')));
    assert.equal((await server.request('DELETE', apiPaths.privateFile(1, file.id), { token: admin })).status, 204);
    assert.ok(!blobExists(server, sha256('doomed one')) && !blobExists(server, sha256('doomed two')));
    const rows = await server.engine.context.db.selectFrom('private_file_versions').select('id').where('file_id', '=', file.id).execute();
    assert.deepEqual(rows, []);
  });

  test('the OpenAPI document names the four routes as SolarDesk extensions', async () => {
    const schema = (await server.request('GET', '/api/schema/')).json;
    const base = '/api/orgs/{org_id}/private_files/{id}/';
    const routes: Array<[string, string]> = [
      [`${base}contents/`, 'put'],
      [`${base}versions/`, 'get'],
      [`${base}versions/{version_id}/contents/`, 'get'],
      [`${base}versions/{version_id}/restore/`, 'post'],
    ];
    for (const [route, method] of routes) {
      const operation = schema.paths[route]?.[method];
      assert.ok(operation, `${method} ${route} in the OpenAPI document`);
      assert.ok(operation.tags.includes(SOLARDESK_EXTENSION_TAG), `${route} is tagged as an extension`);
      assert.match(operation.description, /^\*\*SolarDesk extension\*\*: not part of the hosted service/);
    }
  });
});

test('the contents and versions routes count in the private files quota', async () => {
  const quota = { user: '4/hour', org: null };
  const rates = Object.fromEntries(
    ['private_file_create', 'private_file_list', 'private_file_detail', 'private_file_download', 'private_file_contents_update', 'private_file_versions'].map((action) => [action, quota]),
  );
  const server = await startTestServer({ throttleRates: rates, clock: new ManualClock() });
  try {
    const admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const file = await createFile(server, admin, 'counted', 'quota.txt'); // 1
    assert.equal((await putContents(server, admin, file.id, 'counted again', 'quota.txt')).status, 200); // 2
    const versions = await server.request('GET', apiPaths.privateFileVersions(1, file.id), { token: admin }); // 3
    assert.equal(versions.status, 200);
    assert.equal((await versionBytes(server, admin, file.id, versions.json[0].id)).status, 200); // 4
    const refused = await server.request('POST', apiPaths.privateFileVersionRestore(1, file.id, versions.json[0].id), { token: admin });
    assert.equal(refused.status, 429);
    assert.equal((await server.request('GET', apiPaths.privateFiles(1), { token: admin })).status, 429, 'one count with the rest of private files');
  } finally {
    await server.close();
  }
});

/** A token made now: the clock moves by days here, past a cached token's expiry. */
async function signIn(server: TestServer): Promise<string> {
  const response = await server.request('POST', '/api-token-auth/', { body: { username: DEMO_USERS.sunriseAdmin, password: DEMO_PASSWORD } });
  assert.equal(response.status, 200, response.text);
  return response.json.token;
}

test(`retention: a file keeps its ${KEPT_VERSIONS} newest versions and every one younger than 30 days, on each replace and at start`, async () => {
  const clock = new ManualClock();
  const first = await startTestServer({ clock });
  let file: { id: number };
  try {
    file = await createFile(first, await signIn(first), 'edit 0', 'log.txt');
    // 12 edits a day apart: 12 versions, all younger than 30 days, all kept.
    for (let edit = 1; edit <= 12; edit++) {
      clock.advance(DAY_MS);
      await replaceOk(first, await signIn(first), file.id, `edit ${edit}`, 'log.txt');
    }
    assert.equal((await versionsOf(first, await signIn(first), file.id)).length, 12);
  } finally {
    await first.close({ keepData: true });
  }

  // At the next start, 30 days on, only the 10 newest remain; the 2 oldest go, blobs and all.
  clock.advance(KEPT_VERSION_AGE_MS);
  const second = await startTestServer({ clock, dataDir: first.dataDir });
  try {
    const token = await signIn(second);
    const afterStart = await versionsOf(second, token, file.id);
    assert.deepEqual(afterStart.map((version) => version.file_hash), Array.from({ length: 10 }, (_, index) => sha256(`edit ${11 - index}`)));
    assert.ok(!blobExists(second, sha256('edit 0')) && !blobExists(second, sha256('edit 1')), "the pruned versions' blobs are gone");
    assert.ok(blobExists(second, sha256('edit 2')));

    // A replace now: its new version is young, so the oldest aged one goes (still 10, now with the newest).
    await replaceOk(second, token, file.id, 'edit 13', 'log.txt');
    const afterReplace = await versionsOf(second, token, file.id);
    assert.equal(afterReplace.length, KEPT_VERSIONS);
    assert.equal(afterReplace[0]!.file_hash, sha256('edit 12'));
    assert.ok(!afterReplace.some((version) => version.file_hash === sha256('edit 2')));
    assert.ok(!blobExists(second, sha256('edit 2')));

    // Five quick edits: their young versions push out as many aged ones (the first phase kept 12 young ones).
    for (let edit = 14; edit <= 18; edit++) await replaceOk(second, token, file.id, `edit ${edit}`, 'log.txt');
    const afterEdits = await versionsOf(second, token, file.id);
    assert.deepEqual(afterEdits.map((version) => version.file_hash), Array.from({ length: 10 }, (_, index) => sha256(`edit ${17 - index}`)));
  } finally {
    await second.close();
  }
});
