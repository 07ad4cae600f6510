// Issue 27 "Beyond the anchors": each person's schedule as an iCalendar feed at a
// secret URL a phone calendar subscribes to (events/calendar-feed-routes.ts). One
// feed per person and org; making it again replaces the secret (the old URL stops
// working), deleting the row revokes it. Only the secret's SHA-256 is kept, as for
// API tokens: a copy of the store gives nobody a working feed URL.
import type { Kysely } from 'kysely';
import { type Dialect, idColumn } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('calendar_feeds')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_date', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('calendar_feeds_user_org').unique().on('calendar_feeds').columns(['user_id', 'org_id']).execute();
}
