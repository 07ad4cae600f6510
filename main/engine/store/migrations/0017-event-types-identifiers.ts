// Issue 16 (hosted-docs-facts.md 9 and 10).
//
// Events: each names its kind by the hosted service's integer `event_type_id`
// (shared/event-types.ts). Existing events get theirs from their `event_type` by
// the suggested mapping (note 31, stage_changed 56, every other activity 29), so an
// event's meaning is unchanged; `event_type` stays. `contact_id` names the contact
// an activity event is about (contact_added, contact_removed); older events do not
// record it, so theirs stays null.
//
// Projects: a project created without an identifier now gets a generated v4 UUID.
// Existing projects whose identifier is blank get one here too, and their
// modified_date moves, so their next webhook delivery carries it and a sync agent
// pulls it like any other change (facts 10: "in the record and in every delivery").
// Left alone: projects that are a sync replica's copies of remote records (they have
// a sync_records row): the remote owns their identifier, and a local one would
// differ from it. A replica's own offline creates (no sync_records row yet) are
// filled, and their create carries it to the remote. Demo projects all have one.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

const BATCH_ROWS = 500;

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('events').addColumn('event_type_id', 'integer', (c) => c.notNull().defaultTo(29)).execute();
  await db.schema
    .alterTable('events')
    .addColumn('contact_id', 'integer', (c) => c.references('contacts.id').onDelete('set null'))
    .execute();
  await fillEventTypeIds(db);
  await fillBlankIdentifiers(db);
}

/** Every event's id from its name (shared/event-types.ts eventTypeIdOf). Exported for its test. */
export async function fillEventTypeIds(db: Kysely<unknown>): Promise<void> {
  await sql`update events set event_type_id = case event_type when 'note' then 31 when 'stage_changed' then 56 else 29 end`.execute(db);
}

/** A v4 UUID for each project with a blank identifier that is not a replica's copy of a remote one. Exported for its test. */
export async function fillBlankIdentifiers(db: Kysely<unknown>): Promise<void> {
  const now = new Date().toISOString();
  let afterId = 0;
  for (;;) {
    const { rows } = await sql<{ id: number; modified_date: string }>`
      select id, modified_date from projects
      where id > ${afterId} and identifier = ''
        and not exists (select 1 from sync_records where sync_records.model = 'project' and sync_records.record_id = projects.id)
      order by id limit ${BATCH_ROWS}`.execute(db);
    if (rows.length === 0) break;
    for (const row of rows) {
      // A later version than the one stored, even when the stored one is ahead of this clock.
      const modified = row.modified_date >= now ? new Date(Date.parse(row.modified_date) + 1).toISOString() : now;
      await sql`update projects set identifier = ${randomUUID()}, modified_date = ${modified} where id = ${Number(row.id)}`.execute(db);
    }
    afterId = Number(rows[rows.length - 1]!.id);
  }
}
