// Chunked, resumable uploads (issue 3): a session, its numbered parts on disk
// under DATA/uploads/<upload_id>/, and completion, which assembles the parts in
// order into one private file. Sending a part again replaces it, so a client that
// lost a connection simply re-sends. Sessions expire (a sweep removes them and
// their parts); a completed session answers a repeated complete with the same file.
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { absoluteUrl, type EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import type { Kysely } from 'kysely';
import type { Database, FileUploadRow } from '../store/tables.ts';
import { nowIso } from '../clock.ts';
import { ApiError, fieldError, type FieldErrors, forbidden, nonFieldError, notFound, validationError } from '../http/errors.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { UploadCreate, UploadJson } from '../../../shared/schemas/private-file.ts';
import { discardTempFile, FileTooLargeError, receiveToTempFile, type ReceivedFile } from './blob-store.ts';
import { resolveProjectReference, storeNewFile } from './file-service.ts';
import type { UploadPart } from './file-serializer.ts';
import { cleanFileName, contentTypeFor } from './file-types.ts';
import { documentFieldsJson, documentFieldsOf, documentFieldsStored, storedDocumentFields } from './document-fields.ts';
import { KeyedLock } from './keyed-lock.ts';
import { tooLarge } from './multipart-receive.ts';

export const MAX_PART_NUMBER = 10_000;


/** Parts of one upload are written, completed and swept one at a time. */
const uploadLock = new KeyedLock();

export async function createUpload(context: EngineContext, actor: Actor, input: UploadCreate): Promise<FileUploadRow> {
  if (input.size != null && input.size > context.files.maxUploadBytes) throw tooLarge(context.files.maxUploadBytes);
  const errors: FieldErrors = {};
  let projectId: number | null = null;
  if (input.project != null) {
    const resolved = await resolveProjectReference(context.db, actor, input.project);
    if ('error' in resolved) errors.project = [resolved.error];
    else projectId = resolved.id;
  }
  // A generated document going up in parts keeps its fields, as one sent whole does.
  const documentFields = documentFieldsOf(input, errors);
  if (Object.keys(errors).length > 0) throw validationError(errors);
  const fileName = cleanFileName(input.filename, 'file');
  const now = context.clock.now();
  return context.db
    .insertInto('file_uploads')
    .values({
      id: randomBytes(16).toString('hex'),
      org_id: actor.org.id,
      user_id: actor.user.id,
      project_id: projectId,
      title: input.title?.trim() || fileName,
      file_name: fileName,
      declared_size: input.size ?? null,
      completed_file_id: null,
      created_date: now.toISOString(),
      expires_at: new Date(now.getTime() + context.files.uploadExpiryMs).toISOString(),
      ...storedDocumentFields(documentFields),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The actor's own, unexpired upload: 404 when there is none in this org (or it expired), 403 when it is someone else's. */
export async function getOwnUpload(context: EngineContext, actor: Actor, uploadId: string): Promise<FileUploadRow> {
  const upload = await context.db
    .selectFrom('file_uploads')
    .selectAll()
    .where('id', '=', uploadId)
    .where('org_id', '=', actor.org.id)
    .executeTakeFirst();
  if (!upload || upload.expires_at <= nowIso(context.clock)) throw notFound('No such upload, or it has expired. Start a new upload.');
  if (upload.user_id !== actor.user.id) throw forbidden('This upload belongs to another user.');
  return upload;
}

/** `db` is the store or a transaction. */
async function loadParts(db: Kysely<Database>, uploadId: string): Promise<UploadPart[]> {
  const rows = await db
    .selectFrom('file_upload_parts')
    .select(['part_number', 'size', 'etag'])
    .where('upload_id', '=', uploadId)
    .orderBy('part_number')
    .execute();
  return rows.map((row) => ({ part: row.part_number, size: row.size, etag: row.etag }));
}

export async function uploadJson(context: EngineContext, upload: FileUploadRow): Promise<UploadJson> {
  const parts = await loadParts(context.db, upload.id);
  return {
    upload_id: upload.id,
    url: absoluteUrl(context, apiPaths.fileUpload(upload.org_id, upload.id)),
    title: upload.title,
    filename: upload.file_name,
    project: upload.project_id === null ? null : absoluteUrl(context, apiPaths.project(upload.org_id, upload.project_id)),
    size: upload.declared_size,
    parts,
    received_bytes: parts.reduce((total, part) => total + part.size, 0),
    status: upload.completed_file_id === null ? 'open' : 'completed',
    private_file: upload.completed_file_id === null ? null : absoluteUrl(context, apiPaths.privateFile(upload.org_id, upload.completed_file_id)),
    created_date: upload.created_date,
    expires_at: upload.expires_at,
    document_fields: documentFieldsJson(upload),
  };
}

/** Serialises a part's recording with the upload's completion, across processes too. */
const uploadLockKey = (uploadId: string) => `file-upload:${uploadId}`;

/** The upload was completed by another request while this one assembled it. */
class CompletedElsewhere extends Error {}

/** 409, closing the connection so an unread part body is not drained. */
export const alreadyCompleted = () =>
  new ApiError(409, { detail: 'This upload is already complete; its parts can no longer change.' }, { connection: 'close' });

/**
 * Streams one part to disk and records it, replacing any earlier copy of the same
 * part. The limit is what the other parts leave of the maximum upload size.
 */
export async function receivePart(context: EngineContext, upload: FileUploadRow, part: number, body: Readable): Promise<UploadPart> {
  const { fileRoot } = context.store;
  const maxBytes = context.files.maxUploadBytes;
  const others = (await loadParts(context.db, upload.id)).filter((existing) => existing.part !== part);
  const room = maxBytes - others.reduce((total, existing) => total + existing.size, 0);
  let received: ReceivedFile;
  try {
    received = await receiveToTempFile(fileRoot, body, room, 'part');
  } catch (error) {
    if (error instanceof FileTooLargeError) throw tooLarge(maxBytes);
    throw error;
  }
  const stored = { part, size: received.size, etag: received.sha256 };
  try {
    await uploadLock.run(upload.id, async () => {
      // Kept before it is recorded: a part in the store (several machines) is a long write, not to be made holding the upload's lock.
      await context.blobs.putPart(upload.id, part, received);
      await context.db.transaction().execute(async (trx) => {
      // Another process may be completing this upload (parts can arrive anywhere behind a load balancer).
      await context.store.lock(trx, [uploadLockKey(upload.id)]);
      const current = await trx.selectFrom('file_uploads').select('completed_file_id').where('id', '=', upload.id).executeTakeFirst();
      if (!current) throw notFound('No such upload, or it has expired. Start a new upload.');
      if (current.completed_file_id !== null) throw alreadyCompleted();
      await trx
        .insertInto('file_upload_parts')
        .values({ upload_id: upload.id, part_number: part, size: stored.size, etag: stored.etag, created_date: nowIso(context.clock) })
        .onConflict((conflict) => conflict.columns(['upload_id', 'part_number']).doUpdateSet({ size: stored.size, etag: stored.etag, created_date: nowIso(context.clock) }))
        .execute();
      });
    });
  } finally {
    await discardTempFile(received.tempPath);
  }
  return stored;
}

/** The parts must be 1..N with none missing; their total must match a declared size. */
function checkPartsComplete(upload: FileUploadRow, parts: readonly UploadPart[], maxBytes: number): void {
  if (parts.length === 0) throw nonFieldError('No parts have been uploaded yet.');
  const missing = parts.findIndex((part, index) => part.part !== index + 1);
  if (missing !== -1) throw nonFieldError(`Part ${missing + 1} is missing: parts must be numbered 1, 2, 3... with none left out.`);
  const total = parts.reduce((sum, part) => sum + part.size, 0);
  if (total > maxBytes) throw tooLarge(maxBytes);
  if (upload.declared_size !== null && total !== upload.declared_size) {
    throw nonFieldError(`The parts add up to ${total} bytes, but the upload was started with size ${upload.declared_size}.`);
  }
}

/**
 * Assembles the parts, in order, into a new private file carrying the upload's
 * id, parts and completion time. Idempotent: completing a completed upload
 * answers with the file it made.
 */
export async function completeUpload(context: EngineContext, actor: Actor, upload: FileUploadRow): Promise<{ fileId: number; created: boolean }> {
  const { fileRoot } = context.store;
  const completedFile = async () => {
    const current = await context.db.selectFrom('file_uploads').selectAll().where('id', '=', upload.id).executeTakeFirstOrThrow();
    return current.completed_file_id === null ? null : { fileId: current.completed_file_id, created: false };
  };
  const result = await uploadLock.run(upload.id, async () => {
    const done = await completedFile();
    if (done) return done;
    const current = await context.db.selectFrom('file_uploads').selectAll().where('id', '=', upload.id).executeTakeFirstOrThrow();
    const parts = await loadParts(context.db, upload.id);
    checkPartsComplete(current, parts, context.files.maxUploadBytes);
    // The project may have moved out of the actor's sight since the upload started.
    if (current.project_id !== null) {
      const resolved = await resolveProjectReference(context.db, actor, current.project_id);
      if ('error' in resolved) throw fieldError('project', resolved.error);
    }
    const sources = context.blobs.partSources(upload.id, parts);
    // Assembled in the store too while it is hashed: a large file is then copied to its blob key, not sent again.
    const copy = context.blobs.startIncoming(parts.reduce((total, part) => total + part.size, 0));
    const received = await receiveToTempFile(fileRoot, sources, context.files.maxUploadBytes, 'assemble', copy);
    try {
      const completedOn = nowIso(context.clock);
      const fileId = await storeNewFile(
        context,
        received,
        {
          ...documentFieldsStored(current),
          orgId: current.org_id,
          userId: current.user_id,
          projectId: current.project_id,
          title: current.title,
          fileName: current.file_name,
          mimeType: contentTypeFor(current.file_name, received.head),
          upload: { id: current.id, parts, completedOn },
        },
        async (trx, id) => {
          // A retried completion may have reached another process, and a part may have
          // been replaced there while this one assembled: whichever commits first wins,
          // and this one rolls back rather than make a second file or record stale parts.
          await context.store.lock(trx, [uploadLockKey(current.id)]);
          const marked = await trx.updateTable('file_uploads').set({ completed_file_id: id }).where('id', '=', current.id).where('completed_file_id', 'is', null).executeTakeFirst();
          if (Number(marked.numUpdatedRows) === 0) throw new CompletedElsewhere();
          if (JSON.stringify(await loadParts(trx, current.id)) !== JSON.stringify(parts)) {
            throw nonFieldError('A part was sent again while the upload was being completed. Complete it again to use the new part.');
          }
        },
      );
      return { fileId, created: true };
    } catch (error) {
      if (error instanceof CompletedElsewhere) return (await completedFile())!;
      throw error;
    } finally {
      await discardTempFile(received.tempPath);
      // Adopted, the store's copy has been copied to its blob key; otherwise it is not wanted.
      await copy?.discard();
    }
  });
  // The file holds the bytes now; its parts are no longer needed.
  if (result.created) await context.blobs.removeParts(upload.id);
  return result;
}

/**
 * Cancels an open upload: its parts and its row go now, so nothing of a cancelled
 * upload stays on disk until expiry and it can never be completed. A completed
 * upload cannot be cancelled (409): its file exists, and is deleted like any file.
 */
export async function cancelUpload(context: EngineContext, upload: FileUploadRow): Promise<void> {
  await uploadLock.run(upload.id, () =>
    context.db.transaction().execute(async (trx) => {
      // A completion running in another process commits first or sees no row.
      await context.store.lock(trx, [uploadLockKey(upload.id)]);
      const current = await trx.selectFrom('file_uploads').select('completed_file_id').where('id', '=', upload.id).executeTakeFirst();
      if (!current) throw notFound('No such upload, or it has expired. Start a new upload.');
      if (current.completed_file_id !== null) {
        throw new ApiError(409, { detail: 'This upload is already complete: its file exists. Delete the file instead.' });
      }
      await trx.deleteFrom('file_upload_parts').where('upload_id', '=', upload.id).execute();
      await trx.deleteFrom('file_uploads').where('id', '=', upload.id).execute();
    }),
  );
  await context.blobs.removeParts(upload.id);
}

/**
 * Removes expired uploads and their parts, part folders no open upload names, and
 * part files no part row names (a crash between writing a part and recording it,
 * or between completing an upload and removing its parts). Runs at engine start
 * and periodically after.
 */
export async function sweepExpiredUploads(context: EngineContext): Promise<number> {
  const expired = await context.db.selectFrom('file_uploads').select('id').where('expires_at', '<=', nowIso(context.clock)).execute();
  for (const { id } of expired) {
    await uploadLock.run(id, async () => {
      await context.db.deleteFrom('file_upload_parts').where('upload_id', '=', id).execute();
      await context.db.deleteFrom('file_uploads').where('id', '=', id).execute();
      await context.blobs.removeParts(id);
    });
  }
  await context.blobs.sweepParts({
    async openUploads(ids) {
      const rows = await context.db.selectFrom('file_uploads').select('id').where('id', 'in', ids).where('completed_file_id', 'is', null).execute();
      return new Set(rows.map((row) => row.id));
    },
    recordedParts: (uploadId) => loadParts(context.db, uploadId),
    underLock: (uploadId, work) => uploadLock.run(uploadId, work),
  });
  return expired.length;
}

/** Sweeps every interval; returns what stops it (engine close), waiting for a sweep under way. */
export function startUploadSweeper(context: EngineContext, onError: (error: unknown) => void): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => sweepExpiredUploads(context).then(() => undefined, onError));
  }, context.files.uploadSweepIntervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
