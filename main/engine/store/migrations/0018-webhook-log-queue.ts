// Issue 16 (hosted-docs-facts.md 7): the delivery log and the queue as the hosted
// service shows them. The queue's rows say when their delivery started
// (`processing_started_at`: set when a worker claims it, cleared when the claim
// ends), and the log is read newest first per org, searched within the newest rows
// (webhooks/webhook-log.ts), so it gets an (org_id, id) index. Both tables are
// bookkeeping (store/write-generations.ts): no API record's view is built from
// them, so they carry no write_generations trigger. Existing rows keep their
// meaning: no delivery is being processed while the store migrates (a start drops
// every claim), so null is right for every existing queue row.
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('processing_started_at', 'text').execute();
  await db.schema.createIndex('webhook_process_logs_org_id').on('webhook_process_logs').columns(['org_id', 'id']).execute();
}
