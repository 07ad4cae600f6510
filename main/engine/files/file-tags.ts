// File tags (hosted-docs-facts.md section 8): the catalogue every org shares (rows
// with no org, put there by store migration 0016 from shared/file-tags.ts) and the
// tags an org makes itself (SolarDesk's extension, ids from ORG_TAG_FIRST_ID up).
// Every tag's URL is /api/file_tags/<id>/.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, FileTagRow } from '../store/tables.ts';
import type { Actor } from '../auth/actor.ts';
import type { EngineContext } from '../context.ts';
import { fieldError } from '../http/errors.ts';
import type { z } from 'zod';
import type { fileTagCreateSchema } from '../../../shared/schemas/private-file.ts';
import { nowIso } from '../clock.ts';
import { parseFileTagReference } from '../../../shared/api-paths.ts';
import { EXPORT_TAG_TITLE, FILE_TAG_TYPE, ORG_TAG_FIRST_ID, isExportTag } from '../../../shared/file-tags.ts';
import { advanceIdSequence } from '../store/sequences.ts';
import { PROVISIONAL_ID_FLOOR } from '../store/table-ownership.ts';

type FileTagCreate = z.output<typeof fileTagCreateSchema>;
type Db = Kysely<Database> | Transaction<Database>;

const INVALID_HYPERLINK = 'Invalid hyperlink - Object does not exist.';

/** The tags an org's files may carry: the catalogue's and the org's own. */
export function tagsOfOrg(db: Db, orgId: number) {
  return db.selectFrom('file_tags').selectAll().where((eb) => eb.or([eb('org_id', 'is', null), eb('org_id', '=', orgId)]));
}

/** The tag with this title (without case) the org may use: the catalogue's first, then the org's own. */
export async function findTagByTitle(db: Db, orgId: number, title: string): Promise<FileTagRow | undefined> {
  const rows = await tagsOfOrg(db, orgId)
    .where(sql<boolean>`lower(title) = ${title.trim().toLowerCase()}`)
    .orderBy(sql`case when org_id is null then 0 else 1 end`)
    .orderBy('id')
    .limit(1)
    .execute();
  return rows[0];
}

/**
 * Makes an org's own tag, with an id past the catalogue's (one at a time: the lock
 * keeps two makers apart). A tag of the same title made meanwhile by another process
 * (two first saves of a generated document at once) is answered by `whenMadeMeanwhile`.
 */
async function insertOrgTag(context: EngineContext, orgId: number, title: string, type: string, whenMadeMeanwhile: (tag: FileTagRow) => FileTagRow): Promise<FileTagRow> {
  return context.db.transaction().execute(async (trx) => {
    await context.store.lock(trx, ['file-tags']);
    const madeMeanwhile = await findTagByTitle(trx, orgId, title);
    if (madeMeanwhile) return whenMadeMeanwhile(madeMeanwhile);
    const { max } = await trx.selectFrom('file_tags').select((eb) => eb.fn.max('id').as('max')).executeTakeFirstOrThrow();
    // A replica's tag is made here, offline, before the remote knows it: a provisional id,
    // which never collides with a remote tag pulled later; sync gives it the remote's id
    // when it makes the tag there (main/sync/push-tags.ts).
    const id = Math.max(Number(max ?? 0) + 1, context.role === 'replica' ? PROVISIONAL_ID_FLOOR : ORG_TAG_FIRST_ID);
    const row = await trx.insertInto('file_tags').values({ id, org_id: orgId, title, type, created_date: nowIso(context.clock) }).returningAll().executeTakeFirstOrThrow();
    await advanceIdSequence(trx, 'file_tags');
    return row;
  });
}

/** The tag with this title for the org: the catalogue's, else the org's own, made if it does not exist yet. */
export async function ensureTag(context: EngineContext, orgId: number, title: string): Promise<FileTagRow> {
  return (await findTagByTitle(context.db, orgId, title)) ?? insertOrgTag(context, orgId, title, FILE_TAG_TYPE, (tag) => tag);
}

/**
 * A tag the actor adds to their org (POST /file_tags/). Titles are unique among the
 * catalogue and the org's tags whatever their case. Tags are not tracked records,
 * so no change capture runs.
 */
export async function createFileTag(context: EngineContext, actor: Actor, input: FileTagCreate): Promise<FileTagRow> {
  const title = input.title.trim();
  const exists = () => fieldError('title', 'A file tag with this title already exists.');
  if (await findTagByTitle(context.db, actor.org.id, title)) throw exists();
  return insertOrgTag(context, actor.org.id, title, input.type ?? FILE_TAG_TYPE, () => {
    throw exists();
  });
}

/** One tag by id as `orgId` sees it: a catalogue tag, or one of the org's own; undefined otherwise. */
export async function findTagForOrg(db: Db, orgId: number | null, id: number): Promise<FileTagRow | undefined> {
  const row = await db.selectFrom('file_tags').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  return row.org_id === null || row.org_id === orgId ? row : undefined;
}

/**
 * Tag URLs (`/api/file_tags/<id>/`, or the org-scoped form of older clients) or ids
 * -> tag ids the org may use, or the 400 message. Tagging a file "Projects Export"
 * takes the projects_export permission: without it the file would vanish from its
 * own tagger.
 */
export async function resolveTagReferences(db: Db, actor: Actor, references: readonly unknown[]): Promise<{ ids: number[] } | { error: string }> {
  const ids = new Set<number>();
  for (const reference of references) {
    const id = parseFileTagReference(reference, actor.org.id);
    if (id === null) return { error: INVALID_HYPERLINK };
    ids.add(id);
  }
  const unique = [...ids];
  if (unique.length === 0) return { ids: [] };
  const tags = await tagsOfOrg(db, actor.org.id).where('id', 'in', unique).execute();
  if (tags.length !== unique.length) return { error: INVALID_HYPERLINK };
  if (actor.role.can_export_projects !== 1 && tags.some((tag) => isExportTag(tag.title))) {
    return { error: `Tagging a file "${EXPORT_TAG_TITLE}" needs the projects_export permission.` };
  }
  return { ids: unique };
}

/** Replaces the file's tags. */
export async function setFileTags(trx: Transaction<Database>, fileId: number, tagIds: readonly number[]): Promise<void> {
  await trx.deleteFrom('private_file_tags').where('file_id', '=', fileId).execute();
  if (tagIds.length > 0) {
    await trx
      .insertInto('private_file_tags')
      .values(tagIds.map((tagId) => ({ file_id: fileId, tag_id: tagId })))
      .execute();
  }
}
