// File tags: an org's labels for its private files ("Photo", "Bill", "Export"...).
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, FileTagRow } from '../store/tables.ts';
import type { Actor } from '../auth/actor.ts';
import type { EngineContext } from '../context.ts';
import { fieldError } from '../http/errors.ts';
import type { z } from 'zod';
import type { fileTagCreateSchema } from '../../../shared/schemas/private-file.ts';
import { nowIso, type Clock } from '../clock.ts';
import { parseOrgReferenceIds } from '../../../shared/api-paths.ts';
import { EXPORT_TAG_TITLE, isExportTag } from '../../../shared/file-tags.ts';

type FileTagCreate = z.output<typeof fileTagCreateSchema>;

const INVALID_HYPERLINK = 'Invalid hyperlink - Object does not exist.';

export function findTagByTitle(db: Kysely<Database>, orgId: number, title: string): Promise<FileTagRow | undefined> {
  return db
    .selectFrom('file_tags')
    .selectAll()
    .where('org_id', '=', orgId)
    .where(sql<boolean>`lower(title) = ${title.toLowerCase()}`)
    .executeTakeFirst();
}

function insertTag(db: Kysely<Database>, clock: Clock, orgId: number, title: string, type: string): Promise<FileTagRow> {
  return db.insertInto('file_tags').values({ org_id: orgId, title, type, created_date: nowIso(clock) }).returningAll().executeTakeFirstOrThrow();
}

/** The org's tag with this title, made if it does not exist yet. */
export async function ensureTag(db: Kysely<Database>, clock: Clock, orgId: number, title: string): Promise<FileTagRow> {
  return (await findTagByTitle(db, orgId, title)) ?? insertTag(db, clock, orgId, title, 'private');
}

/**
 * A tag the actor adds to their org (POST /file_tags/). Titles are unique in an
 * org whatever their case. Tags are not tracked records, so no change capture runs.
 */
export async function createFileTag(context: EngineContext, actor: Actor, input: FileTagCreate): Promise<FileTagRow> {
  const title = input.title.trim();
  if (await findTagByTitle(context.db, actor.org.id, title)) throw fieldError('title', 'A file tag with this title already exists.');
  return insertTag(context.db, context.clock, actor.org.id, title, input.type ?? 'private');
}

/**
 * Tag URLs or ids -> tag ids of this org, or the 400 message. Tagging a file
 * "Export" takes the projects_export permission: without it the file would
 * vanish from its own tagger.
 */
export async function resolveTagReferences(
  db: Kysely<Database>,
  actor: Actor,
  references: readonly unknown[],
): Promise<{ ids: number[] } | { error: string }> {
  const unique = parseOrgReferenceIds(references, 'file_tags', actor.org.id);
  if (!unique) return { error: INVALID_HYPERLINK };
  if (unique.length === 0) return { ids: [] };
  const tags = await db.selectFrom('file_tags').selectAll().where('org_id', '=', actor.org.id).where('id', 'in', unique).execute();
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
