// Issue 16, facts sections 4 and 11: the hosted Teams feature.
//
// connected_orgs becomes one row per side of a connection, as the hosted record is
// seen: `org_id` is the side the row belongs to, `org_to_id` its partner. A row has
// its side's `is_active` (enabled), `accepted` (this side has agreed: the asking side
// at once, the asked side when it accepts), its default partner permissions role and
// the roles told of shares. The old rows (one per request with a status) map:
//   pending  -> the asking side accepted, the asked side not yet (its pending item)
//   accepted -> both sides accepted
//   declined -> nothing (a declined or disconnected request is no connection)
// Every side starts enabled. The asking side keeps the old row's id.
//
// New: permissions_roles (partner permission roles, role_type 1), project_shares
// (a project's `shared_with`, which was stored in its attributes with no effect:
// moved here, entry for entry) and entity_shares (bulk sharing of org entities).
// Every table here is part of an API view: on PostgreSQL each gets the
// write_generations trigger (migration 0010).
import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import { type Dialect, idColumn } from '../dialect.ts';

interface OldConnection {
  id: number;
  org_id: number;
  connected_org_id: number;
  status: string;
  requested_by_user_id: number;
  created_date: string;
  modified_date: string;
}

const BATCH_ROWS = 500;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const flag = (name: string, value: 0 | 1) => [name, 'integer', (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(value)] as const;
  const timestamp = (name: string) => [name, 'text', (c: ColumnDefinitionBuilder) => c.notNull()] as const;

  await db.schema
    .createTable('permissions_roles')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('role_type', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('title', 'text', (c) => c.notNull())
    // The JSON text the client sent ({"project": {<area>: {view, create, edit, delete}}}), validated.
    .addColumn('permissions', 'text', (c) => c.notNull())
    // Its "project" area's view, kept beside the JSON so visibility is one SQL condition.
    .addColumn(...flag('project_view', 1))
    .addColumn(...timestamp('created_date'))
    .addColumn(...timestamp('modified_date'))
    .execute();
  await db.schema.createIndex('permissions_roles_org').on('permissions_roles').column('org_id').execute();

  const { rows: old } = await sql<OldConnection>`select * from connected_orgs where status <> 'declined' order by id`.execute(db);
  await db.schema.dropTable('connected_orgs').execute();
  await db.schema
    .createTable('connected_orgs')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('org_to_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn(...flag('is_active', 1))
    .addColumn(...flag('accepted', 0))
    .addColumn('permission_role_id', 'integer', (c) => c.references('permissions_roles.id').onDelete('set null'))
    .addColumn('notify_roles', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('requested_by_user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn(...timestamp('created_date'))
    .addColumn(...timestamp('modified_date'))
    .addUniqueConstraint('connected_orgs_pair', ['org_id', 'org_to_id'])
    .execute();
  await db.schema.createIndex('connected_orgs_org_to').on('connected_orgs').column('org_to_id').execute();
  for (const row of old) {
    await sql`insert into connected_orgs (id, org_id, org_to_id, is_active, accepted, notify_roles, requested_by_user_id, created_date, modified_date)
      values (${Number(row.id)}, ${Number(row.org_id)}, ${Number(row.connected_org_id)}, 1, 1, '[]', ${Number(row.requested_by_user_id)}, ${row.created_date}, ${row.modified_date})`.execute(db);
  }
  if (dialect === 'postgres') {
    await sql`select setval(pg_get_serial_sequence('connected_orgs', 'id'), coalesce((select max(id) from connected_orgs), 0) + 1, false)`.execute(db);
  }
  for (const row of old) {
    const accepted = row.status === 'accepted' ? 1 : 0;
    await sql`insert into connected_orgs (org_id, org_to_id, is_active, accepted, notify_roles, created_date, modified_date)
      values (${Number(row.connected_org_id)}, ${Number(row.org_id)}, 1, ${accepted}, '[]', ${row.created_date}, ${row.modified_date})`.execute(db);
  }

  await db.schema
    .createTable('project_shares')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('permission_role_id', 'integer', (c) => c.references('permissions_roles.id').onDelete('set null'))
    .addColumn(...flag('is_shared', 1))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn(...timestamp('created_date'))
    .addColumn(...timestamp('modified_date'))
    .addPrimaryKeyConstraint('project_shares_pk', ['project_id', 'org_id'])
    .execute();
  await db.schema.createIndex('project_shares_org').on('project_shares').columns(['org_id', 'project_id']).execute();
  await moveSharedWith(db);

  await db.schema
    .createTable('entity_shares')
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('entity_type', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'integer', (c) => c.notNull())
    .addColumn('shared_org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn(...timestamp('created_date'))
    .addPrimaryKeyConstraint('entity_shares_pk', ['org_id', 'entity_type', 'entity_id', 'shared_org_id'])
    .execute();
  await db.schema.createIndex('entity_shares_shared').on('entity_shares').columns(['shared_org_id', 'entity_type']).execute();

  if (dialect === 'postgres') {
    for (const table of ['permissions_roles', 'connected_orgs', 'project_shares', 'entity_shares']) {
      await sql`
        create trigger ${sql.id(`${table}_write_generations`)}
        after insert or update or delete or truncate on ${sql.id(table)}
        for each statement execute function bump_write_generations('records')`.execute(db);
    }
  }
}

/**
 * Projects' stored `shared_with` arrays -> project_shares. An entry naming an org
 * (its `org_id`, a number or digits) other than the project's own keeps its
 * `is_shared` (default true); a permission URL is not kept (no permissions roles
 * existed). Entries that name no org never meant anything and are dropped.
 */
async function moveSharedWith(db: Kysely<unknown>): Promise<void> {
  const { rows: orgs } = await sql<{ id: number }>`select id from orgs`.execute(db);
  const orgIds = new Set(orgs.map((org) => Number(org.id)));
  let afterId = 0;
  for (;;) {
    const { rows } = await sql<{ id: number; org_id: number; attributes: string; created_date: string }>`
      select id, org_id, attributes, created_date from projects where id > ${afterId} order by id limit ${BATCH_ROWS}`.execute(db);
    if (rows.length === 0) break;
    for (const row of rows) {
      let attributes: Record<string, unknown>;
      try {
        attributes = JSON.parse(row.attributes) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (!('shared_with' in attributes)) continue;
      const entries = Array.isArray(attributes.shared_with) ? (attributes.shared_with as unknown[]) : [];
      const seen = new Set<number>();
      let position = 0;
      for (const entry of entries) {
        if (entry === null || typeof entry !== 'object') continue;
        const { org_id: reference, is_shared: isShared } = entry as { org_id?: unknown; is_shared?: unknown };
        const orgId = typeof reference === 'number' ? reference : typeof reference === 'string' && /^\d{1,15}$/.test(reference) ? Number(reference) : NaN;
        if (!orgIds.has(orgId) || orgId === Number(row.org_id) || seen.has(orgId)) continue;
        seen.add(orgId);
        await sql`insert into project_shares (project_id, org_id, is_shared, position, created_date, modified_date)
          values (${Number(row.id)}, ${orgId}, ${isShared === false ? 0 : 1}, ${position++}, ${row.created_date}, ${row.created_date})`.execute(db);
      }
      delete attributes.shared_with;
      await sql`update projects set attributes = ${JSON.stringify(attributes)} where id = ${Number(row.id)}`.execute(db);
    }
    afterId = Number(rows[rows.length - 1]!.id);
  }
}
