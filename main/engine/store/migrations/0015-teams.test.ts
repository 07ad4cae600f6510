// Migration 0015 maps a store's old connection requests and stored `shared_with`
// arrays to the Teams model (docs/access.md "Teams"): run on a SQLite store built by
// the migrations before it, holding rows of the old shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import BetterSqlite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import * as core from './0001-core.ts';
import * as files from './0002-files.ts';
import * as teams from './0015-teams.ts';

test('old requests become connection sides, and stored shared_with entries become shares', async () => {
  const sqlite = new BetterSqlite(':memory:');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    await core.up(db, 'sqlite');
    await files.up(db, 'sqlite');
    await sql`alter table projects add column title_sort text not null default ''`.execute(db);
    const now = '2025-01-01T00:00:00.000Z';
    for (const [id, name] of [[1, 'Sunrise'], [2, 'Basic'], [3, 'Lapsed'], [4, 'Delta']] as const) {
      await sql`insert into orgs (id, name, plan_is_trial, created_date) values (${id}, ${name}, 0, ${now})`.execute(db);
    }
    await sql`insert into users (id, email, password_hash, first_name, family_name, phone, is_machine_user, is_staff, created_date)
      values (1, 'a@example.com', 'x', '', '', '', 0, 0, ${now})`.execute(db);
    const request = (id: number, from: number, to: number, status: string) =>
      sql`insert into connected_orgs (id, org_id, connected_org_id, status, requested_by_user_id, created_date, modified_date)
        values (${id}, ${from}, ${to}, ${status}, 1, ${now}, ${now})`.execute(db);
    await request(5, 1, 2, 'accepted');
    await request(6, 1, 3, 'pending');
    await request(7, 4, 1, 'declined');
    await sql`insert into workflows (id, org_id, title, is_default) values (1, 1, 'w', 1)`.execute(db);
    await sql`insert into workflow_stages (id, workflow_id, title, milestone, position) values (1, 1, 's', 0, 0)`.execute(db);
    const attributes = JSON.stringify({ notes: 'kept', shared_with: [{ org_id: 2 }, { org_id: '3', is_shared: false }, { org_id: 1 }, { org_id: 99 }, 'junk'] });
    await sql`insert into projects (id, org_id, title, identifier, address, locality, state, zip, country_iso2, priority, is_residential, is_lite, workflow_id, active_stage_id, attributes, created_date, modified_date)
      values (10, 1, 'P', '', '', '', '', '', 'AU', 2, 1, 0, 1, 1, ${attributes}, ${now}, ${now})`.execute(db);

    await teams.up(db, 'sqlite');

    const sides = (await sql<{ id: number; org_id: number; org_to_id: number; accepted: number; is_active: number }>`
      select id, org_id, org_to_id, accepted, is_active from connected_orgs order by org_id, org_to_id`.execute(db)).rows;
    assert.deepEqual(
      sides.map((side) => [side.org_id, side.org_to_id, side.accepted, side.is_active]),
      [[1, 2, 1, 1], [1, 3, 1, 1], [2, 1, 1, 1], [3, 1, 0, 1]],
      'accepted: both sides accepted; pending: the asked side waits; declined: nothing',
    );
    assert.deepEqual(sides.filter((side) => side.org_id === 1).map((side) => side.id), [5, 6], 'the asking side keeps the old id');
    const shares = (await sql<{ org_id: number; is_shared: number; position: number }>`select org_id, is_shared, position from project_shares where project_id = 10 order by position`.execute(db)).rows;
    assert.deepEqual(shares.map((share) => [share.org_id, share.is_shared]), [[2, 1], [3, 0]], 'entries naming other existing orgs are kept, is_shared with them');
    const project = (await sql<{ attributes: string }>`select attributes from projects where id = 10`.execute(db)).rows[0]!;
    assert.deepEqual(JSON.parse(project.attributes), { notes: 'kept' });
  } finally {
    await db.destroy();
  }
});
