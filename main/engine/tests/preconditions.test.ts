// Issue 19, finding 2: writes carry a precondition. PATCH and PUT accept If-Match
// with the record's ETag (its version, the quoted modified_date) and answer 412 when
// the record moved since; the detail GET and every write answer send the ETag; a
// write without If-Match behaves as it always did. A real server on 127.0.0.1; the
// clock is frozen in one test so that two writes fall in the same millisecond.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { ManualClock } from '../clock.ts';
import { createFile } from '../testing/file-testing.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

describe('write preconditions: If-Match, ETag, 412', () => {
  let server: TestServer;
  let token: string;
  const send = (method: string, path: string, body?: unknown, ifMatch?: string) =>
    server.request(method, path, { token, body, headers: ifMatch === undefined ? {} : { 'if-match': ifMatch } });

  before(async () => {
    server = await startTestServer();
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());

  /** Each kind of record sync pushes updates for: its detail path and a field change. */
  const records = async () => {
    const contact = (await send('POST', '/api/orgs/1/contacts/', { first_name: 'Ida', family_name: 'Etag' })).json;
    const webhook = await send('POST', '/api/orgs/1/webhooks/', { endpoint: 'https://example.com/hook', enabled: false, debug: false });
    assert.equal(webhook.status, 201, webhook.text);
    const file = await createFile(server, token, 'roof photo', 'roof.jpg', { title: 'Roof' });
    return [
      { kind: 'project', path: '/api/orgs/1/projects/3/', field: 'notes' },
      { kind: 'contact', path: apiPaths.contact(1, contact.id), field: 'first_name' },
      { kind: 'private file', path: apiPaths.privateFile(1, file.id), field: 'title' },
      { kind: 'webhook', path: apiPaths.webhook(1, webhook.json.id), field: 'endpoint' },
    ];
  };
  const valueFor = (field: string, text: string) => (field === 'endpoint' ? `https://example.com/${text}` : text);

  test('the detail GET sends the ETag; a write with the current one lands and answers the new one', async () => {
    for (const { kind, path, field } of await records()) {
      const read = await send('GET', path);
      assert.equal(read.headers.get('etag'), `"${read.json.modified_date}"`, `${kind}: the ETag is the quoted version`);
      const written = await send('PATCH', path, { [field]: valueFor(field, 'matched') }, read.headers.get('etag')!);
      assert.equal(written.status, 200, `${kind}: ${written.text}`);
      assert.equal(written.json[field], valueFor(field, 'matched'));
      assert.equal(written.headers.get('etag'), `"${written.json.modified_date}"`, `${kind}: the answer carries the new ETag`);
      assert.notEqual(written.headers.get('etag'), read.headers.get('etag'), `${kind}: a write makes a new version`);
    }
  });

  test('a write based on a version that moved is refused with 412 and the current ETag, and changes nothing', async () => {
    for (const { kind, path, field } of await records()) {
      const stale = (await send('GET', path)).headers.get('etag')!;
      const other = await send('PATCH', path, { [field]: valueFor(field, 'first-writer') }); // another client, no precondition
      assert.equal(other.status, 200, other.text);
      const refused = await send('PATCH', path, { [field]: valueFor(field, 'second-writer') }, stale);
      assert.equal(refused.status, 412, `${kind}: ${refused.text}`);
      assert.match(refused.json.detail, /changed since the version in If-Match.*Read it again/);
      assert.equal(refused.headers.get('etag'), other.headers.get('etag'), `${kind}: the 412 names the current version`);
      const now = await send('GET', path);
      assert.equal(now.json[field], valueFor(field, 'first-writer'), `${kind}: the refused write changed nothing`);
      assert.equal(now.headers.get('etag'), other.headers.get('etag'), `${kind}: nor its version`);
    }
  });

  test('If-Match forms: *, a list, a bare version, a weak tag; PUT too', async () => {
    const path = '/api/orgs/1/projects/4/';
    const current = (await send('GET', path)).json.modified_date as string;
    assert.equal((await send('PATCH', path, { notes: 'any version' }, '*')).status, 200, '* matches any existing version');
    const afterStar = (await send('GET', path)).json.modified_date as string;
    assert.equal((await send('PATCH', path, { notes: 'in a list' }, `"${current}", "${afterStar}"`)).status, 200, 'one of a list matches');
    const afterList = (await send('GET', path)).json.modified_date as string;
    assert.equal((await send('PATCH', path, { notes: 'bare' }, afterList)).status, 200, 'the bare modified_date is accepted');
    const afterBare = (await send('GET', path)).json.modified_date as string;
    assert.equal((await send('PATCH', path, { notes: 'weak' }, `W/"${afterBare}"`)).status, 412, 'a weak tag never matches If-Match');
    const put = await send('PUT', path, { title: 'Put with a stale version' }, `"${current}"`);
    assert.equal(put.status, 412, put.text);
    assert.equal((await send('PUT', path, { title: 'Put with the version' }, `"${afterBare}"`)).status, 200);
    assert.equal((await send('PATCH', path, { notes: 'no precondition' })).status, 200, 'without If-Match nothing changes for clients that send none');
  });

  test('the OpenAPI document declares If-Match on the conditional writes', async () => {
    const schema = (await server.request('GET', '/api/schema/')).json;
    for (const [path, method] of [
      ['/api/orgs/{org_id}/projects/{id}/', 'patch'],
      ['/api/orgs/{org_id}/projects/{id}/', 'put'],
      ['/api/orgs/{org_id}/private_files/{id}/', 'patch'],
      ['/api/orgs/{org_id}/contacts/{id}/', 'patch'],
      ['/api/orgs/{org_id}/webhooks/{id}/', 'patch'],
    ] as const) {
      const operation = schema.paths[path]?.[method];
      assert.ok(operation, `${method} ${path} is documented`);
      const header = (operation.parameters as Array<{ in: string; name: string; required?: boolean }>).find((parameter) => parameter.in === 'header' && parameter.name === 'if-match');
      assert.ok(header, `${method} ${path} declares If-Match`);
      assert.notEqual(header.required, true, 'If-Match stays optional');
      assert.match(operation.description, /412 Precondition Failed/);
    }
  });
});

describe('write preconditions within one millisecond', () => {
  test('two writes at the same instant make two versions, so a precondition on the first fails after the second', async () => {
    const clock = new ManualClock(); // frozen: every write happens at the same millisecond
    const server = await startTestServer({ clock });
    try {
      const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const path = '/api/orgs/1/projects/5/';
      const base = (await server.request('GET', path, { token })).headers.get('etag')!;
      const first = await server.request('PATCH', path, { token, body: { notes: 'first' }, headers: { 'if-match': base } });
      assert.equal(first.status, 200, first.text);
      assert.notEqual(first.headers.get('etag'), base, 'the write made a new version though the clock did not move');
      const second = await server.request('PATCH', path, { token, body: { notes: 'second' }, headers: { 'if-match': base } });
      assert.equal(second.status, 412, 'the second writer, based on the same version, is refused');
      assert.equal((await server.request('GET', path, { token })).json.notes, 'first');
    } finally {
      await server.close();
    }
  });
});
