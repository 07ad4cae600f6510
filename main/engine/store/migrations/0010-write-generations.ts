// Issue 18: the engine's caches (the caller's actor, the org and its plan, a
// project's JSON) on a PostgreSQL that several processes share. Every statement
// that writes a table an API view is built from bumps a count in
// write_generations, in the writer's own transaction, so the bump becomes visible
// exactly when the write does; a request reads the sums (one small query) before
// it trusts a cache (store/write-generations.ts). Each backend (connection) has
// its own row per count: a backend runs one transaction at a time, so no two
// transactions ever wait on the same row, and no lock order can deadlock.
// A table created by a later migration needs the same trigger
// (write-generations.postgres-test.ts checks every table has it).
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { AUTH_TABLES, BOOKKEEPING_TABLES } from '../write-generations.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    create table write_generations (
      name text not null,
      backend integer not null,
      generation bigint not null,
      primary key (name, backend)
    )`.execute(db);
  // TG_ARGV[0]: 'auth' for the caller's tables (a write there is a write to the records too), else 'records'.
  await sql`
    create function bump_write_generations() returns trigger language plpgsql as $$
    begin
      insert into write_generations (name, backend, generation)
        select name, pg_backend_pid(), 1 from unnest(case when TG_ARGV[0] = 'auth' then array['auth', 'records'] else array['records'] end) as name
        on conflict (name, backend) do update set generation = write_generations.generation + 1;
      return null;
    end
    $$`.execute(db);
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
  for (const { table_name: table } of rows) {
    if (!tracksWrites(table)) continue;
    const kind = AUTH_TABLES.has(table as never) ? 'auth' : 'records';
    await sql`
      create trigger ${sql.id(`${table}_write_generations`)}
      after insert or update or delete or truncate on ${sql.id(table)}
      for each statement execute function bump_write_generations(${sql.lit(kind)})`.execute(db);
  }
}

/** Whether writes to `table` must move the counts: every table a view may be built from. */
export function tracksWrites(table: string): boolean {
  return !BOOKKEEPING_TABLES.has(table) && table !== 'write_generations' && !table.startsWith('kysely_migration');
}
