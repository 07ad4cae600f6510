// Issue 34: a conflict is not only "both sides changed this field". A write the
// remote answered without the value sent (it did not take it) is kept as a
// conflict too, and the user must be told why: `reason` says it in a sentence.
// Null for a conflict of both sides changing the field, which is what every
// existing row is, so existing stores mean what they meant. sync_conflicts is
// bookkeeping of the agent (no API record's view is built from it): no
// write_generations trigger.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sync_conflicts').addColumn('reason', 'text').execute();
}
