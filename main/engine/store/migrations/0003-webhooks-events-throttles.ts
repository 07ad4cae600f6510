// Activity events, webhook settings, the durable delivery queue and its log, and
// the throttle counters (which must survive a restart).
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumn } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const notNull = (c: ColumnDefinitionBuilder) => c.notNull();

  await db.schema
    .createTable('events')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('event_type', 'text', notNull)
    .addColumn('title', 'text', notNull)
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('user_id', 'integer', (c) => c.references('users.id'))
    .addColumn('created_date', 'text', notNull)
    .addColumn('modified_date', 'text', notNull)
    .execute();
  await db.schema.createIndex('events_project').on('events').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('events_org').on('events').columns(['org_id', 'id']).execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('endpoint', 'text', notNull)
    .addColumn('enabled', 'integer', notNull)
    .addColumn('debug', 'integer', notNull)
    .addColumn('trigger_fields', 'text')
    .addColumn('payload_fields', 'text')
    .addColumn('headers', 'text')
    .addColumn('created_date', 'text', notNull)
    .addColumn('modified_date', 'text', notNull)
    .execute();
  await db.schema.createIndex('webhooks_org').on('webhooks').columns(['org_id', 'id']).execute();

  // One row per captured change that at least one webhook wanted; its id is the body's event_id.
  await db.schema
    .createTable('webhook_changes')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('model', 'text', notNull)
    .addColumn('model_id', 'integer', notNull)
    .addColumn('event', 'text', notNull)
    .addColumn('occurred_at', 'text', notNull)
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('change_id', 'integer', (c) => c.notNull().references('webhook_changes.id'))
    .addColumn('body', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', notNull)
    .addColumn('first_attempt_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_date', 'text', notNull)
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('webhook_deliveries_queue').on('webhook_deliveries').columns(['status', 'webhook_id', 'id']).execute();

  await db.schema
    .createTable('webhook_process_logs')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('delivery_id', 'integer', (c) => c.notNull())
    .addColumn('attempt', 'integer', notNull)
    .addColumn('created_date', 'text', notNull)
    .addColumn('successful', 'integer', notNull)
    .addColumn('model_name', 'text', notNull)
    .addColumn('model_pk', 'integer', notNull)
    .addColumn('event_id', 'integer', notNull)
    .addColumn('event_name', 'text', notNull)
    .addColumn('event_timestamp', 'text', notNull)
    .addColumn('notes', 'text', notNull)
    .execute();
  await db.schema.createIndex('webhook_process_logs_org').on('webhook_process_logs').columns(['org_id', 'webhook_id', 'id']).execute();

  await db.schema
    .createTable('throttle_buckets')
    .addColumn('scope_key', 'text', notNull)
    .addColumn('bucket_start', 'bigint', notNull)
    .addColumn('hits', 'integer', notNull)
    .addPrimaryKeyConstraint('throttle_buckets_pk', ['scope_key', 'bucket_start'])
    .execute();
}
