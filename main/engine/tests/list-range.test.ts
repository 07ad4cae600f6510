// `range` on the lists (hosted docs: API Conventions, hosted-docs-facts.md 14): a
// URL-encoded JSON pair of zero-based first and last row, both included, on every
// list that takes the list fieldset; and the roles list's `ordering` (hosted docs: Roles).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

const encoded = (pair: unknown) => encodeURIComponent(JSON.stringify(pair));
const ids = (rows: { id: number }[]) => rows.map((row) => row.id);

describe('range on lists', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer();
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    // Three webhooks, so the webhooks list has rows to cut.
    for (const endpoint of ['https://a.example.com/', 'https://b.example.com/', 'https://c.example.com/']) {
      const created = await server.request('POST', apiPaths.webhooks(1), { token, body: { endpoint, enabled: false, debug: false } });
      assert.equal(created.status, 201, created.text);
    }
  });
  after(() => server.close());

  const list = async (path: string) => {
    const response = await server.request('GET', path, { token });
    assert.equal(response.status, 200, `${path}: ${response.text}`);
    return response.json as { id: number }[];
  };
  const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

  test('range %5B0%2C19%5D answers the first 20 rows', async () => {
    const all = await list(withQuery(apiPaths.projects(1), 'limit=100'));
    assert.ok(all.length > 20);
    const first20 = await list(withQuery(apiPaths.projects(1), 'range=%5B0%2C19%5D'));
    assert.deepEqual(ids(first20), ids(all.slice(0, 20)));
  });

  test('range [5,9] answers rows 6 to 10', async () => {
    const all = await list(withQuery(apiPaths.projects(1), 'limit=100&ordering=id'));
    const rows = await list(withQuery(apiPaths.projects(1), `ordering=id&range=${encoded([5, 9])}`));
    assert.deepEqual(ids(rows), ids(all.slice(5, 10)));
  });

  test('every list that takes the list fieldset honours range', async () => {
    const lists = [
      apiPaths.projects(1),
      apiPaths.contacts(1),
      apiPaths.roles(1),
      apiPaths.privateFiles(1),
      apiPaths.events(1),
      apiPaths.webhooks(1),
      apiPaths.fileTags(1),
      apiPaths.connectedOrgs(1),
      apiPaths.webhookProcessLogs(1),
      apiPaths.webhookQueueModels(1),
    ];
    for (const path of lists) {
      const all = await list(withQuery(path, 'fieldset=list&limit=1000'));
      const cut = await list(withQuery(path, `fieldset=list&range=${encoded([1, 2])}`));
      assert.deepEqual(ids(cut), ids(all.slice(1, 3)), path);
    }
    // The lists with rows to cut did cut them (the others answered [] as they should).
    for (const path of [apiPaths.projects(1), apiPaths.contacts(1), apiPaths.roles(1), apiPaths.webhooks(1), apiPaths.fileTags(1)]) {
      assert.equal((await list(withQuery(path, `range=${encoded([1, 2])}`))).length, 2, path);
    }
  });

  test('with range, page and limit are ignored', async () => {
    const all = await list(withQuery(apiPaths.contacts(1), 'limit=100'));
    const rows = await list(withQuery(apiPaths.contacts(1), `page=3&limit=1&range=${encoded([2, 4])}`));
    assert.deepEqual(ids(rows), ids(all.slice(2, 5)));
  });

  test('a range that does not start at a multiple of its size still starts at its first row', async () => {
    const all = await list(withQuery(apiPaths.projects(1), 'limit=100&ordering=id'));
    for (const [first, last] of [[3, 9], [7, 8], [13, 13], [1, 47]] as const) {
      const rows = await list(withQuery(apiPaths.projects(1), `ordering=id&range=${encoded([first, last])}`));
      assert.deepEqual(ids(rows), ids(all.slice(first, last + 1)), `[${first},${last}]`);
    }
  });

  test('a range past the end answers 200 []', async () => {
    assert.deepEqual(await list(withQuery(apiPaths.projects(1), `range=${encoded([5000, 5019])}`)), []);
  });

  test('a malformed range is a 400 on range that says what to send', async () => {
    for (const bad of ['abc', encoded([0]), encoded([-1, 3]), encoded([1.5, 3]), encoded(['0', '3']), encoded({ first: 0 }), encoded([0, 1, 2])]) {
      const response = await server.request('GET', withQuery(apiPaths.projects(1), `range=${bad}`), { token });
      assert.equal(response.status, 400, bad);
      assert.match(response.json.range?.[0] ?? '', /JSON pair of zero-based row indexes \[first,last\]/, response.text);
    }
    const backwards = await server.request('GET', withQuery(apiPaths.contacts(1), `range=${encoded([9, 3])}`), { token });
    assert.equal(backwards.status, 400);
    assert.match(backwards.json.range[0], /first index \(9\) must not be after the last \(3\)/);
  });

  test('a range over more rows than a page may hold is a 400', async () => {
    const response = await server.request('GET', withQuery(apiPaths.projects(1), `range=${encoded([0, 1000])}`), { token });
    assert.equal(response.status, 400);
    assert.match(response.json.range[0], /at most 1000 rows/);
    assert.equal((await server.request('GET', withQuery(apiPaths.projects(1), `range=${encoded([0, 999])}`), { token })).status, 200);
  });
});

describe('roles list', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer();
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());

  const roles = async (query: string) => {
    const response = await server.request('GET', `${apiPaths.roles(1)}?${query}`, { token });
    assert.equal(response.status, 200, response.text);
    return response.json as { id: number; is_admin: boolean }[];
  };

  test('ordering=id and -id sort the roles by id', async () => {
    const ascending = ids(await roles('ordering=id'));
    assert.deepEqual(ascending, [...ascending].sort((a, b) => a - b));
    assert.ok(ascending.length >= 3);
    assert.deepEqual(ids(await roles('ordering=-id')), [...ascending].reverse());
  });

  test('ordering=is_admin puts admins last and -is_admin puts them first', async () => {
    const ascending = await roles('ordering=is_admin');
    assert.ok(ascending.some((role) => role.is_admin) && ascending.some((role) => !role.is_admin));
    const flags = ascending.map((role) => role.is_admin);
    assert.deepEqual(flags, [...flags].sort((a, b) => Number(a) - Number(b)));
    const descending = (await roles('ordering=-is_admin')).map((role) => role.is_admin);
    assert.deepEqual(descending, [...descending].sort((a, b) => Number(b) - Number(a)));
  });

  test('an unknown ordering is ignored (id order)', async () => {
    assert.deepEqual(ids(await roles('ordering=email')), ids(await roles('')));
  });

  test('fieldset=list, range, page and limit apply to roles', async () => {
    const all = ids(await roles('fieldset=list&ordering=-id'));
    assert.deepEqual(ids(await roles(`fieldset=list&ordering=-id&range=${encoded([1, 3])}`)), all.slice(1, 4));
    assert.deepEqual(ids(await roles('fieldset=list&ordering=-id&page=2&limit=2')), all.slice(2, 4));
  });
});
