// Issue 6, sync's half of migration 0005-folders-uploads (the store applies it before
// the watcher's half, main/watch/migrations/0005-folders.ts, under that one name): the
// state of chunked pushes, so a restart resumes a big upload from its next part. Like
// 0004, only the agent writes it; it lives in every store so one schema serves every host.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const notNull = (c: ColumnDefinitionBuilder) => c.notNull();

  // One row per outbox create going up in parts: the remote's upload id and how many parts it acknowledged.
  await db.schema
    .createTable('sync_uploads')
    .addColumn('op_id', 'text', (c) => c.primaryKey())
    .addColumn('upload_id', 'text', notNull)
    .addColumn('part_bytes', 'integer', notNull)
    .addColumn('parts_done', 'integer', notNull)
    .addColumn('created_date', 'text', notNull)
    .execute();
}
