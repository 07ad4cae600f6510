// Issue 19, finding 7: contacts follow project visibility, and a member without the
// org-wide projects permission still sees the contacts they created themselves
// (docs/access.md). Contacts made before this column existed have no recorded
// creator: they are visible through their projects only.
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('contacts')
    .addColumn('created_by_user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .execute();
}
