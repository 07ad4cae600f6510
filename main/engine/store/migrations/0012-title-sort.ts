// Issue 20: `ordering=title` is natural ("75 Macquarie" before "249 Hill"). Each
// project keeps its title's sort key (shared/natural-sort.ts naturalSortKey) in
// `title_sort`, compared bytewise on both stores (on PostgreSQL every text column
// is `collate "C"`, docs/store.md), and the list walks (org_id, title_sort, id).
// Every write of a title writes the key too (projects/title-sort.ts withTitleSort).
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { naturalSortKey } from '../../../../shared/natural-sort.ts';

const BATCH_ROWS = 500;

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  // `text` is `text collate "C"` on PostgreSQL (store/dialect.ts): byte order, as SQLite compares.
  await db.schema.alterTable('projects').addColumn('title_sort', 'text', (column) => column.notNull().defaultTo('')).execute();
  await fillTitleSortKeys(db);
  await db.schema.createIndex('projects_org_title_sort').on('projects').columns(['org_id', 'title_sort', 'id']).execute();
}

/** Writes every project's key from its title: one statement per 500 rows, on a store of any size. */
export async function fillTitleSortKeys(db: Kysely<unknown>): Promise<void> {
  let afterId = 0;
  for (;;) {
    const { rows } = await sql<{ id: number; title: string }>`select id, title from projects where id > ${afterId} order by id limit ${BATCH_ROWS}`.execute(db);
    if (rows.length === 0) break;
    const values = sql.join(rows.map((row) => sql`(cast(${Number(row.id)} as integer), ${naturalSortKey(row.title)})`));
    await sql`
      with keyed (id, title_sort) as (values ${values})
      update projects set title_sort = (select keyed.title_sort from keyed where keyed.id = projects.id)
      where id in (select keyed.id from keyed)`.execute(db);
    afterId = Number(rows[rows.length - 1]!.id);
  }
}
