// Private files: their metadata (title, show_customer, project, tags) is synced
// like any record; their bytes come on demand (docs/sync.md "Private files") and
// go up by their own upload, as a multipart create or, for new contents, through
// push.ts. The file is the one model with contents and tags that may be made here.
import fs from 'node:fs';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../engine/store/tables.ts';
import { parseFileTagReference, parseOrgReference, parseUserReference } from '../../../shared/api-paths.ts';
import { blobPath } from '../../engine/files/blob-store.ts';
import { setFileTags } from '../../engine/files/file-tags.ts';
import { contentTypeFor } from '../../engine/files/file-types.ts';
import { documentProjectOf } from '../../engine/documents/document-input-ids.ts';
import { MODEL_PATHS, type RecordView, idOf, isProvisional } from '../sync-models.ts';
import type { SyncContext } from '../sync-context.ts';
import type { RemotePrivateFile } from '../remote-records.ts';
import { fileVerdict } from '../record-orgs.ts';
import { orgTagsAbsent } from '../sync-state.ts';
import { upsertFileTags } from '../replica-tags.ts';
import { rememberContentsLink } from '../contents-policy.ts';
import { EPOCH, ensureUser } from '../replica-rows.ts';
import { documentFieldsToSend, fileTagUrl, projectUrl } from '../push-bodies.ts';
import { type SyncModel, valueAsTyped } from './sync-model.ts';
import { fileColumnsOf } from '../../engine/files/file-columns.ts';
import { allButId } from '../upsert-set.ts';

type Trx = Transaction<Database>;

/** The view field naming a file's bytes: contents are fixed at creation, and new ones go up by their own upload. */
const CONTENTS_FIELD = 'file_hash';

export function fileView(json: Record<string, unknown>): RecordView {
  return {
    title: json.title ?? '',
    show_customer: json.show_customer ?? false,
    project: idOf(json.project, 'projects'),
    file_tags: Array.isArray(json.file_tags) ? json.file_tags.map((url) => parseFileTagReference(url)).sort() : [],
    // The hash identifies the contents; it is never pushed as a change of fields.
    file_hash: json.file_hash ?? null,
  };
}

/** A file's tag ids as the remote may be sent them: without tags made here that a remote without org tags cannot hold. */
async function tagsToSend(sync: SyncContext, tagIds: readonly number[]): Promise<number[]> {
  if (!tagIds.some(isProvisional)) return [...tagIds];
  return (await orgTagsAbsent(sync.db)) ? tagIds.filter((id) => !isProvisional(id)) : [...tagIds];
}

/**
 * Whether a file's create must wait: a project it names was made here and has no remote
 * id yet. That is its own project, or, for a saved document, the project it was made
 * from (input_data.project), which differs once the document was moved to another
 * project. The remote keeps input_data as it was created, so the create waits for the
 * re-key to rewrite it (document-input-ids.ts) rather than name an id the remote never
 * had. A project deleted here before it went up never will: then there is nothing to wait for.
 */
export async function fileCreateWaits(sync: SyncContext, fileId: number, view: RecordView): Promise<boolean> {
  return (await projectsFileCreateWaitsFor(sync.db, fileId, view.project as number | null)).length > 0;
}

/**
 * The projects made here that a file's create waits for (fileCreateWaits): `projectId`,
 * the file's own, when it has no remote id yet, and the project a saved document was
 * made from, when it has none yet either and still exists. The activity log names them.
 */
export async function projectsFileCreateWaitsFor(db: Kysely<Database> | Trx, fileId: number, projectId: number | null): Promise<number[]> {
  const waitsFor = projectId !== null && isProvisional(projectId) ? [projectId] : [];
  const file = await db.selectFrom('private_files').select('input_data').where('id', '=', fileId).executeTakeFirst();
  const madeFrom = documentProjectOf(file?.input_data ?? null);
  if (madeFrom === null || !isProvisional(madeFrom) || waitsFor.includes(madeFrom)) return waitsFor;
  const exists = (await db.selectFrom('projects').select('id').where('id', '=', madeFrom).executeTakeFirst()) !== undefined;
  return exists ? [...waitsFor, madeFrom] : waitsFor;
}

/** A remote file's metadata; its bytes come on demand (context.fetchMissingBlob). */
export async function upsertPrivateFile(trx: Trx, orgId: number, file: RemotePrivateFile, keep: RecordView = {}): Promise<void> {
  const userId = parseUserReference(file.user) ?? 0;
  if (userId) await ensureUser(trx, userId);
  await upsertFileTags(trx, orgId, file.file_tags_data ?? []);
  const projectId = 'project' in keep ? (keep.project as number | null) : file.project ? (parseOrgReference(file.project, 'projects')?.id ?? null) : null;
  const projectExists = projectId === null || (await trx.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst());
  const existing = await trx.selectFrom('private_files').select(['file_name', 'mime_type', 'file_hash', 'filesize']).where('id', '=', file.id).executeTakeFirst();
  // New contents made here and still on their way up (an edit in place) stay, with their size.
  const keepContents = 'file_hash' in keep && existing !== undefined;
  const title = String('title' in keep ? keep.title : (file.title ?? ''));
  const row = {
    id: file.id,
    org_id: orgId,
    project_id: projectExists ? projectId : null,
    user_id: userId,
    // The API does not name the file's name or type; the title stands in until the bytes arrive.
    file_name: existing?.file_name ?? title,
    mime_type: existing?.mime_type ?? contentTypeFor(title, new Uint8Array()),
    filesize: keepContents ? existing.filesize : (file.filesize ?? null),
    file_hash: keepContents ? existing.file_hash : (file.file_hash ?? null),
    ...fileColumnsOf({
      title,
      system_uuid: file.system_uuid ?? null,
      input_data: file.input_data ?? null,
      input_data_hash: file.input_data_hash ?? '',
      status: file.status ?? null,
      status_message: file.status_message ?? null,
      show_customer: Boolean('show_customer' in keep ? keep.show_customer : file.show_customer),
      temporary: Boolean(file.temporary),
      upload_id: file.upload_id ?? '',
      parts: file.parts ?? [],
      completed_on: file.completed_on ?? null,
    }),
    created_date: file.created_date ?? EPOCH,
    modified_date: file.modified_date ?? EPOCH,
  };
  await trx.insertInto('private_files').values(row).onConflict((conflict) => conflict.column('id').doUpdateSet(allButId(row))).execute();
  const tagIds = 'file_tags' in keep ? (keep.file_tags as number[]) : (file.file_tags_data ?? []).map((tag) => tag.id);
  await setFileTags(trx, file.id, tagIds);
}

export const privateFileModel = {
  model: 'private_file',
  path: MODEL_PATHS.private_file,
  // compatibility.md: the org's 1,000 file requests a day, reads and writes together.
  quota: {
    list: 'private_file_list',
    detail: 'private_file_detail',
    create: 'private_file_create',
    update: 'private_file_partial_update',
    remove: 'private_file_delete',
    upload: 'private_file_upload',
  },
  view: fileView,
  // The file hash only ever comes down in a PATCH's stead: new contents have their own upload.
  pushableFields: (fields) => fields.filter((field) => field !== CONTENTS_FIELD),
  async updateBody(sync, json, fields) {
    const view = fileView(json);
    const tagUrls = (await tagsToSend(sync, view.file_tags as number[])).map((id) => fileTagUrl(sync, id));
    return Object.fromEntries(
      fields.map((field) => {
        if (field === 'project') return [field, projectUrl(sync, view.project as number | null)];
        if (field === 'file_tags') return [field, tagUrls];
        return [field, view[field]];
      }),
    );
  },
  async createBody(sync, group, json) {
    const view = fileView(json);
    const projectId = view.project as number | null;
    if (await fileCreateWaits(sync, group.recordId, view)) return 'waiting';
    const row = await sync.db
      .selectFrom('private_files')
      .select(['file_name', 'mime_type', 'file_hash'])
      .where('id', '=', group.recordId)
      .executeTakeFirstOrThrow();
    const form = new FormData();
    form.append('title', String(view.title));
    form.append('show_customer', String(view.show_customer));
    if (projectId !== null) form.append('project', projectUrl(sync, projectId)!);
    const tagIds = await tagsToSend(sync, view.file_tags as number[]);
    if (tagIds.length) form.append('file_tags', tagIds.map((id) => fileTagUrl(sync, id)).join(','));
    // A generated document (docs/documents.md) says what it was made from, so the remote's copy does too.
    for (const [field, value] of Object.entries(await documentFieldsToSend(sync, group.recordId))) form.append(field, value);
    // Streams from the blob store: the bytes are never all in memory.
    const blob = await fs.openAsBlob(blobPath(sync.engine.store.fileRoot, row.file_hash!), { type: row.mime_type });
    form.append('file_contents', blob, row.file_name);
    return form;
  },
  async findLostCreate({ view, list }) {
    if (!view?.file_hash) return null;
    const files = await list({ search: String(view.file_hash), limit: 100 });
    return files.find((file) => file.file_hash === view.file_hash && file.title === view.title) ?? null;
  },
  checkValue: valueAsTyped,
  async applyView(trx, id, view) {
    const { project, file_tags: tagIds, show_customer: showCustomer, title } = view as { project?: number | null; file_tags?: number[]; show_customer?: boolean; title?: string };
    const columns = { ...fileColumnsOf({ title, show_customer: showCustomer }), ...(project === undefined ? {} : { project_id: project }) };
    if (Object.keys(columns).length) await trx.updateTable('private_files').set(columns).where('id', '=', id).execute();
    if (tagIds !== undefined) await setFileTags(trx, id, tagIds);
  },
  orgVerdict: (sync, record) => fileVerdict(sync, record as RemotePrivateFile),
  async store({ trx, sync, keep }, record) {
    await upsertPrivateFile(trx, sync.orgId, record as RemotePrivateFile, keep);
    // Files on demand: its signed link, so a fetch within the hour needs no detail GET.
    if (sync.clock) await rememberContentsLink(trx, record.id, (record as RemotePrivateFile).file_contents, sync.clock.now());
  },
  async remove(trx, id) {
    // Its blob, if no other file shares it, is removed at the next start (removeStorageLeftovers).
    await trx.deleteFrom('private_files').where('id', '=', id).execute();
  },
  contents: { field: CONTENTS_FIELD, tagsField: 'file_tags' },
  // A changed file of a project is read with the project's other changed files (one list request).
  projectPart: { field: 'project', feed: 'files' },
} satisfies SyncModel;
