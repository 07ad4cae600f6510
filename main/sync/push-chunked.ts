// A big private file's create through the remote's chunked upload, resumable
// after a crash from the parts acknowledged (sync_uploads).
import fsp from 'node:fs/promises';
import type { OutboxRow } from './sync-tables.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { type OutboxGroup, markPending } from './outbox.ts';
import { fileCreateWaits, privateFileModel } from './models/private-file.ts';
import { blobPath } from '../engine/files/blob-store.ts';
import { DEFAULT_UPLOAD_SETTINGS, type SyncContext, remotePath, remoteUrl } from './sync-context.ts';
import { parseRemote } from './remote-records.ts';
import { type LocalRecord, readWriteAnswer, retryUnreadableAnswer, send, timeoutForBytes } from './push-requests.ts';
import { finishCreate } from './push-answers.ts';
import { finishFolderCreate, settleFolderCopy } from './push-folder-copies.ts';
import { findLostCreate } from './push-lost-creates.ts';
import { documentFieldsToSend } from './push-bodies.ts';
import { RemoteUnreachableError } from './remote-errors.ts';

/**
 * Under an upload cap no single request, and no part, takes longer than this at the
 * cap (issue 32). A request cut off is sent again whole (a single-request upload, or
 * the part in flight), and the remote cannot say how much of it arrived: on a phone's
 * link that drops every 10 s, parts of 3 s lose about 1.5 s of sending per cut on
 * average (some 15 %), where the uncapped 8 MiB parts would never get through.
 */
export const UPLOAD_SECONDS_AT_CAP = 3;
/** Parts no smaller than this, however low the cap: each part is a request against the org's daily file quota. */
export const MIN_CAPPED_PART_BYTES = 64 * 1024;
/**
 * A part cut off in flight is sent again at once, up to this many times in a row with
 * no part getting through between (issue 32): on a link that drops every 10 s, waiting
 * out the sync cycle's offline back-off after each cut left a 64 KB/s link at a third
 * of its speed. A part sent again replaces itself; a link that carries nothing still
 * ends the cycle as offline after these tries.
 */
export const PART_TRIES_WITHOUT_PROGRESS = 3;

/** The chunk threshold and part size now: the configured ones, bounded to UPLOAD_SECONDS_AT_CAP of the upload cap while one holds. */
export function uploadSizesNow(sync: Pick<SyncContext, 'uploads' | 'remote'>): { chunkAboveBytes: number; partBytes: number } {
  const settings = sync.uploads ?? DEFAULT_UPLOAD_SETTINGS;
  const cap = sync.remote.bandwidth?.capBytesPerSecond('upload') ?? null;
  if (cap === null) return settings;
  const bound = Math.max(MIN_CAPPED_PART_BYTES, Math.floor(cap * UPLOAD_SECONDS_AT_CAP));
  return { chunkAboveBytes: Math.min(settings.chunkAboveBytes, bound), partBytes: Math.min(settings.partBytes, bound) };
}

/** A private file above the chunk size goes up in parts, and so does one whose parted upload already began. */
export async function goesUpInParts(sync: SyncContext, fileId: number, opId: string): Promise<boolean> {
  if (await sync.db.selectFrom('sync_uploads').select('op_id').where('op_id', '=', opId).executeTakeFirst()) return true;
  const row = await sync.db.selectFrom('private_files').select('filesize').where('id', '=', fileId).executeTakeFirst();
  return (row?.filesize ?? 0) > uploadSizesNow(sync).chunkAboveBytes;
}

/**
 * A big private file goes up through the remote's chunked upload: start a session,
 * send parts 1..N from the blob, complete. The session id and the parts the remote
 * acknowledged are kept in sync_uploads, so after a crash or a cut connection the
 * upload resumes at the next part; a part sent again just replaces itself, and
 * completing again answers with the same file. Returns how many requests it made.
 */
export async function pushChunkedCreate(
  sync: SyncContext,
  group: OutboxGroup,
  json: LocalRecord,
  createRow: OutboxRow,
  wasSent: boolean,
  isStopped: () => boolean,
  fromFolder: boolean,
  replaces: number | null = null,
): Promise<number> {
  const settings = sync.uploads ?? DEFAULT_UPLOAD_SETTINGS;
  const view = privateFileModel.view(json);
  const projectId = view.project as number | null;
  if (await fileCreateWaits(sync, group.recordId, view)) return 0; // a project it names has not reached the remote yet
  const file = await sync.db.selectFrom('private_files').select(['file_name', 'file_hash', 'filesize']).where('id', '=', group.recordId).executeTakeFirstOrThrow();
  const total = file.filesize ?? 0;
  const progress = (sent: number | null) => settings.onProgress?.(group.recordId, sent === null ? null : { sent, total });
  const carry = ['show_customer', 'file_tags'];
  let upload = await sync.db.selectFrom('sync_uploads').selectAll().where('op_id', '=', createRow.op_id).executeTakeFirst();
  let requests = 0;
  if (!upload) {
    if (wasSent) {
      // Sent before with no session recorded: a multipart create or a finished upload whose answer was lost.
      const found = await findLostCreate(sync, group, createRow);
      requests++;
      if (found) return requests + (fromFolder ? await finishFolderCreate(sync, group, found, carry) : (await finishCreate(sync, group, found, carry, false, replaces), 0));
    }
    const started = await send(sync, group, {
      method: 'POST',
      path: apiPaths.fileUploads(sync.orgId),
      json: {
        title: String(view.title),
        filename: file.file_name,
        size: total,
        ...(projectId === null ? {} : { project: remoteUrl(sync, remotePath(sync, 'project', projectId)) }),
        // A document going up in parts keeps what it was made from, as one sent whole does.
        ...(await documentFieldsToSend(sync, group.recordId)),
      },
      action: privateFileModel.quota.upload,
    });
    requests++;
    if (started.kind !== 'ok') return requests;
    const session = parseRemote('upload', started.body);
    if (!session.ok) {
      await retryUnreadableAnswer(sync, group, session.reason);
      return requests;
    }
    // The part size is kept with the session: a cap changed later does not renumber the parts sent.
    upload = { op_id: createRow.op_id, upload_id: session.record.upload_id, part_bytes: uploadSizesNow(sync).partBytes, parts_done: 0, created_date: sync.clock.now().toISOString() };
    await sync.db.insertInto('sync_uploads').values(upload).execute();
  }
  const uploadId = upload.upload_id;
  const parts = Math.max(1, Math.ceil(total / upload.part_bytes));
  const expired = async () => {
    // The remote forgot the session (it expired): start again; a finished one is looked for first.
    await sync.db.deleteFrom('sync_uploads').where('op_id', '=', createRow.op_id).execute();
    await markPending(sync.db, group.rows);
    progress(null);
    return requests;
  };
  progress(Math.min(upload.parts_done * upload.part_bytes, total));
  const blob = await fsp.open(blobPath(sync.engine.store.fileRoot, file.file_hash!), 'r');
  let cutsInARow = 0;
  try {
    for (let part = upload.parts_done + 1; part <= parts; part++) {
      if (isStopped()) {
        await markPending(sync.db, group.rows);
        return requests;
      }
      const start = (part - 1) * upload.part_bytes;
      const length = Math.min(upload.part_bytes, total - start);
      const bytes = Buffer.alloc(length);
      await blob.read(bytes, 0, length, start);
      let sent: Awaited<ReturnType<typeof send>>;
      try {
        sent = await send(
          sync,
          group,
          { method: 'PUT', path: apiPaths.fileUploadPart(sync.orgId, uploadId, part), bytes, action: privateFileModel.quota.upload, timeoutMs: timeoutForBytes(length) },
          { returnNotFound: true },
        );
      } catch (error) {
        requests++;
        if (!(error instanceof RemoteUnreachableError) || ++cutsInARow >= PART_TRIES_WITHOUT_PROGRESS) throw error;
        part--; // the same part again, at once
        continue;
      }
      requests++;
      cutsInARow = 0;
      if (sent.kind === 'rejected' && sent.status === 404) return expired();
      if (sent.kind !== 'ok') {
        progress(null);
        return requests;
      }
      await sync.db.updateTable('sync_uploads').set({ parts_done: part }).where('op_id', '=', createRow.op_id).execute();
      progress(start + length);
    }
  } finally {
    await blob.close();
  }
  const completed = await send(sync, group, { method: 'POST', path: apiPaths.fileUploadComplete(sync.orgId, uploadId), action: privateFileModel.quota.create, timeoutMs: timeoutForBytes(total) }, { returnNotFound: true });
  requests++;
  if (completed.kind === 'rejected' && completed.status === 404) return expired();
  const remoteFile = completed.kind === 'ok' ? await readWriteAnswer(sync, group, completed.body) : null;
  if (!remoteFile) {
    progress(null);
    return requests;
  }
  await finishCreate(sync, group, remoteFile, carry, fromFolder, replaces);
  await sync.db.deleteFrom('sync_uploads').where('op_id', '=', createRow.op_id).execute();
  progress(null);
  if (fromFolder) requests += await settleFolderCopy(sync, remoteFile.id);
  return requests;
}
