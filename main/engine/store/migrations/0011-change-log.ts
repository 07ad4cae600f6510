// Issue 15: the change feed (docs/http-api.md "Change feed"). Every committed
// write of a tracked record (project, contact, event, webhook, private file)
// appends one row per record it changed, in the write's own transaction: a
// record reference, not its body. Clients read it by cursor (the row id) to learn
// what changed since they last looked. Old rows are pruned
// (main/engine/changes/change-log.ts); a cursor from before the pruned horizon is
// answered 410. The table is bookkeeping (store/write-generations.ts): nothing an
// API view is built from, so it carries no write_generations trigger on PostgreSQL.
import type { Kysely } from 'kysely';
import { type Dialect, idColumn } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('change_log')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('record_id', 'integer', (c) => c.notNull())
    .addColumn('op', 'text', (c) => c.notNull())
    .addColumn('project_id', 'integer')
    .addColumn('modified_date', 'text', (c) => c.notNull())
    // When the change was logged: what pruning goes by.
    .addColumn('logged_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('change_log_by_org').on('change_log').columns(['org_id', 'id']).execute();
}
