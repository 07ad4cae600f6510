// compatibility.md "Authentication" and service.md 5: tokens, sign-in, plans, org access.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo-seed.ts';
import { ManualClock } from '../clock.ts';
import { TOKEN_LIFETIME_MS } from '../auth/accounts.ts';
import { setPlan } from '../orgs/org-service.ts';
import { DATABASE_FILE_NAME } from '../store/database.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

describe('sign-in and tokens', () => {
  // The clock is controlled so token expiry can be tested without waiting 7 days.
  const clock = new ManualClock('2026-06-01T09:00:00.000Z');
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ clock });
  });
  after(() => server.close());

  test('POST /api-token-auth/ answers 200 with token, user and org_id', async () => {
    const response = await server.request('POST', '/api-token-auth/', {
      body: { username: DEMO_USERS.sunriseAdmin, password: DEMO_PASSWORD },
      headers: { authorization: 'Bearer undefined' }, // ignored by this endpoint
    });
    assert.equal(response.status, 200);
    assert.equal(typeof response.json.token, 'string');
    assert.ok(response.json.token.length >= 32);
    assert.equal(response.json.user.email, DEMO_USERS.sunriseAdmin);
    assert.equal(typeof response.json.user.id, 'number');
    assert.equal(response.json.org_id, 1);
    assert.equal(response.json.user.password_hash, undefined);
  });

  test('bad credentials are 400 with the DRF message, for a wrong password and an unknown user alike', async () => {
    for (const body of [
      { username: DEMO_USERS.sunriseAdmin, password: 'wrong-password' },
      { username: 'nobody@example.com', password: DEMO_PASSWORD },
    ]) {
      const response = await server.request('POST', '/api-token-auth/', { body });
      assert.equal(response.status, 400);
      assert.deepEqual(response.json, { non_field_errors: ['Unable to log in with provided credentials.'] });
    }
    const missing = await server.request('POST', '/api-token-auth/', { body: { username: DEMO_USERS.sunriseAdmin } });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.json.password, ['This field is required.']);
  });

  test('tokens are stored hashed, never as given', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseViewer);
    if (server.engine.store.dialect === 'sqlite') {
      // Every byte of the store, including what has not been checkpointed yet.
      const database = fs.readFileSync(path.join(server.dataDir, DATABASE_FILE_NAME));
      const wal = fs.existsSync(path.join(server.dataDir, `${DATABASE_FILE_NAME}-wal`))
        ? fs.readFileSync(path.join(server.dataDir, `${DATABASE_FILE_NAME}-wal`))
        : Buffer.alloc(0);
      assert.equal(database.includes(token), false);
      assert.equal(wal.includes(token), false);
      assert.equal(database.includes(DEMO_PASSWORD), false);
    } else {
      // PostgreSQL's files are not ours to read: every row of the tables that hold credentials, as text.
      const { db } = server.engine.context;
      const stored = JSON.stringify([await db.selectFrom('tokens').selectAll().execute(), await db.selectFrom('users').selectAll().execute()]);
      assert.ok(stored.includes('"token_hash"'), 'the rows were read');
      assert.equal(stored.includes(token), false);
      assert.equal(stored.includes(DEMO_PASSWORD), false);
    }
  });

  test('Bearer and Token schemes are both accepted', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    for (const scheme of ['Bearer', 'Token', 'bearer']) {
      const response = await server.request('GET', '/api/orgs/1/', { headers: { authorization: `${scheme} ${token}` } });
      assert.equal(response.status, 200, scheme);
    }
  });

  test('a missing, unknown, malformed or "undefined" token is 401 with a detail', async () => {
    for (const authorization of [undefined, 'Bearer undefined', 'Bearer not-a-token', 'Bearer', 'Basic abc', 'Bearer a b']) {
      const response = await server.request('GET', '/api/orgs/1/projects/', { headers: authorization ? { authorization } : {} });
      assert.equal(response.status, 401, String(authorization));
      assert.equal(typeof response.json.detail, 'string');
    }
  });

  test('GET /api/orgs/<id>/ answers the org with a numeric id and its name', async () => {
    const response = await server.request('GET', '/api/orgs/1/', { token: await server.tokenFor(DEMO_USERS.sunriseAdmin) });
    assert.equal(response.status, 200);
    assert.equal(response.json.id, 1);
    assert.equal(response.json.name, 'Sunrise Solar');
  });

  test('GET /api/fetch_token/ gives a fresh working token, for a chosen org too', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const fresh = await server.request('GET', '/api/fetch_token/?org_id=1', { token });
    assert.equal(fresh.status, 200);
    assert.notEqual(fresh.json.token, token);
    assert.equal(fresh.json.org_id, 1);
    assert.equal(fresh.json.user.email, DEMO_USERS.sunriseAdmin);
    assert.equal((await server.request('GET', '/api/orgs/1/', { token: fresh.json.token })).status, 200);
    assert.equal((await server.request('GET', '/api/fetch_token/?org_id=2', { token })).status, 403);
    assert.equal((await server.request('GET', '/api/fetch_token/')).status, 401);
  });

  test('ordinary tokens expire after 7 days; machine users’ never do', async () => {
    const signIn = async (email: string) =>
      (await server.request('POST', '/api-token-auth/', { body: { username: email, password: DEMO_PASSWORD } })).json;
    const ordinary = await signIn(DEMO_USERS.sunriseViewer);
    const machine = await signIn(DEMO_USERS.basicAdmin);
    const made = await server.request('PATCH', apiPaths.user(machine.user.id), { token: machine.token, body: { is_machine_user: true } });
    assert.equal(made.status, 200);
    assert.equal(made.json.is_machine_user, true);

    clock.advance(TOKEN_LIFETIME_MS - 60_000);
    assert.equal((await server.request('GET', '/api/orgs/1/', { token: ordinary.token })).status, 200);
    clock.advance(120_000);
    const expired = await server.request('GET', '/api/orgs/1/', { token: ordinary.token });
    assert.equal(expired.status, 401);
    assert.match(expired.json.detail, /expired/i);
    clock.advance(30 * 24 * 3600_000);
    assert.equal((await server.request('GET', '/api/orgs/2/', { token: machine.token })).status, 200);
  });

  test('only the user or an admin of their org may make them a machine user', async () => {
    const viewer = (await server.request('POST', '/api-token-auth/', { body: { username: DEMO_USERS.sunriseViewer, password: DEMO_PASSWORD } })).json;
    const admin = (await server.request('POST', '/api-token-auth/', { body: { username: DEMO_USERS.sunriseAdmin, password: DEMO_PASSWORD } })).json;
    const basic = (await server.request('POST', '/api-token-auth/', { body: { username: DEMO_USERS.basicAdmin, password: DEMO_PASSWORD } })).json;
    assert.equal((await server.request('PATCH', apiPaths.user(admin.user.id), { token: viewer.token, body: { is_machine_user: true } })).status, 403);
    assert.equal((await server.request('PATCH', apiPaths.user(viewer.user.id), { token: basic.token, body: { is_machine_user: true } })).status, 403);
    assert.equal((await server.request('PATCH', apiPaths.user(viewer.user.id), { token: admin.token, body: { is_machine_user: false } })).status, 200);
    assert.equal((await server.request('PATCH', '/auth/users/999999/', { token: admin.token, body: { is_machine_user: true } })).status, 404);
  });
});

describe('org access and plans', () => {
  const clock = new ManualClock('2026-06-01T09:00:00.000Z');
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ clock, planCacheSeconds: 300 });
  });
  after(() => server.close());

  test('another org’s data is 403', async () => {
    const token = await server.tokenFor(DEMO_USERS.basicAdmin);
    for (const path of ['/api/orgs/1/', '/api/orgs/1/projects/', '/api/orgs/1/projects/1/', '/api/orgs/1/contacts/', '/api/orgs/1/roles/']) {
      const response = await server.request('GET', path, { token });
      assert.equal(response.status, 403, path);
      assert.equal(typeof response.json.detail, 'string');
    }
    assert.equal((await server.request('GET', '/api/orgs/999/projects/', { token })).status, 403);
  });

  test('an org whose trial ended gets 403 on every org endpoint, saying why', async () => {
    const token = await server.tokenFor(DEMO_USERS.lapsedAdmin);
    for (const path of ['/api/orgs/3/', '/api/orgs/3/projects/', '/api/orgs/3/contacts/']) {
      const response = await server.request('GET', path, { token });
      assert.equal(response.status, 403, path);
      assert.match(response.json.detail, /trial .* ended on \d{4}-\d{2}-\d{2}/);
    }
  });

  test('a plan change written to the store takes effect on the next request', async () => {
    const token = await server.tokenFor(DEMO_USERS.basicAdmin);
    assert.equal((await server.request('GET', '/api/orgs/2/', { token })).json.api_plan, 'api_access');
    // Written straight to the store, as `solardesk admin set-plan` does. The caches of
    // the caller and the org are invalidated by the write (main/engine/store/write-generations.ts);
    // a plan changed by another process on a shared PostgreSQL waits for the plan cache (5 minutes).
    await setPlan(server.engine.context.db, clock, 2, { plan: 'raw_data_api_access', startsOn: '2025-06-01' });
    try {
      assert.equal((await server.request('GET', '/api/orgs/2/', { token })).json.api_plan, 'raw_data_api_access');
    } finally {
      await setPlan(server.engine.context.db, clock, 2, { plan: 'api_access', startsOn: '2025-06-01' });
    }
    assert.equal((await server.request('GET', '/api/orgs/2/', { token })).json.api_plan, 'api_access');
  });

  test('the plan decides design: Raw Data gets it, API Access gets null', async () => {
    const raw = await server.request('GET', '/api/orgs/1/projects/1/', { token: await server.tokenFor(DEMO_USERS.sunriseAdmin) });
    assert.match(raw.json.design, /^H4sI/);
    const basicToken = await server.tokenFor(DEMO_USERS.basicAdmin);
    const basicProjects = await server.request('GET', '/api/orgs/2/projects/?ordering=id', { token: basicToken });
    const withDesign = await server.request('GET', apiPaths.project(2, basicProjects.json[0].id), { token: basicToken });
    assert.equal(withDesign.status, 200);
    assert.equal(withDesign.json.design, null);
  });

  test('a user who sees only assigned projects lists only those and gets 403 on the others', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseMember);
    const listed = await server.request('GET', '/api/orgs/1/projects/?limit=100', { token });
    assert.ok(listed.json.length >= 3);
    const adminToken = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const all = await server.request('GET', '/api/orgs/1/projects/?limit=100', { token: adminToken });
    const visible = new Set(listed.json.map((project: { id: number }) => project.id));
    const hidden = all.json.filter((project: { id: number }) => !visible.has(project.id));
    assert.ok(hidden.length >= 10);
    for (const project of hidden.slice(0, 5)) {
      const response = await server.request('GET', apiPaths.project(1, project.id), { token });
      assert.equal(response.status, 403);
      assert.equal((await server.request('PATCH', apiPaths.project(1, project.id), { token, body: { notes: 'x' } })).status, 403);
    }
    const mine = await server.request('GET', apiPaths.project(1, listed.json[0].id), { token });
    assert.equal(mine.status, 200);
    const roleIds = [mine.json.assigned_role_id, mine.json.assigned_installer_role_data?.id, mine.json.assigned_site_inspector_role_data?.id];
    const me = (await server.request('GET', '/api/orgs/1/', { token })).json.role_id;
    assert.ok(roleIds.includes(me));
    assert.equal((await server.request('GET', '/api/orgs/1/projects/999999/', { token })).status, 404);
  });

  test('the viewer (not Pro) sees all projects', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseViewer);
    const listed = await server.request('GET', '/api/orgs/1/projects/?limit=100', { token });
    assert.equal(listed.json.length, 48);
  });
  // Last in this suite: it moves the clock past every token's expiry.
  test('no plan, and a plan that has not started, are 403 with the reason', async () => {
    const token = await server.tokenFor(DEMO_USERS.lapsedAdmin);
    await setPlan(server.engine.context.db, clock, 3, { plan: null });
    server.engine.context.orgs.forget(3);
    assert.match((await server.request('GET', '/api/orgs/3/', { token })).json.detail, /has no API plan/);
    await setPlan(server.engine.context.db, clock, 3, { plan: 'api_access', startsOn: '2026-07-01' });
    server.engine.context.orgs.forget(3);
    assert.match((await server.request('GET', '/api/orgs/3/', { token })).json.detail, /starts on 2026-07-01/);
    clock.advance(31 * 24 * 3600_000); // now 2026-07-02: the plan has started (and the old token expired)
    server.engine.context.orgs.forget(3);
    const fresh = await server.request('POST', '/api-token-auth/', { body: { username: DEMO_USERS.lapsedAdmin, password: DEMO_PASSWORD } });
    assert.equal((await server.request('GET', '/api/orgs/3/', { token: fresh.json.token })).status, 200);
  });

});
