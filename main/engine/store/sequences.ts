// Rows written with an id of their own (orgs made with `admin create-org --id`, the
// demo's fixed org ids, a store moved by `migrate-store`) do not move PostgreSQL's
// id sequences; the next row without an id would then collide. SQLite numbers from
// the largest id in the table, so there this does nothing.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- works on a store of any schema
type AnyKysely = Kysely<any>;

export function isPostgres(db: AnyKysely): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Moves `table`'s id sequence past the largest id in it. */
export async function advanceIdSequence(db: AnyKysely, table: string): Promise<void> {
  if (!isPostgres(db)) return;
  // is_called = false: the next id handed out is exactly max + 1 (1 in an empty table).
  await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce((select max(id) from ${sql.table(table)}), 0) + 1, false)`.execute(db);
}
