// compatibility.md "Conventions", "Lists" and "Status codes": what every route does.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { naturalSortKey } from '../../../shared/natural-sort.ts';

describe('HTTP conventions', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer();
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());

  test('every route answers with and without its trailing slash, never redirecting', async () => {
    for (const path of ['/api/orgs/1', '/api/orgs/1/', '/api/orgs/1/projects', '/api/orgs/1/projects/1', '/api/orgs/1/roles/1']) {
      const response = await server.request('GET', path, { token });
      assert.equal(response.status, 200, path);
    }
    const patched = await server.request('PATCH', '/api/orgs/1/projects/1', { token, body: { notes: 'no slash' } });
    assert.equal(patched.status, 200);
    assert.equal(patched.json.notes, 'no slash');
  });

  test('Content-Type: application/json on GET and DELETE with no body is not an error', async () => {
    const headers = { 'content-type': 'application/json' };
    assert.equal((await server.request('GET', '/api/orgs/1/projects/', { token, headers })).status, 200);
    const created = await server.request('POST', '/api/orgs/1/contacts/', { token, body: { first_name: 'Temp' } });
    const deleted = await server.request('DELETE', apiPaths.contact(1, created.json.id), { token, headers });
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
  });

  test('a charset on the JSON content type is accepted', async () => {
    const response = await server.request('PATCH', '/api/orgs/1/projects/2/', {
      token,
      rawBody: JSON.stringify({ notes: 'charset' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    assert.equal(response.status, 200);
    assert.equal(response.json.notes, 'charset');
  });

  test('a malformed JSON body is 400 with a detail', async () => {
    const response = await server.request('PATCH', '/api/orgs/1/projects/2/', {
      token,
      rawBody: '{"notes": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(response.status, 400);
    assert.match(response.json.detail, /JSON parse error/);
  });

  test('a body that is not an object is 400 non_field_errors', async () => {
    const response = await server.request('PATCH', '/api/orgs/1/projects/2/', { token, body: [1, 2] });
    assert.equal(response.status, 400);
    assert.ok(Array.isArray(response.json.non_field_errors));
  });

  test('an unsupported method answers 405 with Allow', async () => {
    const response = await server.request('POST', '/api/orgs/1/projects/1/', { token, body: {} });
    assert.equal(response.status, 405);
    const allow = response.headers.get('allow') ?? '';
    for (const method of ['GET', 'PATCH', 'PUT', 'DELETE']) assert.ok(allow.includes(method), allow);
    assert.ok(!allow.split(', ').includes('POST'));
  });

  test('an unknown path is 404 with a detail, and a non-numeric id is 404', async () => {
    assert.equal((await server.request('GET', '/api/nothing-here/', { token })).status, 404);
    const response = await server.request('GET', '/api/orgs/1/projects/abc/', { token });
    assert.equal(response.status, 404);
    assert.equal(response.json.detail, 'Not found.');
  });

  test('lists are bare arrays paged by page and limit; past the end is 200 []', async () => {
    const first = await server.request('GET', '/api/orgs/1/projects/?limit=20', { token });
    assert.ok(Array.isArray(first.json));
    assert.equal(first.json.length, 20);
    const second = await server.request('GET', '/api/orgs/1/projects/?limit=20&page=2', { token });
    const third = await server.request('GET', '/api/orgs/1/projects/?limit=20&page=3', { token });
    const ids = [...first.json, ...second.json, ...third.json].map((project: { id: number }) => project.id);
    assert.equal(new Set(ids).size, ids.length, 'pages do not overlap');
    assert.ok(third.json.length < 20, 'the last page is shorter than limit');
    const past = await server.request('GET', '/api/orgs/1/projects/?limit=20&page=99', { token });
    assert.equal(past.status, 200);
    assert.deepEqual(past.json, []);
    assert.equal((await server.request('GET', '/api/orgs/1/projects/?limit=1', { token })).json.length, 1);
  });

  test('ordering sorts ascending and descending; an unknown field is ignored', async () => {
    const ascending = await server.request('GET', '/api/orgs/1/projects/?ordering=title&limit=100', { token });
    const titles = ascending.json.map((project: { title: string }) => project.title);
    // Titles sort naturally: "75 Macquarie" before "249 Hill" (docs/http-api.md).
    const byKey = (a: string, b: string) => (naturalSortKey(a) < naturalSortKey(b) ? -1 : naturalSortKey(a) > naturalSortKey(b) ? 1 : 0);
    assert.deepEqual(titles, [...titles].sort(byKey));
    const descending = await server.request('GET', '/api/orgs/1/projects/?ordering=-id&limit=100', { token });
    const ids = descending.json.map((project: { id: number }) => project.id);
    assert.deepEqual(ids, [...ids].sort((a: number, b: number) => b - a));
    const unknown = await server.request('GET', '/api/orgs/1/projects/?ordering=password_hash;drop table projects', { token });
    assert.equal(unknown.status, 200);
    assert.equal(unknown.json.length, 20);
  });

  test('bad paging values are 400 naming the parameter, never 500', async () => {
    for (const query of ['page=0', 'page=abc', 'limit=-1', 'limit=100000']) {
      const response = await server.request('GET', `${apiPaths.projects(1)}?${query}`, { token });
      assert.equal(response.status, 400, query);
      assert.ok(response.json[query.split('=')[0]!], JSON.stringify(response.json));
    }
  });

  test('ids are JSON integers and lat/lon JSON numbers', async () => {
    const response = await server.request('GET', '/api/orgs/1/projects/1/', { token });
    assert.equal(typeof response.json.id, 'number');
    assert.equal(typeof response.json.org_id, 'number');
    assert.equal(typeof response.json.lat, 'number');
    assert.equal(typeof response.json.lon, 'number');
  });

  test('the OpenAPI document lists every route', async () => {
    const response = await server.request('GET', '/api/schema/');
    assert.equal(response.status, 200);
    assert.match(response.json.openapi, /^3\./);
    const paths = Object.keys(response.json.paths);
    for (const expected of [
      '/api-token-auth/',
      '/api/fetch_token/',
      '/auth/users/{user_id}/',
      '/api/global_users/{user_id}/',
      '/api/user_logins/',
      '/api/countries/{country}/',
      '/share/{id}/',
      '/api/orgs/{org_id}/',
      '/api/orgs/{org_id}/projects/',
      '/api/orgs/{org_id}/projects/{id}/',
      '/api/orgs/{org_id}/contacts/',
      '/api/orgs/{org_id}/contacts/{id}/',
      '/api/orgs/{org_id}/roles/',
      '/api/orgs/{org_id}/roles/{id}/',
      '/api/orgs/{org_id}/workflows/',
    ]) {
      assert.ok(paths.includes(expected), `${expected} in ${paths.join(' ')}`);
    }
    const patch = response.json.paths['/api/orgs/{org_id}/projects/{id}/'].patch;
    const schema = patch.requestBody.content['application/json'].schema;
    assert.ok(schema.properties.lat, 'the request body schema comes from the validating zod schema');
    assert.ok(schema.properties.usage);
  });
});
