// Writing private files. Every write is one writeTracked() transaction that tracks
// each project it attaches a file to or takes one from, BEFORE changing it, so a
// project's private_files change reaches webhooks like any other project change.
import type { Kysely, Transaction } from 'kysely';
import type { Database, PrivateFileRow } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import { nowIso } from '../clock.ts';
import { notFound, validationError, type FieldErrors } from '../http/errors.ts';
import { type ChangeTracker, writeTracked } from '../changes/tracked-write.ts';
import { type ChangeActor, byUser } from '../changes/change-feed.ts';
import { isVisibleTo } from '../projects/project-access.ts';
import { parseOrgReference } from '../../../shared/api-paths.ts';
import type { PrivateFilePatch } from '../../../shared/schemas/private-file.ts';
import { adoptBlob, releaseBlob, type ReceivedFile } from './blob-store.ts';
import { resolveTagReferences, setFileTags } from './file-tags.ts';
import { type IfMatch, checkPrecondition, nextVersion } from '../http/preconditions.ts';
import { type UploadPart, serializeFile, withTags } from './file-serializer.ts';
import { contentTypeFor } from './file-types.ts';
import { pruneFileVersions, recordVersion, versionHashesOf } from './file-versions.ts';
import type { SnapshotSource } from '../changes/record-snapshots.ts';
import { fileColumnsOf } from './file-columns.ts';

/** What change capture compares: the file's API view. */
export const privateFileSnapshots: SnapshotSource = {
  model: 'private_file',
  async read(trx, context, orgId, id) {
    const row = await trx.selectFrom('private_files').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
    if (!row) return null;
    const [file] = await withTags(trx, [row]);
    // No download link: a snapshot is compared field by field, and a link is no field of the file.
    return serializeFile(context, file!, () => '');
  },
  projectOf: (_id, file) => parseOrgReference(file.project, 'projects')?.id ?? null,
};

const INVALID_HYPERLINK = 'Invalid hyperlink - Object does not exist.';

/** Everything about a new file but its bytes. */
export interface NewFileRecord {
  orgId: number;
  /** The creator. */
  userId: number;
  projectId: number | null;
  title: string;
  fileName: string;
  mimeType: string;
  tagIds?: readonly number[];
  showCustomer?: boolean;
  systemUuid?: string | null;
  inputData?: unknown;
  inputDataHash?: string;
  status?: string | null;
  /** A file the client means to discard soon (a generated document's `temporary`). */
  temporary?: boolean;
  /** For a file assembled from a chunked upload. */
  upload?: { id: string; parts: readonly UploadPart[]; completedOn: string };
}

/** Inside the creating transaction, after the row exists (a chunked upload marks itself completed). */
export type AfterInsert = (trx: Transaction<Database>, fileId: number) => Promise<void>;

/** Adopts the received bytes as a blob and writes the file's row; returns the new file's id. */
export async function storeNewFile(
  context: EngineContext,
  received: ReceivedFile,
  record: NewFileRecord,
  afterInsert?: AfterInsert,
): Promise<number> {
  return adoptBlob(context, received, () =>
    writeTracked(context, { orgId: record.orgId, by: byUser(record.userId) }, async (trx, track) => {
      if (record.projectId !== null) await track.project(record.projectId);
      const id = await insertFileRow(trx, context, received, record);
      await track.privateFile(id, { created: true });
      await afterInsert?.(trx, id);
      return id;
    }),
  );
}

/** One file of a batch (storeNewFiles): its bytes, its record, and what is written with its row. */
export interface NewFile {
  received: ReceivedFile;
  record: NewFileRecord;
  afterInsert?: AfterInsert;
}

/**
 * Several new files in one tracked write (issue 30: files dropped together into a
 * project folder): every blob is adopted, then one transaction writes every row, in
 * order, so the batch commits whole or not at all. Each project is tracked once, not
 * once per file. The records share one org and one creator. Returns the new ids, in
 * the files' order.
 */
export async function storeNewFiles(context: EngineContext, files: readonly NewFile[]): Promise<number[]> {
  if (files.length === 0) return [];
  const { orgId, userId } = files[0]!.record;
  if (files.some(({ record }) => record.orgId !== orgId || record.userId !== userId)) throw new Error('storeNewFiles: a batch is of one org and one creator');
  const write = () =>
    writeTracked(context, { orgId, by: byUser(userId) }, async (trx, track) => {
      for (const projectId of new Set(files.map(({ record }) => record.projectId))) if (projectId !== null) await track.project(projectId);
      const ids: number[] = [];
      for (const file of files) {
        const id = await insertFileRow(trx, context, file.received, file.record);
        await track.privateFile(id, { created: true });
        await file.afterInsert?.(trx, id);
        ids.push(id);
      }
      return ids;
    });
  // Each blob is adopted once (the same bytes twice in a batch share it); the backend
  // takes their locks in the order of their hashes, so two batches never wait on each other's.
  return context.blobs.adoptAll(files.map(({ received }) => received), write);
}

/** The row and its tags, in the caller's transaction; the blob must already be adopted. */
export async function insertFileRow(trx: Transaction<Database>, context: EngineContext, received: ReceivedFile, record: NewFileRecord): Promise<number> {
  const now = nowIso(context.clock);
  const { id } = await trx
    .insertInto('private_files')
    .values({
      org_id: record.orgId,
      project_id: record.projectId,
      user_id: record.userId,
      file_name: record.fileName,
      mime_type: record.mimeType,
      filesize: received.size,
      file_hash: received.sha256,
      ...fileColumnsOf({
        title: record.title,
        system_uuid: record.systemUuid ?? null,
        input_data: record.inputData ?? null,
        input_data_hash: record.inputDataHash ?? '',
        status: record.status === undefined ? 'created' : record.status,
        status_message: null,
        show_customer: record.showCustomer ?? false,
        temporary: record.temporary ?? false,
        upload_id: record.upload?.id ?? '',
        parts: record.upload?.parts ?? [],
        completed_on: record.upload?.completedOn ?? now,
      }),
      created_date: now,
      modified_date: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await setFileTags(trx, id, record.tagIds ?? []);
  return id;
}

/** Tracks every project a write touches (where a file was, and where it goes), before the write. */
async function trackProjects(track: ChangeTracker, ...projectIds: Array<number | null | undefined>): Promise<void> {
  for (const id of new Set(projectIds)) if (typeof id === 'number') await track.project(id);
}

/** Re-read inside the write, so a concurrent move is seen. */
function currentFile(trx: Transaction<Database>, id: number): Promise<PrivateFileRow> {
  return trx.selectFrom('private_files').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/**
 * A project reference (URL, relative path or id) -> a project of the actor's org
 * that the actor can see, or null to detach; anything else is the 400 message.
 */
export async function resolveProjectReference(
  db: Kysely<Database>,
  actor: Actor,
  reference: unknown,
): Promise<{ id: number | null } | { error: string }> {
  if (reference === null || reference === '') return { id: null };
  const parsed = parseOrgReference(reference, 'projects');
  if (!parsed || (parsed.orgId !== null && parsed.orgId !== actor.org.id)) return { error: INVALID_HYPERLINK };
  const project = await db.selectFrom('projects').selectAll().where('id', '=', parsed.id).where('org_id', '=', actor.org.id).executeTakeFirst();
  // A project the actor cannot see is, for them, one that does not exist.
  if (!project || !isVisibleTo(actor, project)) return { error: INVALID_HYPERLINK };
  return { id: project.id };
}

interface ResolvedPatch {
  projectId: number | null | undefined;
  tagIds: number[] | undefined;
}

async function resolvePatch(db: Kysely<Database>, actor: Actor, patch: PrivateFilePatch): Promise<ResolvedPatch> {
  const errors: FieldErrors = {};
  let projectId: number | null | undefined;
  if (patch.project !== undefined) {
    const resolved = await resolveProjectReference(db, actor, patch.project);
    if ('error' in resolved) errors.project = [resolved.error];
    else projectId = resolved.id;
  }
  let tagIds: number[] | undefined;
  if (patch.file_tags !== undefined) {
    const resolved = await resolveTagReferences(db, actor, patch.file_tags);
    if ('error' in resolved) errors.file_tags = [resolved.error];
    else tagIds = resolved.ids;
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return { projectId, tagIds };
}

/** PATCH: title, show_customer, project (attach, move, detach) and file_tags; `ifMatch`: the client's precondition. */
export async function updateFile(context: EngineContext, actor: Actor, file: PrivateFileRow, patch: PrivateFilePatch, ifMatch: IfMatch | null = null): Promise<void> {
  const { projectId, tagIds } = await resolvePatch(context.db, actor, patch);
  await writeTracked(context, { orgId: file.org_id, by: byUser(actor.user.id) }, async (trx, track) => {
    const version = await checkPrecondition(trx, 'private_files', file.id, ifMatch);
    const current = await currentFile(trx, file.id);
    // A title or tag change shows in the project's private_files_data, so its project is tracked too.
    await trackProjects(track, current.project_id, projectId);
    await track.privateFile(file.id);
    await trx
      .updateTable('private_files')
      .set({
        ...fileColumnsOf({ title: patch.title, show_customer: patch.show_customer }),
        ...(projectId === undefined ? {} : { project_id: projectId }),
        modified_date: nextVersion(context.clock, version),
      })
      .where('id', '=', file.id)
      .execute();
    if (tagIds !== undefined) await setFileTags(trx, file.id, tagIds);
  });
}

/** Deletes the file; its blob goes too when no other file has the same contents. */
export async function deleteFile(context: EngineContext, file: PrivateFileRow, by: ChangeActor): Promise<void> {
  const versionHashes = await writeTracked(context, { orgId: file.org_id, by }, async (trx, track) => {
    const current = await currentFile(trx, file.id);
    await trackProjects(track, current.project_id);
    await track.privateFile(file.id);
    // The file's versions go with it (the foreign key cascades), and so may their blobs.
    const hashes = await versionHashesOf(trx, file.id);
    await trx.deleteFrom('private_files').where('id', '=', file.id).execute();
    return hashes;
  });
  for (const hash of new Set([file.file_hash, ...versionHashes])) await releaseBlob(context, hash);
}

/**
 * New bytes for a system image re-rendered from a changed design; the old blob is
 * released. No version is kept: the image is drawn again from the design at will.
 */
export async function storeRerenderedContents(
  context: EngineContext,
  file: PrivateFileRow,
  received: ReceivedFile,
  changes: { inputData: unknown; inputDataHash: string },
  by: ChangeActor,
): Promise<void> {
  await adoptBlob(context, received, () =>
    writeTracked(context, { orgId: file.org_id, by }, async (trx, track) => {
      const current = await currentFile(trx, file.id);
      await trackProjects(track, current.project_id);
      await trx
        .updateTable('private_files')
        .set({
          file_hash: received.sha256,
          filesize: received.size,
          ...fileColumnsOf({ input_data: changes.inputData, input_data_hash: changes.inputDataHash }),
          modified_date: nowIso(context.clock),
        })
        .where('id', '=', file.id)
        .execute();
    }),
  );
  if (file.file_hash !== received.sha256) await releaseBlob(context, file.file_hash);
}

/** New contents for one private file, which keeps its id (an edit in place, a restored version). */
export interface ContentsReplacement {
  orgId: number;
  fileId: number;
  /** The new bytes, not yet adopted; they are adopted (or discarded) here. */
  received: ReceivedFile;
  by: ChangeActor;
  /** The contents' own name, when it changes with them (Content-Disposition and the type follow it). */
  fileName?: string;
  /** Else from the name, then the first bytes (file-types.ts). */
  contentType?: string;
  /** The client's precondition (If-Match), checked inside the write. */
  ifMatch?: IfMatch | null;
}

/**
 * Replaces a private file's contents (issue 14; the contents extension of
 * docs/files.md): the same id gets the new blob, size, hash, content type and a new
 * modified_date, in one writeTracked() write, so the feed, webhooks and the sync
 * outbox see a private_file update. The contents it replaces are kept as a version
 * (file-versions.ts) in the same transaction, and versions retention no longer
 * keeps are pruned there too; their blobs are released after the commit, each only
 * if no file or version names it any more. Touches one file and its versions only:
 * no project snapshot, whatever the size of the project. Returns the file's id.
 */
export async function replaceFileContents(context: EngineContext, change: ContentsReplacement): Promise<number> {
  const { orgId, fileId, received, by } = change;
  const released = await adoptBlob(context, received, () =>
    writeTracked(context, { orgId, by }, async (trx, track) => {
      const current = await trx.selectFrom('private_files').selectAll().where('id', '=', fileId).where('org_id', '=', orgId).executeTakeFirst();
      if (!current) throw notFound();
      const version = await checkPrecondition(trx, 'private_files', fileId, change.ifMatch ?? null);
      const fileName = change.fileName ?? current.file_name;
      const mimeType = change.contentType ?? contentTypeFor(fileName, received.head);
      const sameContents = current.file_hash === received.sha256;
      // The same bytes again (a save without changes) make no version and no change.
      if (sameContents && fileName === current.file_name && mimeType === current.mime_type) return [];
      await track.privateFile(fileId);
      const replacedAt = nextVersion(context.clock, version);
      if (!sameContents) await recordVersion(trx, current, replacedAt, by.kind === 'user' ? by.userId : null);
      await trx
        .updateTable('private_files')
        .set({ file_hash: received.sha256, filesize: received.size, file_name: fileName, mime_type: mimeType, modified_date: replacedAt })
        .where('id', '=', fileId)
        .execute();
      const pruned = await pruneFileVersions(trx, context.clock, fileId);
      return sameContents ? pruned : [...pruned, current.file_hash];
    }),
  );
  // Each is removed only if nothing names it: the replaced contents are usually a version now.
  for (const hash of new Set(released)) if (hash !== received.sha256) await releaseBlob(context, hash);
  return fileId;
}
