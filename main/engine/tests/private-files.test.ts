// service.md 2.2 and 4.2, compatibility.md "Private files": the private file
// resource over a real server, its blobs on disk, its signed download links, and
// the project side of the file-project link.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { ManualClock } from '../clock.ts';
import { multipartBody, postMultipart } from '../testing/multipart-upload.ts';
import { blobNames, createFile, download, tempFiles, uploadFile } from '../testing/file-testing.ts';
import { SHARED_LEFTOVER_AGE_MS } from '../files/blob-store.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

type JsonType = 'string' | 'integer' | 'boolean' | 'array' | 'object' | 'null' | 'any';

/** service.md 2.2, transcribed by hand so the test checks the engine against the document. */
const FILE_FIELD_TYPES: Record<string, JsonType[]> = {
  url: ['string'], id: ['integer'], org: ['string'], project: ['string', 'null'], user: ['string'], document_template: ['any'],
  title: ['string'], file_contents: ['string'], filesize: ['integer', 'null'], file_tags: ['array'], file_tags_data: ['array'],
  system_uuid: ['string', 'null'], input_data: ['any'], input_data_hash: ['string'], file_hash: ['string', 'null'],
  status: ['string', 'null'], status_message: ['string', 'null'], show_customer: ['boolean'], temporary: ['boolean'],
  upload_id: ['string'], parts: ['array'], completed_on: ['string'], created_date: ['string'], modified_date: ['string'],
};

function typeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : ('number' as JsonType);
  return typeof value as JsonType;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const ids = (files: Array<{ id: number }>) => files.map((file) => file.id);

describe('private files', () => {
  let server: TestServer;
  let admin: string;
  let member: string;
  const filesPath = '/api/orgs/1/private_files/';

  before(async () => {
    server = await startTestServer();
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    member = await server.tokenFor(DEMO_USERS.sunriseMember);
  });
  after(() => server.close());

  test('a multipart create answers 201 with every field of service.md 2.2, typed; the title defaults to the file name', async () => {
    const bytes = randomBytes(5000);
    const response = await uploadFile(server, admin, bytes, 'roof scan.bin');
    assert.equal(response.status, 201);
    const file = response.json;
    assert.deepEqual(Object.keys(file).sort(), Object.keys(FILE_FIELD_TYPES).sort());
    for (const [field, allowed] of Object.entries(FILE_FIELD_TYPES)) {
      if (!allowed.includes('any')) assert.ok(allowed.includes(typeOf(file[field])), `${field}: ${JSON.stringify(file[field])}`);
    }
    assert.equal(file.title, 'roof scan.bin');
    assert.equal(file.filesize, 5000);
    assert.equal(file.file_hash, sha256(bytes));
    assert.equal(file.project, null);
    assert.equal(file.url, `${server.baseUrl}${filesPath}${file.id}/`);
    assert.match(file.file_contents, new RegExp(`^${server.baseUrl}/`));
    assert.equal(file.status, 'created');
    const blob = path.join(server.dataDir, 'blobs', file.file_hash.slice(0, 2), file.file_hash.slice(2, 4), file.file_hash);
    assert.deepEqual(fs.readFileSync(blob), bytes, 'the blob is content-addressed under the data folder');
    const detail = await server.request('GET', `${filesPath}${file.id}/`, { token: admin });
    assert.equal(detail.status, 200);
    assert.equal(detail.json.title, file.title);
    assert.deepEqual(tempFiles(server), [], 'no temp file stays behind');
  });

  test('a title part, a project and tags may come with the file', async () => {
    const tags = await server.request('GET', '/api/orgs/1/file_tags/?limit=1000', { token: admin });
    const photo = tags.json.find((tag: { title: string }) => tag.title === 'Site - Photo');
    const file = await createFile(server, admin, 'jpeg-ish', 'IMG_0001.JPG', { title: 'Gutter', project: '/api/orgs/1/projects/5/', file_tags: photo.url });
    assert.equal(file.title, 'Gutter');
    assert.equal(file.project, `${server.baseUrl}${apiPaths.project(1, 5)}`);
    assert.deepEqual(file.file_tags, [photo.url]);
    assert.deepEqual(file.file_tags_data, [photo]);
  });

  test('a real multipart body is accepted under a stray Content-Type: application/json', async () => {
    const body = multipartBody({ title: 'mislabelled' }, { fileName: 'note.txt', contents: Buffer.from('field note') });
    const response = await postMultipart(`${server.baseUrl}${filesPath}`, admin, body, { 'content-type': 'application/json' });
    assert.equal(response.status, 201, JSON.stringify(response.json));
    assert.equal(response.json.title, 'mislabelled');
    assert.equal(response.json.filesize, 10);
  });

  test('JSON is not a file (415); a multipart body without the file part is 400 on file_contents', async () => {
    const json = await server.request('POST', filesPath, { token: admin, body: { title: 'no file' } });
    assert.equal(json.status, 415);
    assert.match(json.json.detail, /multipart\/form-data/);
    const body = multipartBody({}, { fileName: 'x.txt', contents: Buffer.from('x') }, 'attachment');
    const missing = await postMultipart(`${server.baseUrl}${filesPath}`, admin, body);
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.json, { file_contents: ['No file was submitted.'] });
  });

  test('the download link works with no Authorization header, with type, name and the exact bytes', async () => {
    const bytes = Buffer.from('%PDF-1.4\n% a tiny pdf\n');
    const file = await createFile(server, admin, bytes, 'Vertrag für Müller.pdf');
    const response = await download(file.file_contents);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, bytes);
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    assert.equal(response.headers.get('content-length'), String(bytes.length));
    const disposition = response.headers.get('content-disposition') ?? '';
    assert.match(disposition, /filename="Vertrag f_r M_ller\.pdf"/);
    assert.match(disposition, /filename\*=UTF-8''Vertrag%20f%C3%BCr%20M%C3%BCller\.pdf/);
    assert.equal(response.headers.get('accept-ranges'), 'bytes');
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    // Without a telling name, the first bytes decide.
    const png = await createFile(server, admin, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]), 'scan');
    const pngDownload = await download(png.file_contents);
    assert.equal(pngDownload.headers.get('content-type'), 'image/png');
    // ...and the name a browser saves it under gets their extension, so the system can open it.
    assert.match(pngDownload.headers.get('content-disposition') ?? '', /filename="scan\.png"/);
    const unknown = await createFile(server, admin, Buffer.from([1, 2, 3, 4]), 'notes');
    assert.match((await download(unknown.file_contents)).headers.get('content-disposition') ?? '', /filename="notes"/, 'bytes nobody knows: no guessed extension');
  });

  test('Range requests answer 206 with exactly the bytes asked for, 416 past the end, the whole file for several ranges', async () => {
    const bytes = randomBytes(1000);
    const file = await createFile(server, admin, bytes, 'range.bin');
    const cases: Array<[string, number, number]> = [
      ['bytes=0-99', 0, 99],
      ['bytes=900-', 900, 999],
      ['bytes=-10', 990, 999],
      ['bytes=950-5000', 950, 999],
    ];
    for (const [range, start, end] of cases) {
      const response = await download(file.file_contents, { range });
      assert.equal(response.status, 206, range);
      assert.equal(response.headers.get('content-range'), `bytes ${start}-${end}/1000`, range);
      assert.deepEqual(response.body, bytes.subarray(start, end + 1), range);
    }
    const past = await download(file.file_contents, { range: 'bytes=1000-' });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get('content-range'), 'bytes */1000');
    const several = await download(file.file_contents, { range: 'bytes=0-1,5-6' });
    assert.equal(several.status, 200);
    assert.deepEqual(several.body, bytes);
    const stale = await download(file.file_contents, { range: 'bytes=0-9', 'if-range': '"another-version"' });
    assert.equal(stale.status, 200, 'If-Range that does not match sends the whole file');
  });

  test('a tampered link is refused with 403: id, user, expiry or signature changed', async () => {
    const file = await createFile(server, admin, 'secret', 'secret.txt');
    const other = await createFile(server, admin, 'other', 'other.txt');
    const url = new URL(file.file_contents);
    const tampered = (change: (link: URL) => void) => {
      const copy = new URL(url);
      change(copy);
      return copy.toString();
    };
    const forgeries = [
      tampered((link) => (link.pathname = link.pathname.replace(`/${file.id}/`, `/${other.id}/`))),
      tampered((link) => link.searchParams.set('user', '2')),
      tampered((link) => link.searchParams.set('expires', String(Number(link.searchParams.get('expires')) + 3600))),
      tampered((link) => link.searchParams.set('signature', `${link.searchParams.get('signature')!.slice(0, -2)}AA`)),
      tampered((link) => link.searchParams.delete('signature')),
    ];
    for (const forged of forgeries) {
      const response = await download(forged);
      assert.equal(response.status, 403, forged);
      assert.ok(!response.body.toString().includes('secret') && !response.body.toString().includes('other'), 'never the file');
    }
  });

  test('a deleted file: its link is 404, its record 404, and its blob is gone', async () => {
    const bytes = randomBytes(64);
    const file = await createFile(server, admin, bytes, 'gone.bin');
    assert.ok(blobNames(server).includes(file.file_hash));
    const deleted = await server.request('DELETE', `${filesPath}${file.id}/`, { token: admin });
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    assert.equal((await download(file.file_contents)).status, 404);
    assert.equal((await server.request('GET', `${filesPath}${file.id}/`, { token: admin })).status, 404);
    assert.ok(!blobNames(server).includes(file.file_hash));
  });

  test('identical contents share one blob, which goes only with the last file naming it', async () => {
    const bytes = randomBytes(256);
    const first = await createFile(server, admin, bytes, 'a.bin');
    const second = await createFile(server, member, bytes, 'b.bin');
    assert.equal(first.file_hash, second.file_hash);
    assert.equal(blobNames(server).filter((name) => name === first.file_hash).length, 1);
    await server.request('DELETE', `${filesPath}${first.id}/`, { token: admin });
    assert.ok(blobNames(server).includes(first.file_hash), 'still named by the second file');
    assert.deepEqual((await download(second.file_contents)).body, bytes);
    await server.request('DELETE', `${filesPath}${second.id}/`, { token: member });
    assert.ok(!blobNames(server).includes(first.file_hash));
  });

  test('PATCH changes title and show_customer, and attaches, moves and detaches; the projects follow', async () => {
    const file = await createFile(server, admin, 'site notes', 'notes.txt');
    const patched = await server.request('PATCH', `${filesPath}${file.id}/`, { token: admin, body: { title: 'Site notes', show_customer: 'true', project: 7, unknown: 1 } });
    assert.equal(patched.status, 200);
    assert.equal(patched.json.title, 'Site notes');
    assert.equal(patched.json.show_customer, true);
    assert.equal(patched.json.project, `${server.baseUrl}${apiPaths.project(1, 7)}`);
    const projectFiles = async (id: number) => (await server.request('GET', apiPaths.project(1, id), { token: admin })).json;
    let seven = await projectFiles(7);
    assert.ok(seven.private_files.includes(file.url));
    assert.equal(seven.private_files_data.find((data: { id: number }) => data.id === file.id).title, 'Site notes');

    const moved = await server.request('PATCH', `${filesPath}${file.id}/`, { token: admin, body: { project: `${server.baseUrl}${apiPaths.project(1, 8)}` } });
    assert.equal(moved.json.project, `${server.baseUrl}${apiPaths.project(1, 8)}`);
    seven = await projectFiles(7);
    assert.ok(!seven.private_files.includes(file.url), 'moved away from 7');
    assert.ok((await projectFiles(8)).private_files.includes(file.url));

    const detached = await server.request('PATCH', `${filesPath}${file.id}/`, { token: admin, body: { project: null } });
    assert.equal(detached.json.project, null);
    assert.ok(!(await projectFiles(8)).private_files.includes(file.url));
  });

  test('PATCH refuses projects of other orgs, projects the user cannot see, unknown tags', async () => {
    const file = await createFile(server, member, 'mine', 'mine.txt');
    const otherOrg = await server.request('PATCH', `${filesPath}${file.id}/`, { token: member, body: { project: '/api/orgs/2/projects/49/' } });
    assert.equal(otherOrg.status, 400);
    assert.ok(otherOrg.json.project);
    // The member holds a role on projects 1, 4, 9... (every eighth from 0 and from 3), not on 2.
    const hidden = await server.request('PATCH', `${filesPath}${file.id}/`, { token: member, body: { project: 2 } });
    assert.equal(hidden.status, 400);
    const unknownTag = await server.request('PATCH', `${filesPath}${file.id}/`, { token: member, body: { file_tags: [999999] } });
    assert.deepEqual(unknownTag.json, { file_tags: ['Invalid hyperlink - Object does not exist.'] });
    const blank = await server.request('PATCH', `${filesPath}${file.id}/`, { token: member, body: { title: '  ' } });
    assert.equal(blank.status, 400);
    assert.ok(blank.json.title);
  });

  test('tagging a file Projects Export takes projects_export; tags are set by URL or id', async () => {
    const tags = (await server.request('GET', '/api/orgs/1/file_tags/?limit=1000', { token: admin })).json as Array<{ id: number; url: string; title: string }>;
    const byTitle = (title: string) => tags.find((tag) => tag.title === title)!;
    const file = await createFile(server, member, 'bill', 'bill.csv');
    const denied = await server.request('PATCH', `${filesPath}${file.id}/`, { token: member, body: { file_tags: [byTitle('Projects Export').id] } });
    assert.equal(denied.status, 400);
    assert.match(denied.json.file_tags[0], /projects_export/);
    const tagged = await server.request('PATCH', `${filesPath}${file.id}/`, { token: member, body: { file_tags: [byTitle('Site - Utility Bill').url, byTitle('Site - Photo').id] } });
    assert.equal(tagged.status, 200);
    assert.deepEqual(tagged.json.file_tags_data.map((tag: { title: string }) => tag.title).sort(), ['Site - Photo', 'Site - Utility Bill']);
    const cleared = await server.request('PATCH', `${filesPath}${file.id}/`, { token: member, body: { file_tags: [] } });
    assert.deepEqual(cleared.json.file_tags, []);
  });

  test("a project's private_files is writable: the list becomes exactly its files, both directions agree", async () => {
    const [a, b, c] = [
      await createFile(server, admin, 'a', 'a.txt', { project: '10' }),
      await createFile(server, admin, 'b', 'b.txt', { project: '11' }),
      await createFile(server, admin, 'c', 'c.txt'),
    ];
    const patched = await server.request('PATCH', '/api/orgs/1/projects/10/', { token: admin, body: { private_files: [b.url, apiPaths.privateFile(1, c.id)] } });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    assert.deepEqual([...patched.json.private_files].sort(), [b.url, c.url].sort());
    assert.deepEqual(patched.json.private_files_data.map((file: { id: number }) => file.id).sort(), [b.id, c.id].sort());
    const fileProject = async (id: number) => (await server.request('GET', `${filesPath}${id}/`, { token: admin })).json.project;
    assert.equal(await fileProject(a.id), null, 'left out of the list: detached');
    assert.equal(await fileProject(b.id), `${server.baseUrl}${apiPaths.project(1, 10)}`, 'moved from project 11');
    assert.equal(await fileProject(c.id), `${server.baseUrl}${apiPaths.project(1, 10)}`);
    const eleven = await server.request('GET', '/api/orgs/1/projects/11/', { token: admin });
    assert.ok(!eleven.json.private_files.includes(b.url));
    const bad = await server.request('PATCH', '/api/orgs/1/projects/10/', { token: admin, body: { private_files: ['/api/orgs/1/private_files/999999/'] } });
    assert.equal(bad.status, 400);
    assert.ok(bad.json.private_files);
  });

  test('a project write by the member leaves files they cannot see where they are', async () => {
    // Project 1 holds a seeded Projects Export-tagged proposal that the member may not see.
    const before = (await server.request('GET', '/api/orgs/1/projects/1/', { token: admin })).json.private_files as string[];
    const mine = await createFile(server, member, 'mine', 'mine.txt');
    const patched = await server.request('PATCH', '/api/orgs/1/projects/1/', { token: member, body: { private_files: [mine.url] } });
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.json.private_files, [mine.url]);
    const after = (await server.request('GET', '/api/orgs/1/projects/1/', { token: admin })).json;
    const proposal = after.private_files_data.find((file: { title: string }) => file.title === 'Proposal');
    assert.ok(proposal, 'the Projects Export-tagged file is still attached');
    assert.equal(after.private_files.length, before.filter((url) => url === proposal.url).length + 1);
  });

  test('list filters: project as id, URL or path; user_id; file_tags and file_tags_exclude by title; search', async () => {
    const projectIds = async (query: string) => ids((await server.request('GET', `${filesPath}?limit=1000&${query}`, { token: admin })).json);
    const onFour = await projectIds('project=4');
    assert.ok(onFour.length > 0);
    assert.deepEqual(await projectIds(`project=${encodeURIComponent(`${server.baseUrl}${apiPaths.project(1, 4)}`)}`), onFour);
    assert.deepEqual(await projectIds(`project=${encodeURIComponent('/api/orgs/1/projects/4/')}`), onFour);
    assert.deepEqual(await projectIds(`project=${encodeURIComponent('/api/orgs/2/projects/4/')}`), [], 'another org: nothing');
    assert.equal((await server.request('GET', `${filesPath}?project=nonsense`, { token: admin })).status, 400);

    const all = (await server.request('GET', `${filesPath}?limit=1000`, { token: admin })).json as Array<{ id: number; user: string; file_tags_data: Array<{ title: string }>; title: string }>;
    const byMember = all.filter((file) => file.user.endsWith('/api/global_users/2/'));
    assert.ok(byMember.length > 0);
    assert.deepEqual(await projectIds('user_id=2'), ids(byMember));

    const withTag = (...titles: string[]) => all.filter((file) => file.file_tags_data.some((tag) => titles.includes(tag.title)));
    assert.deepEqual(await projectIds(`file_tags=${encodeURIComponent('Site - Photo')}`), ids(withTag('Site - Photo')));
    assert.deepEqual(await projectIds(`file_tags=${encodeURIComponent('Site - Photo,Site - Utility Bill')}`), ids(withTag('Site - Photo', 'Site - Utility Bill')));
    assert.deepEqual(await projectIds(`file_tags=${encodeURIComponent('Site - Photo')}&file_tags=${encodeURIComponent('Site - Utility Bill')}`), ids(withTag('Site - Photo', 'Site - Utility Bill')));
    assert.deepEqual(await projectIds(`file_tags=${encodeURIComponent('System Image')}`), ids(withTag('System Image')));
    const notExport = all.filter((file) => !file.file_tags_data.some((tag) => tag.title === 'Projects Export'));
    assert.deepEqual(await projectIds(`file_tags_exclude=${encodeURIComponent('Projects Export')}`), ids(notExport));

    const special = await createFile(server, admin, 'x', 'x.txt', { title: '100%_done' });
    await createFile(server, admin, 'y', 'y.txt', { title: '1000 done' });
    assert.deepEqual(await projectIds(`search=${encodeURIComponent('0%_d')}`), [special.id], '% and _ are literal');
    assert.deepEqual(await projectIds(`search=${special.file_hash.slice(10, 30)}`), [special.id], 'search looks in file_hash');
  });

  test('ordering by created_date, modified_date, title, status, filesize; default -modified_date; unknown ignored; paging', async () => {
    const list = async (query: string) => (await server.request('GET', `${filesPath}?limit=1000&${query}`, { token: admin })).json as Array<Record<string, string | number>>;
    const sortedBy = (files: Array<Record<string, string | number>>, field: string, direction: 1 | -1) =>
      [...files].sort((x, y) => (x[field]! < y[field]! ? -direction : x[field]! > y[field]! ? direction : direction * (Number(x.id) - Number(y.id))));
    const all = await list('');
    assert.deepEqual(ids(all as never), ids(sortedBy(all, 'modified_date', -1) as never), 'default -modified_date');
    for (const field of ['created_date', 'modified_date', 'title', 'filesize']) {
      assert.deepEqual(ids((await list(`ordering=${field}`)) as never), ids(sortedBy(all, field, 1) as never), field);
      assert.deepEqual(ids((await list(`ordering=-${field}`)) as never), ids(sortedBy(all, field, -1) as never), `-${field}`);
    }
    assert.equal((await list('ordering=status')).length, all.length);
    assert.deepEqual(ids((await list('ordering=password')) as never), ids(all as never), 'unknown field ignored');
    const page1 = (await server.request('GET', `${filesPath}?limit=3&page=1`, { token: admin })).json;
    const page2 = (await server.request('GET', `${filesPath}?limit=3&page=2`, { token: admin })).json;
    assert.deepEqual([...ids(page1), ...ids(page2)], ids(all.slice(0, 6) as never));
    assert.deepEqual((await server.request('GET', `${filesPath}?limit=3&page=999`, { token: admin })).json, []);
  });

  test('file tags: the demo tags, {url, title, type, id}; create, and no duplicate titles', async () => {
    const tags = (await server.request('GET', '/api/orgs/1/file_tags/?limit=1000', { token: admin })).json as Array<Record<string, unknown>>;
    for (const title of ['Projects Export', 'Site - Photo', 'Site - Utility Bill', 'System Contract', 'System Image']) assert.ok(tags.some((tag) => tag.title === title), title);
    for (const tag of tags) assert.deepEqual(Object.keys(tag).sort(), ['id', 'title', 'type', 'url']);
    const created = await server.request('POST', '/api/orgs/1/file_tags/', { token: admin, body: { title: 'Warranty' } });
    assert.equal(created.status, 201);
    assert.deepEqual(created.json, { url: `${server.baseUrl}${apiPaths.fileTag(created.json.id)}`, title: 'Warranty', type: 'private', id: created.json.id });
    const again = await server.request('POST', '/api/orgs/1/file_tags/', { token: admin, body: { title: 'Warranty' } });
    assert.equal(again.status, 400);
    assert.ok(again.json.title);
  });

  test('the demo seed holds photos, PDFs, a chart and bills on org-1 projects, by several users', async () => {
    const all = (await server.request('GET', `${filesPath}?limit=1000&ordering=created_date`, { token: admin })).json as Array<{ title: string; user: string; project: string | null; file_contents: string }>;
    const seeded = all.slice(0, 10);
    assert.equal(new Set(seeded.map((file) => file.user)).size, 3, 'three different users');
    assert.ok(seeded.some((file) => file.project === null) && seeded.some((file) => file.project !== null));
    const kinds = new Map<string, Buffer>();
    for (const file of seeded) {
      const response = await download(file.file_contents);
      kinds.set(response.headers.get('content-type')!, response.body);
    }
    assert.deepEqual([...kinds.keys()].sort(), ['application/pdf', 'image/jpeg', 'image/png', 'text/csv']);
    assert.equal(kinds.get('image/jpeg')!.subarray(0, 3).toString('hex'), 'ffd8ff');
    assert.ok(kinds.get('application/pdf')!.toString('latin1').startsWith('%PDF-1.4') && kinds.get('application/pdf')!.toString('latin1').trimEnd().endsWith('%%EOF'));
  });
});

describe('private files: limits, expiry and crash leftovers', () => {
  const clock = new ManualClock('2026-06-01T09:00:00.000Z');
  const maxUploadBytes = 1024 * 1024;
  let server: TestServer;
  let admin: string;

  before(async () => {
    server = await startTestServer({ clock, maxUploadBytes });
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());

  test('a download link expires one hour after it is made: 403 after, never the file', async () => {
    const file = await createFile(server, admin, 'expiring', 'expiring.txt');
    const expires = Number(new URL(file.file_contents).searchParams.get('expires'));
    assert.equal(expires * 1000, clock.now().getTime() + 3600 * 1000);
    clock.advance(3599 * 1000);
    assert.equal((await download(file.file_contents)).status, 200);
    clock.advance(1000);
    const expired = await download(file.file_contents);
    assert.equal(expired.status, 403);
    assert.match(JSON.parse(expired.body.toString()).detail, /expired/);
    const fresh = await server.request('GET', apiPaths.privateFile(1, file.id), { token: admin });
    assert.equal((await download(fresh.json.file_contents)).status, 200, 'a fresh link works again');
  });

  test('an oversize upload is 413 with the limit in the message, and leaves no record, no temp file, no blob', async () => {
    const blobsBefore = blobNames(server);
    const countBefore = (await server.request('GET', '/api/orgs/1/private_files/?limit=1000', { token: admin })).json.length;
    // Declared far too large: refused before the body is read.
    const declared = await uploadFile(server, admin, randomBytes(3 * maxUploadBytes), 'huge.bin');
    assert.equal(declared.status, 413);
    assert.match(declared.json.detail, /1 MiB \(1048576 bytes\)/);
    // Just over the limit, within what multipart framing could explain: refused while streaming.
    const streamed = await uploadFile(server, admin, randomBytes(maxUploadBytes + 1), 'just-over.bin');
    assert.equal(streamed.status, 413);
    const exact = await uploadFile(server, admin, randomBytes(maxUploadBytes), 'exactly-the-limit.bin');
    assert.equal(exact.status, 201, 'the limit itself is allowed');
    const after = (await server.request('GET', '/api/orgs/1/private_files/?limit=1000', { token: admin })).json.length;
    assert.equal(after, countBefore + 1);
    assert.deepEqual(blobNames(server), [...blobsBefore, exact.json.file_hash].sort());
    assert.deepEqual(tempFiles(server), []);
  });

  test('a restart clears temp files and blobs that no file names (leftovers of a crash)', async () => {
    const kept = await createFile(server, admin, 'kept', 'kept.txt');
    const strayTemp = path.join(server.dataDir, 'tmp', 'upload-crashed.partial');
    const orphanHash = sha256(Buffer.from('orphan'));
    const orphanBlob = path.join(server.dataDir, 'blobs', orphanHash.slice(0, 2), orphanHash.slice(2, 4), orphanHash);
    fs.writeFileSync(strayTemp, 'half an upload');
    fs.mkdirSync(path.dirname(orphanBlob), { recursive: true });
    fs.writeFileSync(orphanBlob, 'orphan');
    // On a shared store (PostgreSQL) a neighbour process may be writing fresh files, so
    // only leftovers untouched for SHARED_LEFTOVER_AGE_MS go; these two are made old,
    // and a fresh one must stay.
    const shared = server.engine.store.shared;
    const freshTemp = path.join(server.dataDir, 'tmp', 'upload-in-progress.partial');
    if (shared) {
      const old = new Date(Date.now() - SHARED_LEFTOVER_AGE_MS - 60_000);
      for (const file of [strayTemp, orphanBlob]) fs.utimesSync(file, old, old);
      fs.writeFileSync(freshTemp, 'a neighbour is writing this');
    }
    await server.close({ keepData: true });
    server = await startTestServer({ clock, maxUploadBytes, dataDir: server.dataDir });
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    assert.ok(!fs.existsSync(strayTemp));
    assert.ok(!fs.existsSync(orphanBlob));
    if (shared) assert.ok(fs.existsSync(freshTemp), 'a fresh temp file on a shared store is left to its writer');
    assert.ok(blobNames(server).includes(kept.file_hash));
    const again = await server.request('GET', apiPaths.privateFile(1, kept.id), { token: admin });
    assert.deepEqual((await download(again.json.file_contents)).body, Buffer.from('kept'));
  });
});
