// Issue 16: the hosted service's two catalogues (hosted-docs-facts.md sections 2 and 8).
//
// Roof types: ours were ids 1 to 8; the hosted ones are 6 to 24 with other meanings.
// Every stored project roof type moves to the hosted id of the same roof (ROOF_TYPE_MOVES),
// and so do the sync merge bases and open conflicts that hold one, so a replica does not
// see the move as an edit. The outbox holds field names, never values: its waiting
// writes are built from the (moved) record when they go up.
//
// File tags: ours were per org (five standard ones, plus tags an org made); the hosted
// ones are one catalogue shared by every org at /api/file_tags/<id>/. file_tags is
// rebuilt with a nullable org_id (null: a catalogue tag), the catalogue is inserted
// with the ids of shared/file-tags.ts, each org's standard tag joins its catalogue tag
// (PRE_CATALOGUE_TAGS), any other tag whose title is a catalogue title joins that one,
// and the rest stay the org's own tags with id ORG_TAG_FIRST_ID - 1 + old id (the same
// new id on a server and on a replica of it, since a replica holds the server's ids).
// Every file keeps every tag it carried, under the new id; merge bases and conflicts
// that list tag ids are moved too.
import { sql, type Kysely } from 'kysely';
import { type Dialect, idColumn } from '../dialect.ts';
import {
  FILE_TAG_CATALOGUE,
  FILE_TAG_TYPE,
  ORG_TAG_FIRST_ID,
  PRE_CATALOGUE_TAGS,
  findCatalogueTagByTitle,
} from '../../../../shared/file-tags.ts';
import { advanceIdSequence } from '../sequences.ts';
import { PRE_HOSTED_ROOF_TYPE_IDS } from '../../../../shared/roof-types.ts';

/** Old roof type id -> hosted id: the reasons are with the table in shared/roof-types.ts. */
const ROOF_TYPE_MOVES = PRE_HOSTED_ROOF_TYPE_IDS;

const BATCH_ROWS = 500;

type OldTag = { id: number; org_id: number; title: string; type: string; created_date: string };

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await moveRoofTypes(db);
  const tagMoves = await rebuildFileTags(db, dialect);
  await moveSyncValues(db, tagMoves);
}

async function moveRoofTypes(db: Kysely<unknown>): Promise<void> {
  const cases = sql.join(
    Object.entries(ROOF_TYPE_MOVES).map(([from, to]) => sql`when ${sql.lit(Number(from))} then ${sql.lit(to)}`),
    sql` `,
  );
  // One statement: every row is read with its old id, so 5 -> 6 never meets 6 -> 9.
  await sql`update projects set roof_type_id = case roof_type_id ${cases} end where roof_type_id in (${sql.join(Object.keys(ROOF_TYPE_MOVES).map((id) => sql.lit(Number(id))))})`.execute(db);
}

/** Rebuilds file_tags and private_file_tags; answers old tag id -> new tag id. */
async function rebuildFileTags(db: Kysely<unknown>, dialect: Dialect): Promise<Map<number, number>> {
  const { rows: oldTags } = await sql<OldTag>`select id, org_id, title, type, created_date from file_tags order by id`.execute(db);
  const moves = new Map<number, number>();
  const orgTags: OldTag[] = [];
  for (const tag of oldTags) {
    const id = Number(tag.id);
    const catalogue = findCatalogueTagByTitle(PRE_CATALOGUE_TAGS[tag.title.trim().toLowerCase()] ?? tag.title);
    if (catalogue) moves.set(id, catalogue.id);
    else {
      moves.set(id, ORG_TAG_FIRST_ID - 1 + id);
      orgTags.push({ ...tag, id: ORG_TAG_FIRST_ID - 1 + id });
    }
  }
  // Every file's tags, read before the tables go (a big store: in batches of files).
  const links: { file_id: number; tag_id: number }[] = [];
  for (let afterFile = 0, afterTag = 0; ; ) {
    const { rows } = await sql<{ file_id: number; tag_id: number }>`
      select file_id, tag_id from private_file_tags
      where file_id > ${afterFile} or (file_id = ${afterFile} and tag_id > ${afterTag})
      order by file_id, tag_id limit ${BATCH_ROWS * 10}`.execute(db);
    if (rows.length === 0) break;
    links.push(...rows.map((row) => ({ file_id: Number(row.file_id), tag_id: Number(row.tag_id) })));
    afterFile = Number(rows[rows.length - 1]!.file_id);
    afterTag = Number(rows[rows.length - 1]!.tag_id);
  }

  // Nothing else refers to these two tables, so they can go (private_file_tags first: it refers to file_tags).
  await db.schema.dropTable('private_file_tags').execute();
  await db.schema.dropTable('file_tags').execute();
  await db.schema
    .createTable('file_tags')
    .addColumn('id', ...idColumn(dialect))
    // Null: a catalogue tag, shared by every org.
    .addColumn('org_id', 'integer', (c) => c.references('orgs.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull().defaultTo(FILE_TAG_TYPE))
    .addColumn('created_date', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('file_tags_org_title').unique().on('file_tags').columns(['org_id', 'title']).execute();
  await db.schema
    .createTable('private_file_tags')
    .addColumn('file_id', 'integer', (c) => c.notNull().references('private_files.id').onDelete('cascade'))
    .addColumn('tag_id', 'integer', (c) => c.notNull().references('file_tags.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('private_file_tags_pk', ['file_id', 'tag_id'])
    .execute();
  await db.schema.createIndex('private_file_tags_tag').on('private_file_tags').column('tag_id').execute();
  if (dialect === 'postgres') {
    // Views are built from both (store migration 0010): their writes move the counts.
    for (const table of ['file_tags', 'private_file_tags']) {
      await sql`
        create trigger ${sql.id(`${table}_write_generations`)}
        after insert or update or delete or truncate on ${sql.id(table)}
        for each statement execute function bump_write_generations('records')`.execute(db);
    }
  }

  const catalogueDate = '2026-01-01T00:00:00.000Z';
  const tagRows = [
    ...FILE_TAG_CATALOGUE.map((tag) => ({ id: tag.id, org_id: null, title: tag.title, type: FILE_TAG_TYPE, created_date: catalogueDate })),
    ...orgTags.map((tag) => ({ id: tag.id, org_id: Number(tag.org_id), title: tag.title, type: tag.type, created_date: tag.created_date })),
  ];
  for (let start = 0; start < tagRows.length; start += BATCH_ROWS) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migration's Kysely knows no tables
    await (db as Kysely<any>).insertInto('file_tags').values(tagRows.slice(start, start + BATCH_ROWS)).execute();
  }
  const seen = new Set<string>();
  const newLinks = links
    .map((link) => ({ file_id: link.file_id, tag_id: moves.get(link.tag_id) }))
    .filter((link): link is { file_id: number; tag_id: number } => {
      if (link.tag_id === undefined) return false;
      const key = `${link.file_id}:${link.tag_id}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  for (let start = 0; start < newLinks.length; start += BATCH_ROWS) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
    await (db as Kysely<any>).insertInto('private_file_tags').values(newLinks.slice(start, start + BATCH_ROWS)).execute();
  }
  await reserveCatalogueIds(db, dialect);
  return moves;
}

/** The next tag an org makes gets an id at or past ORG_TAG_FIRST_ID (files/file-tags.ts also makes sure). */
async function reserveCatalogueIds(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await advanceIdSequence(db, 'file_tags');
    await sql`select setval(pg_get_serial_sequence('file_tags', 'id'), greatest((select coalesce(max(id), 0) from file_tags) + 1, ${ORG_TAG_FIRST_ID}), false)`.execute(db);
    return;
  }
  await sql`delete from sqlite_sequence where name = 'file_tags'`.execute(db);
  await sql`insert into sqlite_sequence (name, seq) values ('file_tags', max((select coalesce(max(id), 0) from file_tags), ${ORG_TAG_FIRST_ID - 1}))`.execute(db);
}

/** Sync's merge bases and open conflicts hold views with roof type ids and tag ids: moved like the records. */
async function moveSyncValues(db: Kysely<unknown>, tagMoves: Map<number, number>): Promise<void> {
  const moveTags = (ids: unknown) =>
    Array.isArray(ids) ? [...new Set(ids.map((id) => (typeof id === 'number' ? (tagMoves.get(id) ?? id) : id)))].sort() : ids;
  const moveRoof = (id: unknown) => (typeof id === 'number' ? (ROOF_TYPE_MOVES[id] ?? id) : id);
  for (let after = ''; ; ) {
    const { rows } = await sql<{ model: string; record_id: number; base: string }>`
      select model, record_id, base from sync_records
      where model in ('project', 'private_file') and (model || ':' || cast(record_id as text)) > ${after}
      order by model || ':' || cast(record_id as text) limit ${BATCH_ROWS}`.execute(db);
    if (rows.length === 0) break;
    for (const row of rows) {
      let base: Record<string, unknown>;
      try {
        base = JSON.parse(row.base) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (row.model === 'project' && 'roof_type' in base) base.roof_type = moveRoof(base.roof_type);
      if (row.model === 'private_file' && 'file_tags' in base) base.file_tags = moveTags(base.file_tags);
      await sql`update sync_records set base = ${JSON.stringify(base)} where model = ${row.model} and record_id = ${row.record_id}`.execute(db);
    }
    const last = rows[rows.length - 1]!;
    after = `${last.model}:${String(Number(last.record_id))}`;
  }
  const { rows: conflicts } = await sql<{ id: number; field: string; local_value: string; remote_value: string; base_value: string }>`
    select id, field, local_value, remote_value, base_value from sync_conflicts where field in ('roof_type', 'file_tags')`.execute(db);
  for (const conflict of conflicts) {
    const move = (text: string) => {
      try {
        const value: unknown = JSON.parse(text);
        return JSON.stringify(conflict.field === 'roof_type' ? moveRoof(value) : moveTags(value));
      } catch {
        return text;
      }
    };
    await sql`
      update sync_conflicts set local_value = ${move(conflict.local_value)}, remote_value = ${move(conflict.remote_value)}, base_value = ${move(conflict.base_value)}
      where id = ${conflict.id}`.execute(db);
  }
}
