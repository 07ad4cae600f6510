// Issue 18: the engine keeps the caller (token, user, role, org and plan), each
// project's JSON and each record's last snapshot between requests. None may ever
// answer with what a write has changed: each write below is followed at once by
// the request that must see it. Writes come through the API, straight through the
// engine's store (as `solardesk admin` commands do) and through a connection of
// its own (on SQLite an admin command in another process beside the server; on
// PostgreSQL another server process sharing the database). Also: ETag and
// If-None-Match (304) on project detail and list, and a 304 taking back its
// throttle count.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_ORGS, DEMO_USERS } from '../seed/demo-seed.ts';
import { ManualClock } from '../clock.ts';
import { DATABASE_FILE_NAME } from '../store/database.ts';
import { connectToStore, testDatabaseFor } from '../testing/test-database.ts';
import { TOKEN_LIFETIME_MS, hashToken, issueToken } from '../auth/accounts.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

const ORG = DEMO_ORGS.sunrise;
const projectsPath = apiPaths.projects(ORG);
const listPath = `${projectsPath}?limit=100&ordering=id`;

describe('request caches never answer with what a write changed', () => {
  let server: TestServer;
  const clock = new ManualClock();

  before(async () => {
    server = await startTestServer({ clock });
  });
  after(async () => {
    await server.close();
  });

  /** Runs `statement` on a connection of its own (SQLite: to the file; PostgreSQL: to the schema), as another process would. */
  async function writeFromAnotherConnection(statement: string, ...params: unknown[]): Promise<void> {
    const database = testDatabaseFor(server.dataDir);
    if (database) {
      const client = await connectToStore(database);
      try {
        let n = 0;
        await client.query(statement.replace(/\?/g, () => `$${++n}`), params);
      } finally {
        await client.end();
      }
      return;
    }
    const other = new BetterSqlite3(path.join(server.dataDir, DATABASE_FILE_NAME));
    try {
      other.pragma('busy_timeout = 5000');
      other.prepare(statement).run(...params);
    } finally {
      other.close();
    }
  }

  test('a PATCHed project: the next detail and list show the change, with a new ETag', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const detailPath = apiPaths.project(ORG, 3);
    const first = await server.request('GET', detailPath, { token });
    const firstList = await server.request('GET', listPath, { token });
    // Asked twice so the second answer comes from the cache.
    assert.equal((await server.request('GET', detailPath, { token })).text, first.text);
    assert.equal((await server.request('GET', listPath, { token })).text, firstList.text);
    const patched = await server.request('PATCH', detailPath, { token, body: { notes: 'changed by the cache test', title: 'Cache test title' } });
    assert.equal(patched.status, 200);
    assert.equal(patched.json.notes, 'changed by the cache test');
    const detail = await server.request('GET', detailPath, { token });
    assert.equal(detail.json.notes, 'changed by the cache test');
    assert.equal(detail.text, patched.text, 'the GET answers what the PATCH answered');
    assert.notEqual(detail.headers.get('etag'), first.headers.get('etag'));
    const list = await server.request('GET', listPath, { token });
    assert.equal(list.json.find((row: { id: number }) => row.id === 3).title, 'Cache test title');
    assert.notEqual(list.headers.get('etag'), firstList.headers.get('etag'));
  });

  test('a related record changed (a contact, a role): the projects that show it show the change', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const withContact = (await server.request('GET', listPath, { token })).json.find((row: { contacts: string[] }) => row.contacts.length > 0);
    assert.ok(withContact, 'a demo project with a contact');
    const contactUrl = new URL(withContact.contacts[0]).pathname;
    const detailPath = apiPaths.project(ORG, withContact.id);
    await server.request('GET', detailPath, { token });
    assert.equal((await server.request('PATCH', contactUrl, { token, body: { first_name: 'Cachetest' } })).status, 200);
    const detail = await server.request('GET', detailPath, { token });
    assert.equal(detail.json.contacts_data[0].first_name, 'Cachetest');
    const row = (await server.request('GET', listPath, { token })).json.find((project: { id: number }) => project.id === withContact.id);
    assert.equal(row.contacts_data[0].first_name, 'Cachetest');

    const assigned = (await server.request('GET', listPath, { token })).json.map((project: { id: number }) => project.id);
    let withRole: { id: number; assigned_role_id: number } | undefined;
    for (const id of assigned.slice(0, 40)) {
      const project = (await server.request('GET', apiPaths.project(ORG, id), { token })).json;
      if (project.assigned_role_id !== null) {
        withRole = project;
        break;
      }
    }
    assert.ok(withRole, 'a demo project with an assigned role');
    const patchedRole = await server.request('PATCH', apiPaths.role(ORG, withRole.assigned_role_id), { token, body: { accreditation: 'CEC A1234567' } });
    assert.equal(patchedRole.status, 200);
    assert.equal((await server.request('GET', apiPaths.project(ORG, withRole.id), { token })).json.assigned_role_accreditation, 'CEC A1234567');
  });

  test('a role change: the member sees what the new permission allows on the next request', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseMember);
    const member = await server.engine.context.db.selectFrom('users').select('id').where('email', '=', DEMO_USERS.sunriseMember).executeTakeFirstOrThrow();
    const setSeesAll = (value: 0 | 1) =>
      server.engine.context.db.updateTable('roles').set({ sees_all_projects: value }).where('org_id', '=', ORG).where('user_id', '=', member.id).execute();
    const mine = (await server.request('GET', listPath, { token })).json.length;
    const all = (await server.request('GET', listPath, { token: await server.tokenFor(DEMO_USERS.sunriseAdmin) })).json.length;
    assert.ok(mine < all);
    await setSeesAll(1);
    try {
      assert.equal((await server.request('GET', listPath, { token })).json.length, all);
    } finally {
      await setSeesAll(0);
    }
    assert.equal((await server.request('GET', listPath, { token })).json.length, mine);
    {
      await writeFromAnotherConnection('update roles set sees_all_projects = 1 where org_id = ? and user_id = ?', ORG, member.id);
      try {
        assert.equal((await server.request('GET', listPath, { token })).json.length, all, 'a change committed by another connection');
      } finally {
        await writeFromAnotherConnection('update roles set sees_all_projects = 0 where org_id = ? and user_id = ?', ORG, member.id);
      }
      assert.equal((await server.request('GET', listPath, { token })).json.length, mine);
    }
  });

  test('a token deleted or expired is refused on the next request', async () => {
    const admin = await server.engine.context.db.selectFrom('users').select('id').where('email', '=', DEMO_USERS.sunriseAdmin).executeTakeFirstOrThrow();
    const fresh = () => issueToken(server.engine.context.db, clock, admin.id);

    const deleted = await fresh();
    assert.equal((await server.request('GET', projectsPath, { token: deleted })).status, 200);
    await server.engine.context.db.deleteFrom('tokens').where('token_hash', '=', hashToken(deleted)).execute();
    assert.equal((await server.request('GET', projectsPath, { token: deleted })).status, 401);

    {
      const elsewhere = await fresh();
      assert.equal((await server.request('GET', projectsPath, { token: elsewhere })).status, 200);
      await writeFromAnotherConnection('delete from tokens where token_hash = ?', hashToken(elsewhere));
      assert.equal((await server.request('GET', projectsPath, { token: elsewhere })).status, 401, 'deleted by another connection');
    }

    const expiring = await fresh();
    assert.equal((await server.request('GET', projectsPath, { token: expiring })).status, 200);
    clock.advance(TOKEN_LIFETIME_MS + 1000);
    try {
      const refused = await server.request('GET', projectsPath, { token: expiring });
      assert.equal(refused.status, 401);
      assert.match(refused.json.detail, /expired/);
    } finally {
      clock.advance(-(TOKEN_LIFETIME_MS + 1000));
    }
  });

  test('a plan changed by another connection takes effect on the next request', async () => {
    const token = await server.tokenFor(DEMO_USERS.basicAdmin);
    const orgPath = apiPaths.org(DEMO_ORGS.basic);
    assert.equal((await server.request('GET', orgPath, { token })).json.api_plan, 'api_access');
    await writeFromAnotherConnection('update orgs set api_plan = ? where id = ?', 'raw_data_api_access', DEMO_ORGS.basic);
    try {
      assert.equal((await server.request('GET', orgPath, { token })).json.api_plan, 'raw_data_api_access');
    } finally {
      await writeFromAnotherConnection('update orgs set api_plan = ? where id = ?', 'api_access', DEMO_ORGS.basic);
    }
    assert.equal((await server.request('GET', orgPath, { token })).json.api_plan, 'api_access');
  });

  test('a project changed by another connection is answered changed', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const detailPath = apiPaths.project(ORG, 4);
    await server.request('GET', detailPath, { token });
    await server.request('GET', listPath, { token });
    // The same version (modified_date untouched): only the write count can tell.
    await writeFromAnotherConnection("update projects set title = 'Renamed elsewhere' where id = 4");
    assert.equal((await server.request('GET', detailPath, { token })).json.title, 'Renamed elsewhere');
    assert.equal((await server.request('GET', listPath, { token })).json.find((row: { id: number }) => row.id === 4).title, 'Renamed elsewhere');
  });

  test('raw SQL written through the engine store invalidates as well', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const detailPath = apiPaths.project(ORG, 5);
    await server.request('GET', detailPath, { token });
    await sql`update projects set title = 'Renamed by raw SQL' where id = 5`.execute(server.engine.context.db);
    assert.equal((await server.request('GET', detailPath, { token })).json.title, 'Renamed by raw SQL');
  });
});

describe('ETag and If-None-Match on project detail and list', () => {
  let server: TestServer;
  const clock = new ManualClock();

  before(async () => {
    server = await startTestServer({ clock, throttleRates: { project_detail: { user: '3/min', org: null }, default: { user: '3/min', org: null } } });
  });
  after(async () => {
    await server.close();
  });

  test('a detail GET naming its ETag is answered 304 with no body, and is not counted against the quota', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const detailPath = apiPaths.project(ORG, 6);
    const first = await server.request('GET', detailPath, { token });
    assert.equal(first.status, 200);
    const etag = first.headers.get('etag')!;
    assert.equal(etag, `"${first.json.modified_date}"`);
    for (let index = 0; index < 6; index++) {
      const again = await server.request('GET', detailPath, { token, headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
      assert.equal(again.headers.get('etag'), etag);
    }
    // Six 304s cost nothing: two more full answers fit in the quota of 3, the next does not.
    assert.equal((await server.request('GET', detailPath, { token, headers: { 'if-none-match': '"another version"' } })).status, 200);
    assert.equal((await server.request('GET', detailPath, { token })).status, 200);
    assert.equal((await server.request('GET', detailPath, { token, headers: { 'if-none-match': etag } })).status, 429, 'over the quota, even a 304 is refused');
    clock.advance(61_000);
  });

  test('a list GET naming its ETag is answered 304; a change to a row on the page changes the ETag', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const first = await server.request('GET', listPath, { token });
    assert.equal(first.status, 200);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^W\/"[\w-]+"$/);
    for (let index = 0; index < 4; index++) {
      assert.equal((await server.request('GET', listPath, { token, headers: { 'if-none-match': etag } })).status, 304);
    }
    // Another query is another answer.
    const otherQuery = await server.request('GET', `${projectsPath}?limit=50&ordering=id`, { token, headers: { 'if-none-match': etag } });
    assert.equal(otherQuery.status, 200);
    assert.notEqual(otherQuery.headers.get('etag'), etag);
    clock.advance(61_000);
    const rowId = first.json[1].id;
    assert.equal((await server.request('PATCH', apiPaths.project(ORG, rowId), { token, body: { title: 'New title on the page' } })).status, 200);
    const changed = await server.request('GET', listPath, { token, headers: { 'if-none-match': etag } });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.get('etag'), etag);
    assert.equal(changed.json.find((row: { id: number }) => row.id === rowId).title, 'New title on the page');
    clock.advance(61_000);
  });
});
