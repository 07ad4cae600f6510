// The org resource (hosted-docs-facts.md 13; hosted docs: Orgs): GET carries
// `projects`, the URL of the org's project list; PUT updates the org, admins only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

describe('the org resource', () => {
  let server: TestServer;
  let admin: string;
  before(async () => {
    server = await startTestServer();
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());

  test('GET carries projects, the URL of the org’s project list, and it resolves', async () => {
    const org = await server.request('GET', apiPaths.org(1), { token: admin });
    assert.equal(org.status, 200);
    assert.equal(org.json.projects, `${server.baseUrl}${apiPaths.projects(1)}`);
    const projects = await server.request('GET', new URL(org.json.projects).pathname, { token: admin });
    assert.equal(projects.status, 200);
    assert.ok(Array.isArray(projects.json) && projects.json.length > 0);
  });

  test('PUT by an admin renames the org and answers the org; GET shows the new name', async () => {
    const before = (await server.request('GET', apiPaths.org(1), { token: admin })).json;
    const put = await server.request('PUT', apiPaths.org(1), { token: admin, body: { ...before, name: '  Sunrise Solar Co-op  ' } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json, { ...before, name: 'Sunrise Solar Co-op' });
    assert.equal((await server.request('GET', apiPaths.org(1), { token: admin })).json.name, 'Sunrise Solar Co-op');
    // Without the trailing slash too (compatibility.md), never redirected.
    const bare = await server.request('PUT', apiPaths.org(1).replace(/\/$/, ''), { token: admin, body: { name: before.name } });
    assert.equal(bare.status, 200, bare.text);
    assert.equal(bare.json.name, before.name);
  });

  test('PUT ignores read-only and unknown fields', async () => {
    const before = (await server.request('GET', apiPaths.org(1), { token: admin })).json;
    const put = await server.request('PUT', apiPaths.org(1), {
      token: admin,
      body: { name: before.name, id: 99, api_plan: 'raw_data', api_plan_ends_on: '2099-01-01', projects: 'elsewhere', role_id: 1, colour: 'blue' },
    });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json, before);
  });

  test('PUT without a name, or with a blank, too long or non-text one, is a 400 on name and changes nothing', async () => {
    const before = (await server.request('GET', apiPaths.org(1), { token: admin })).json;
    for (const [body, message] of [
      [{}, 'This field is required.'],
      [{ name: '   ' }, 'This field may not be blank.'],
      [{ name: null }, 'This field may not be null.'],
      [{ name: 'x'.repeat(201) }, 'Ensure this field has no more than 200 characters.'],
      [{ name: 5 }, 'Not a valid string.'],
    ] as const) {
      const put = await server.request('PUT', apiPaths.org(1), { token: admin, body });
      assert.equal(put.status, 400, JSON.stringify(body));
      assert.deepEqual(put.json, { name: [message] });
    }
    assert.deepEqual((await server.request('GET', apiPaths.org(1), { token: admin })).json, before);
  });

  test('PUT by a member who is not an admin is 403 and changes nothing', async () => {
    const before = (await server.request('GET', apiPaths.org(1), { token: admin })).json;
    for (const user of [DEMO_USERS.sunriseMember, DEMO_USERS.sunriseViewer]) {
      const token = await server.tokenFor(user);
      const put = await server.request('PUT', apiPaths.org(1), { token, body: { name: 'Taken over' } });
      assert.equal(put.status, 403, user);
    }
    assert.equal((await server.request('GET', apiPaths.org(1), { token: admin })).json.name, before.name);
  });

  test('PUT on another org is 403; without a token 401', async () => {
    assert.equal((await server.request('PUT', apiPaths.org(2), { token: admin, body: { name: 'Not mine' } })).status, 403);
    assert.equal((await server.request('PUT', apiPaths.org(1), { body: { name: 'Anyone' } })).status, 401);
  });

  test('the new name is what the next request of every caller sees (no stale cache)', async () => {
    const member = await server.tokenFor(DEMO_USERS.sunriseMember);
    assert.equal((await server.request('GET', apiPaths.org(1), { token: member })).status, 200); // cached now
    const put = await server.request('PUT', apiPaths.org(1), { token: admin, body: { name: 'Sunrise Renamed' } });
    assert.equal(put.status, 200);
    assert.equal((await server.request('GET', apiPaths.org(1), { token: member })).json.name, 'Sunrise Renamed');
    const role = (await server.request('GET', apiPaths.roles(1), { token: member })).json[0];
    assert.equal(role.org_name, 'Sunrise Renamed');
  });
});
