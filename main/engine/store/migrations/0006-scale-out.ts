// Issue 9: several server processes on one database. A webhook delivery is claimed
// by one process's worker at a time; the claim lapses when that process dies, so
// another delivers it (docs/webhooks.md, docs/scale-out.md).
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  // SQLite adds one column per ALTER TABLE.
  await db.schema.alterTable('webhook_deliveries').addColumn('claimed_by', 'text').execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('claimed_until', 'text').execute();
}
