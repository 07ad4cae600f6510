// A private file row and its tags -> the JSON of service.md 2.2. Tags are loaded
// once per page of files, never per file.
import type { Kysely } from 'kysely';
import type { Database, FileTagRow, PrivateFileRow } from '../store/tables.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { FileTagJson, PrivateFileJson } from '../../../shared/schemas/private-file.ts';
import { signedDownloadUrl } from './download-links.ts';

export interface FileWithTags {
  readonly row: PrivateFileRow;
  readonly tags: readonly FileTagRow[];
}

export interface UploadPart {
  part: number;
  size: number;
  etag: string;
}

/** Makes the `file_contents` link of a file: signed for the user the JSON is for. */
export type DownloadUrlFor = (row: PrivateFileRow) => string;

export const downloadUrlsFor =
  (context: EngineContext, actor: Actor): DownloadUrlFor =>
  (row) =>
    signedDownloadUrl(context, row.id, actor.user.id);

export async function loadFileTags(db: Kysely<Database>, fileIds: readonly number[]): Promise<Map<number, FileTagRow[]>> {
  const byFile = new Map<number, FileTagRow[]>();
  if (fileIds.length === 0) return byFile;
  const rows = await db
    .selectFrom('private_file_tags')
    .innerJoin('file_tags', 'file_tags.id', 'private_file_tags.tag_id')
    .selectAll('file_tags')
    .select('private_file_tags.file_id')
    .where('private_file_tags.file_id', 'in', [...new Set(fileIds)])
    .orderBy('file_tags.title')
    .execute();
  for (const { file_id: fileId, ...tag } of rows) {
    const tags = byFile.get(fileId) ?? [];
    tags.push(tag);
    byFile.set(fileId, tags);
  }
  return byFile;
}

export async function withTags(db: Kysely<Database>, rows: readonly PrivateFileRow[]): Promise<FileWithTags[]> {
  const tags = await loadFileTags(db, rows.map((row) => row.id));
  return rows.map((row) => ({ row, tags: tags.get(row.id) ?? [] }));
}

export function serializeFileTag(context: EngineContext, tag: FileTagRow): FileTagJson {
  return { url: absoluteUrl(context, apiPaths.fileTag(tag.id)), title: tag.title, type: tag.type, id: tag.id };
}

/** The template a generated document was made with (issue 29): its input_data names it; null for every other file. */
function documentTemplateOf(context: EngineContext, row: PrivateFileRow): string | null {
  if (row.input_data === null || !row.input_data.includes('"document_template"')) return null;
  const id = (parseJsonColumn(row.input_data) as { document_template?: unknown } | null)?.document_template;
  return typeof id === 'number' ? absoluteUrl(context, apiPaths.documentTemplate(row.org_id, id)) : null;
}

export function parseJsonColumn(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

/** The JSON of one file, with its tags and a download link signed for the actor. */
export async function fileJson(context: EngineContext, actor: Actor, id: number): Promise<PrivateFileJson> {
  const row = await context.db.selectFrom('private_files').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const [file] = await withTags(context.db, [row]);
  return serializeFile(context, file!, downloadUrlsFor(context, actor));
}

export function serializeFile(context: EngineContext, file: FileWithTags, downloadUrl: DownloadUrlFor): PrivateFileJson {
  const { row } = file;
  const tags = file.tags.map((tag) => serializeFileTag(context, tag));
  return {
    url: absoluteUrl(context, apiPaths.privateFile(row.org_id, row.id)),
    id: row.id,
    org: absoluteUrl(context, apiPaths.org(row.org_id)),
    project: row.project_id === null ? null : absoluteUrl(context, apiPaths.project(row.org_id, row.project_id)),
    user: absoluteUrl(context, apiPaths.globalUser(row.user_id)),
    document_template: documentTemplateOf(context, row),
    title: row.title,
    file_contents: downloadUrl(row),
    filesize: row.filesize,
    file_tags: tags.map((tag) => tag.url),
    file_tags_data: tags,
    system_uuid: row.system_uuid,
    input_data: parseJsonColumn(row.input_data),
    input_data_hash: row.input_data_hash,
    file_hash: row.file_hash,
    status: row.status,
    status_message: row.status_message,
    show_customer: row.show_customer === 1,
    temporary: row.temporary === 1,
    upload_id: row.upload_id,
    parts: parseJsonColumn(row.parts) as UploadPart[],
    completed_on: row.completed_on ?? row.created_date,
    created_date: row.created_date,
    modified_date: row.modified_date,
  };
}
