// Issue 27 "Schedule": an event is a schedule entry, with the hosted Event record's
// fields (hosted-docs-facts.md 9) stored rather than answered empty. Existing events
// are notes and activity: no time, not complete, not archived, nobody assigned,
// which is what the new columns default to, so their records read as before.
//
// `start` and `end` are SQL keywords, so the columns are `starts_at`/`ends_at`
// (ISO 8601 UTC text, as every timestamp of the store). `duration_seconds` holds the
// duration the API writes as DRF's "[D ]HH:MM:SS". `team_member_role_ids` is a JSON
// array of the org's role ids, kept on the row (no table of its own) so that an
// event's record is read with its row, as change capture and the project's
// events_data read it. `repeat` is stored as the JSON the client sent: the hosted
// service does not document its shape.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite adds one column per ALTER TABLE.
  const alter = () => db.schema.alterTable('events');
  await alter().addColumn('starts_at', 'text').execute();
  await alter().addColumn('ends_at', 'text').execute();
  await alter().addColumn('duration_seconds', 'integer').execute();
  await alter().addColumn('is_complete', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await alter().addColumn('completion_date', 'text').execute();
  await alter().addColumn('is_archived', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await alter().addColumn('task_status', 'integer').execute();
  await alter().addColumn('team_member_role_ids', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await alter().addColumn('repeat_json', 'text').execute();
  await alter().addColumn('location_override', 'text').execute();
  // The schedule is read by time.
  await db.schema.createIndex('events_org_starts_at').on('events').columns(['org_id', 'starts_at']).execute();
}
