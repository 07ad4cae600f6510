// Issue 25, item 5: an owner can revoke a project's share links. A link's token is
// an HMAC of the project id (and, for a connected org's link, of that org), so
// revoking needs something the HMAC also covers that the owner can change: this
// count of revocations. 0, the default, keeps every token made before it exactly
// as it was, so links already sent keep working until the owner revokes them.
// A column of projects, so the projects' write-generation trigger covers it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('share_link_generation', 'integer', (column) => column.notNull().defaultTo(0)).execute();
}
