// Issue 16: the systems resource (systems/system-list.ts) walks an org's projects
// that have a design, in id order. Without an index it read every project of the
// org to find them (1.2 s a page at 100,000 projects, most without a design); this
// partial index holds only the designed ones. No data changes, so existing stores
// mean what they meant; an index, so no write_generations trigger.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('projects_org_designed').on('projects').columns(['org_id', 'id']).where(sql.ref('design'), 'is not', null).execute();
}
