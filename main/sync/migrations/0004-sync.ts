// The sync agent's bookkeeping in the local replica: the outbox of local changes,
// each synced record's merge base, conflicts kept for the user, and small state.
// A server never writes these tables; they live in every store so one schema
// serves both hosts.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumn } from '../../engine/store/dialect.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const notNull = (c: ColumnDefinitionBuilder) => c.notNull();

  // One row per local change; its id is the sequence number, op_id the client-made id.
  await db.schema
    .createTable('sync_outbox')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('op_id', 'text', (c) => c.notNull().unique())
    .addColumn('model', 'text', notNull)
    .addColumn('record_id', 'integer', notNull)
    .addColumn('op', 'text', notNull)
    .addColumn('fields', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', notNull)
    .addColumn('sent_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_date', 'text', notNull)
    .execute();
  await db.schema.createIndex('sync_outbox_record').on('sync_outbox').columns(['model', 'record_id']).execute();

  await db.schema
    .createTable('sync_records')
    .addColumn('model', 'text', notNull)
    .addColumn('record_id', 'integer', notNull)
    .addColumn('base', 'text', notNull)
    .addColumn('remote_modified', 'text')
    .addPrimaryKeyConstraint('sync_records_pk', ['model', 'record_id'])
    .execute();

  await db.schema
    .createTable('sync_conflicts')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('model', 'text', notNull)
    .addColumn('record_id', 'integer', notNull)
    .addColumn('field', 'text', notNull)
    .addColumn('local_value', 'text', notNull)
    .addColumn('remote_value', 'text', notNull)
    .addColumn('base_value', 'text', notNull)
    .addColumn('created_date', 'text', notNull)
    .execute();

  await db.schema
    .createTable('sync_state')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', notNull)
    .execute();
}
