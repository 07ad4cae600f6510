// Issue 32: the activity log, one timeline of what happened and what waits (files
// attached from folders, transfers with their progress, edits pushed, changes from
// the server, conflicts, webhook deliveries). The core's table (main/core/core-tables.ts,
// main/core/activity-log.ts): kept 90 days, searched by `search_text`, filtered by
// project and kind. A log: no API view is built from it, so it is bookkeeping
// (store/write-generations.ts) and references no record (entries outlive them).
import type { Kysely } from 'kysely';
import { type Dialect, idColumn } from '../../engine/store/dialect.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('activity_log')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('wait_reason', 'text')
    .addColumn('project_id', 'integer')
    .addColumn('file_id', 'integer')
    .addColumn('model', 'text')
    .addColumn('record_id', 'integer')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('progress_done', 'bigint')
    .addColumn('progress_total', 'bigint')
    .addColumn('detail', 'text')
    .addColumn('hold_id', 'integer')
    .addColumn('conflict_id', 'integer')
    // One entry per thing under way (an upload of one file): its progress moves this row.
    .addColumn('live_key', 'text')
    .addColumn('search_text', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('activity_log_org_id').on('activity_log').columns(['org_id', 'id']).execute();
  await db.schema.createIndex('activity_log_project').on('activity_log').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('activity_log_at').on('activity_log').column('at').execute();
  await db.schema.createIndex('activity_log_live_key').on('activity_log').column('live_key').execute();
}
