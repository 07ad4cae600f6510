// Issue 18 on a shared PostgreSQL: two engines on one schema stand for two server
// processes (each its own data folder, connection pool and caches). Every write made
// through one is followed at once by the request to the other that must see it:
// the caller's cache (token, role, plan) and the project JSON cache may never answer
// with what the other process has changed. Runs only on `npm run test:postgres`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, startTestServer, type TestServer } from '../testing/test-server.ts';
import { dropTestDatabase, testPostgresUrl } from '../testing/test-database.ts';
import { DEMO_ORGS, DEMO_USERS } from '../seed/demo-seed.ts';
import { ManualClock } from '../clock.ts';
import { hashToken, issueToken } from '../auth/accounts.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { sql } from 'kysely';
import { tracksWrites } from '../store/migrations/0010-write-generations.ts';

if (!testPostgresUrl()) {
  throw new Error('request-caches-across-processes.postgres-test.ts needs a PostgreSQL server: run it through `npm run test:postgres`.');
}

const ORG = DEMO_ORGS.sunrise;
const listPath = `${apiPaths.projects(ORG)}?limit=100&ordering=id`;
const clock = new ManualClock();
let first: TestServer;
let second: TestServer;

before(async () => {
  first = await startTestServer({ clock });
  // The same schema (its address is kept in the data folder), another data folder: another process.
  const secondDir = makeTempDir();
  fs.copyFileSync(path.join(first.dataDir, 'test-database-url'), path.join(secondDir, 'test-database-url'));
  second = await startTestServer({ clock, dataDir: secondDir });
});

after(async () => {
  await second?.close();
  await first?.close();
  await dropTestDatabase(first.dataDir);
});

test('a token deleted through one process is refused by the other on its next request', async () => {
  const admin = await first.engine.context.db.selectFrom('users').select('id').where('email', '=', DEMO_USERS.sunriseAdmin).executeTakeFirstOrThrow();
  const token = await issueToken(first.engine.context.db, clock, admin.id);
  // Twice, so the second answer comes from the cache.
  assert.equal((await second.request('GET', apiPaths.projects(ORG), { token })).status, 200);
  assert.equal((await second.request('GET', apiPaths.projects(ORG), { token })).status, 200);
  await first.engine.context.db.deleteFrom('tokens').where('token_hash', '=', hashToken(token)).execute();
  assert.equal((await second.request('GET', apiPaths.projects(ORG), { token })).status, 401);
});

test('a role changed through one process: the other answers with the new permission at once', async () => {
  const token = await second.tokenFor(DEMO_USERS.sunriseMember);
  const member = await first.engine.context.db.selectFrom('users').select('id').where('email', '=', DEMO_USERS.sunriseMember).executeTakeFirstOrThrow();
  const setSeesAll = (value: 0 | 1) =>
    first.engine.context.db.updateTable('roles').set({ sees_all_projects: value }).where('org_id', '=', ORG).where('user_id', '=', member.id).execute();
  const mine = (await second.request('GET', listPath, { token })).json.length;
  assert.equal((await second.request('GET', listPath, { token })).json.length, mine);
  const all = (await first.request('GET', listPath, { token: await first.tokenFor(DEMO_USERS.sunriseAdmin) })).json.length;
  assert.ok(mine < all);
  await setSeesAll(1);
  try {
    assert.equal((await second.request('GET', listPath, { token })).json.length, all);
  } finally {
    await setSeesAll(0);
  }
  assert.equal((await second.request('GET', listPath, { token })).json.length, mine);
});

test('a plan changed through one process takes effect in the other on its next request', async () => {
  const token = await second.tokenFor(DEMO_USERS.basicAdmin);
  const orgPath = apiPaths.org(DEMO_ORGS.basic);
  assert.equal((await second.request('GET', orgPath, { token })).json.api_plan, 'api_access');
  assert.equal((await second.request('GET', orgPath, { token })).json.api_plan, 'api_access');
  const setPlan = (plan: 'api_access' | 'raw_data_api_access') =>
    first.engine.context.db.updateTable('orgs').set({ api_plan: plan }).where('id', '=', DEMO_ORGS.basic).execute();
  await setPlan('raw_data_api_access');
  try {
    assert.equal((await second.request('GET', orgPath, { token })).json.api_plan, 'raw_data_api_access');
  } finally {
    await setPlan('api_access');
  }
  assert.equal((await second.request('GET', orgPath, { token })).json.api_plan, 'api_access');
});

test('a project PATCHed, or a related contact changed, through one process: the other answers the change', async () => {
  const token = await first.tokenFor(DEMO_USERS.sunriseAdmin);
  const detailPath = apiPaths.project(ORG, 2);
  const before = await second.request('GET', detailPath, { token });
  assert.equal((await second.request('GET', detailPath, { token })).text, before.text);
  await second.request('GET', listPath, { token });
  const patched = await first.request('PATCH', detailPath, { token, body: { notes: 'changed in the first process', title: 'Renamed in the first process' } });
  assert.equal(patched.status, 200);
  assert.equal((await second.request('GET', detailPath, { token })).json.notes, 'changed in the first process');
  assert.equal((await second.request('GET', listPath, { token })).json.find((row: { id: number }) => row.id === 2).title, 'Renamed in the first process');

  // The same project version (modified_date untouched): only the store's write counts can tell.
  const withContact = (await second.request('GET', listPath, { token })).json.find((row: { contacts: string[] }) => row.contacts.length > 0);
  assert.ok(withContact, 'a demo project with a contact');
  const contactDetail = apiPaths.project(ORG, withContact.id);
  await second.request('GET', contactDetail, { token });
  const contactId = Number(new URL(withContact.contacts[0]).pathname.split('/').filter(Boolean).at(-1));
  await first.engine.context.db.updateTable('contacts').set({ first_name: 'Elsewhere' }).where('id', '=', contactId).execute();
  assert.equal((await second.request('GET', contactDetail, { token })).json.contacts_data[0].first_name, 'Elsewhere');
});

test('every table a view is built from moves the write counts (a table added later needs the trigger too)', async () => {
  const { rows } = await sql<{ table_name: string; triggers: number }>`
    select t.table_name, count(g.trigger_name)::int as triggers
    from information_schema.tables t
    left join information_schema.triggers g
      on g.event_object_schema = t.table_schema and g.event_object_table = t.table_name and g.trigger_name = t.table_name || '_write_generations'
    where t.table_schema = current_schema() and t.table_type = 'BASE TABLE'
    group by t.table_name`.execute(first.engine.context.db);
  const missing = rows.filter((row) => tracksWrites(row.table_name) && row.triggers === 0).map((row) => row.table_name);
  assert.deepEqual(missing, []);
  assert.ok(rows.some((row) => row.table_name === 'projects' && row.triggers > 0));
});
