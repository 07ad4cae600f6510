// Pushes the outbox: all queued changes to one record go out as one request with
// only the changed fields; creates as POSTs (a new project's new contacts as
// contacts_new), deletes as DELETEs. A create whose answer never came is looked
// for on the remote before it is sent again, so nothing is created twice.
import fs from 'node:fs';
import { apiPaths } from '../../shared/api-paths.ts';
import { type OutboxGroup, dropFieldsFromOutbox, dueGroups, groupOfRecord, markPending, opNoLongerQueued, removeFromOutbox } from './outbox.ts';
import type { RecordView } from './sync-models.ts';
import { fileCreateWaits } from './models/private-file.ts';
import { SYNC_MODELS, syncModel } from './models/index.ts';
import type { PushSteps } from './models/sync-model.ts';
import { blobPath } from '../engine/files/blob-store.ts';
import { type SyncContext, remotePath } from './sync-context.ts';
import { contentsRouteAbsent, markContentsRouteAbsent } from './sync-state.ts';
import { type RemoteRecord, readRemoteList } from './remote-records.ts';
import { MAX_PRECONDITION_ROUNDS, prepareConditionalUpdate, rereadAndMerge } from './write-preconditions.ts';
import { getRemoteJson } from './pull.ts';
import { settleFolderTwins } from './folder-twins.ts';
import { throwUnlessAnswered } from './remote-errors.ts';
import { type LocalRecord, failedWrite, finishRows, isPreconditionFailed, localJson, openConflictFields, otherCreateIn, otherRecordIn, readWriteAnswer, reloadGroup, retryLater, send, timeoutForBytes } from './push-requests.ts';
import { finishCreate, finishUpdate, valuesNotTaken } from './push-answers.ts';
import { findSameContentsInProject, finishFolderCreate, isFromProjectFolder, settleFolderCopies } from './push-folder-copies.ts';
import { goesUpInParts, pushChunkedCreate } from './push-chunked.ts';
import { findLostCreate } from './push-lost-creates.ts';
import { pushTagsMadeHereFirst } from './push-tags.ts';

/** Pushes every due change. Throws RemoteUnreachableError / SignInRequiredError to stop the cycle. */
export async function pushOutbox(sync: SyncContext, isStopped: () => boolean): Promise<number> {
  const now = sync.clock.now().toISOString();
  const groups = await dueGroups(sync.db, now);
  let pushed = 0;
  const done = new Set<string>();
  // A chunked upload whose create is gone (deleted before it finished) is forgotten; the remote expires its parts.
  await sync.db.deleteFrom('sync_uploads').where(opNoLongerQueued).execute();
  // Folder copies this computer created whose race check a kill (or a busy remote) cut off.
  pushed += await settleFolderCopies(sync, isStopped);
  // Copies of folder files another computer made in a race, pulled before it deleted them.
  pushed += await settleFolderTwins(sync, isStopped);
  for (const group of groups) {
    if (isStopped()) break;
    if (done.has(`${group.model}:${group.recordId}`)) continue;
    pushed += await pushGroup(sync, group, done, isStopped);
  }
  return pushed;
}

/** Returns how many requests it made. */
async function pushGroup(sync: SyncContext, group: OutboxGroup, done: Set<string>, isStopped: () => boolean = () => false): Promise<number> {
  done.add(`${group.model}:${group.recordId}`);
  const createRow = group.rows.find((row) => row.op === 'create');
  const wasSent = group.rows.some((row) => row.sent_at !== null);

  if (group.deleted) {
    if (group.created && !wasSent) return finishRows(sync, group.rows); // never left this machine
    let remoteId = group.recordId;
    if (group.created) {
      const found = await findLostCreate(sync, group, createRow!);
      if (!found) return finishRows(sync, group.rows);
      remoteId = found.id;
    }
    const outcome = await send(sync, group, { method: 'DELETE', path: remotePath(sync, group.model, remoteId), action: syncModel(group.model).quota.remove });
    if (outcome.kind === 'ok' || (outcome.kind === 'rejected' && outcome.status === 404)) {
      await sync.db.transaction().execute(async (trx) => {
        await removeFromOutbox(trx, group.rows);
        await trx.deleteFrom('sync_records').where('model', '=', group.model).where('record_id', '=', group.recordId).execute();
      });
    }
    return 1;
  }

  const json = await localJson(sync, group.model, group.recordId);
  if (!json) return finishRows(sync, group.rows); // gone locally without a delete row: nothing to send

  const model = syncModel(group.model);
  if (group.created) {
    const fromFolder = model.contents !== undefined && (await isFromProjectFolder(sync, group.recordId));
    // A chunked upload under way is our own create: it finishes (completing again
    // answers with the same file) and gets its race check then, so a completed one
    // whose answer was lost is never left behind as a second copy.
    const uploading = fromFolder && (await sync.db.selectFrom('sync_uploads').select('op_id').where('op_id', '=', createRow!.op_id).executeTakeFirst()) !== undefined;
    if (fromFolder && !uploading) {
      if (wasSent) {
        // Our own create may have landed with its answer lost: it is ours to settle
        // (and to delete if another copy wins), so it is looked for before any other copy.
        const found = await findLostCreate(sync, group, createRow!);
        if (found) return 1 + (await finishFolderCreate(sync, group, found));
      }
      // The same bytes may be a file of this project on the remote already (dropped
      // into its folder on another computer): this file becomes that one, never a second.
      const same = await findSameContentsInProject(sync, json);
      if (same) {
        await finishCreate(sync, group, same);
        return 1;
      }
    }
    // Its tags made here go up first, so the file can name them (push-tags.ts).
    const tags = model.contents ? await pushTagsMadeHereFirst(sync, group, json) : { requests: 0, mayGo: true };
    if (!tags.mayGo) return tags.requests;
    const tagged = tags.requests > 0 ? ((await localJson(sync, group.model, group.recordId)) ?? json) : json;
    if (model.contents && (await goesUpInParts(sync, group.recordId, createRow!.op_id))) {
      // a folder file's lost create was looked for above
      return tags.requests + (await pushChunkedCreate(sync, group, tagged, createRow!, wasSent && !fromFolder, isStopped, fromFolder));
    }
    if (wasSent && !fromFolder) {
      const found = await findLostCreate(sync, group, createRow!);
      if (found) {
        await finishCreate(sync, group, found);
        return tags.requests + 1;
      }
    }
    const referenceRequests = tags.requests + ((await model.pushReferencesFirst?.(pushSteps(sync, done), json, 'create')) ?? 0);
    const fresh = referenceRequests > 0 ? ((await localJson(sync, group.model, group.recordId)) ?? json) : json;
    const body = await model.createBody(sync, group, fresh, createRow!.op_id);
    if (body === 'waiting') return referenceRequests;
    const size = body instanceof FormData ? ((body.get('file_contents') as Blob | null)?.size ?? 0) : 0;
    // Contents going up: their progress is shown.
    if (model.contents) sync.uploads?.onProgress?.(group.recordId, { sent: 0, total: size });
    const outcome = await send(sync, group, {
      method: 'POST',
      path: remotePath(sync, group.model),
      ...(body instanceof FormData ? { form: body } : { json: body }),
      action: model.quota.create,
      timeoutMs: timeoutForBytes(size),
    });
    if (model.contents) sync.uploads?.onProgress?.(group.recordId, null);
    if (outcome.kind !== 'ok') return 1;
    const created = await readWriteAnswer(sync, group, outcome.body);
    if (!created) return 1;
    const otherRecord = otherCreateIn(sync, group.model, createRow!.op_id, created);
    if (otherRecord) {
      await failedWrite(sync, group, otherRecord);
      return 1;
    }
    if (fromFolder) return 1 + (await finishFolderCreate(sync, group, created));
    await finishCreate(sync, group, created, [], false, null, body instanceof FormData ? null : body);
    return 1;
  }

  if (model.contents && group.fields.has(model.contents.field)) return pushContentsChange(sync, group, json, done, isStopped);
  return pushUpdate(sync, group, done);
}

/**
 * An update goes up conditionally (write-preconditions.ts): with If-Match on a
 * remote that honours it, after a re-read on one that does not. A 412 re-reads and
 * merges the record, which turns a field changed on both sides into a conflict, and
 * sends what is left with the new version. Returns how many requests it made.
 */
async function pushUpdate(sync: SyncContext, initial: OutboxGroup, done: Set<string>): Promise<number> {
  const { model: modelName, recordId } = initial;
  const model = syncModel(modelName);
  let group = initial;
  let requests = 0;
  for (let round = 1; ; round++) {
    const prepared = await prepareConditionalUpdate(sync, modelName, recordId);
    requests += prepared.requests;
    if (round > 1 || prepared.requests > 0) {
      // The merge may have settled fields (same value on both sides) or made them conflicts.
      const reloaded = await reloadGroup(sync, group);
      if (!reloaded) return requests;
      group = reloaded;
    }
    const conflicted = await openConflictFields(sync, modelName, recordId);
    const fields = model.pushableFields([...group.fields]).filter((field) => !conflicted.has(field));
    if (fields.length === 0) return requests + (conflicted.size > 0 ? 0 : await finishRows(sync, group.rows));
    const json = await localJson(sync, modelName, recordId);
    if (!json) return requests + (await finishRows(sync, group.rows));
    const tags = model.contents && fields.includes(model.contents.tagsField) ? await pushTagsMadeHereFirst(sync, group, json) : { requests: 0, mayGo: true };
    requests += tags.requests;
    if (!tags.mayGo) return requests; // a tag of it could not be made on the remote yet
    const referenceRequests = (await model.pushReferencesFirst?.(pushSteps(sync, done), json, fields)) ?? 0;
    requests += referenceRequests;
    const fresh = referenceRequests + tags.requests > 0 ? ((await localJson(sync, modelName, recordId)) ?? json) : json;
    if (model.waitsFor?.(fresh, fields)) return requests; // a record it names could not go up yet
    const body = await model.updateBody(sync, fresh, fields);
    const outcome = await send(sync, group, {
      method: 'PATCH',
      path: remotePath(sync, modelName, recordId),
      json: body,
      action: model.quota.update,
      ...(prepared.ifMatch ? { headers: { 'if-match': prepared.ifMatch } } : {}),
    });
    requests++;
    if (outcome.kind === 'ok') {
      const updated = await readWriteAnswer(sync, group, outcome.body);
      if (!updated) return requests;
      const otherRecord = otherRecordIn(sync, modelName, recordId, updated);
      if (otherRecord) {
        await failedWrite(sync, group, otherRecord);
        return requests;
      }
      // A field the answer shows with another value than sent was not taken: kept, as a conflict that says so.
      const notTaken = valuesNotTaken(modelName, fresh, body, fields, updated);
      await finishUpdate(sync, group, updated, fields.filter((field) => !notTaken.includes(field)), notTaken);
      return requests;
    }
    if (!isPreconditionFailed(outcome)) return requests;
    if (round >= MAX_PRECONDITION_ROUNDS) {
      await retryLater(sync, group, 'the record kept changing on the remote while this change was being sent');
      return requests;
    }
    await rereadAndMerge(sync, modelName, recordId);
    requests++;
  }
}

// ---- new contents of a private file ------------------------------------------
// An edit in place (main/watch/, or the local API's PUT .../contents/) changes a
// private file's file_hash, size and bytes under the same id. A SolarDesk remote
// takes them as `PUT .../private_files/<id>/contents/` (one upload, the file keeps
// its id there too). The hosted service has no such route: there the new contents
// go up as a new private file with the same title, project, tags and
// show_customer, the local file is re-keyed to it (its folder mapping, versions
// and outbox follow, as for a create), and the old remote file is deleted.

/** The one model with contents (models/private-file.ts). */
const FILES = SYNC_MODELS.private_file;

async function remoteTakesContents(sync: SyncContext): Promise<boolean> {
  if (sync.contentsReplace?.mode === 'off') return false;
  return !(await contentsRouteAbsent(sync.db));
}

/** Sends a private file's new contents, then the rest of its queued fields. Returns how many requests it made. */
async function pushContentsChange(sync: SyncContext, group: OutboxGroup, json: LocalRecord, done: Set<string>, isStopped: () => boolean): Promise<number> {
  const conflicted = await openConflictFields(sync, 'private_file', group.recordId);
  if (conflicted.has('file_hash')) return pushUpdate(sync, group, done); // the user settles the contents first
  const record = await sync.db.selectFrom('sync_records').select('base').where('model', '=', 'private_file').where('record_id', '=', group.recordId).executeTakeFirst();
  const base = record ? (JSON.parse(record.base) as RecordView) : null;
  const file = await sync.db.selectFrom('private_files').select(['file_name', 'mime_type', 'file_hash', 'filesize']).where('id', '=', group.recordId).executeTakeFirst();
  if (!file?.file_hash || (base && base.file_hash === file.file_hash)) {
    // Changed and changed back (or nothing to send): the remote has these bytes already.
    await sync.db.transaction().execute((trx) => dropFieldsFromOutbox(trx, 'private_file', group.recordId, ['file_hash']));
    const rest = await reloadGroup(sync, group);
    return rest ? pushUpdate(sync, rest, done) : 0;
  }
  if (await remoteTakesContents(sync)) {
    const form = new FormData();
    // Streams from the blob store: the bytes are never all in memory.
    form.append('file_contents', await fs.openAsBlob(blobPath(sync.engine.store.fileRoot, file.file_hash), { type: file.mime_type }), file.file_name);
    const size = file.filesize ?? 0;
    sync.uploads?.onProgress?.(group.recordId, { sent: 0, total: size });
    const outcome = await send(
      sync,
      group,
      { method: 'PUT', path: apiPaths.privateFileContents(sync.orgId, group.recordId), form, action: FILES.quota.update, timeoutMs: timeoutForBytes(size) },
      { returnStatuses: [404, 405] },
    );
    sync.uploads?.onProgress?.(group.recordId, null);
    let requests = 1;
    if (outcome.kind === 'ok') {
      const updated = await readWriteAnswer(sync, group, outcome.body);
      if (!updated) return requests;
      const otherRecord = otherRecordIn(sync, 'private_file', group.recordId, updated);
      if (otherRecord) {
        await failedWrite(sync, group, otherRecord);
        return requests;
      }
      await finishUpdate(sync, group, updated, ['file_hash']);
      const rest = await reloadGroup(sync, group);
      return requests + (rest ? await pushUpdate(sync, rest, done) : 0);
    }
    if (outcome.kind !== 'rejected') return requests;
    // Not applied: the request goes out again in another form, and is not a create to look for.
    await markPending(sync.db, group.rows, { unsent: true });
    // 404/405: the route is missing (the hosted service), or the file is gone there. Its detail says which.
    const detail = await sync.remote.request({ method: 'GET', path: remotePath(sync, 'private_file', group.recordId), action: FILES.quota.detail });
    requests++;
    throwUnlessAnswered(detail);
    if (detail.kind === 'ok') await markContentsRouteAbsent(sync.db);
    else if (detail.kind !== 'rejected' || detail.status !== 404) return requests;
    return requests + (await replaceByNewRemoteFile(sync, group, json, false, isStopped));
  }
  return replaceByNewRemoteFile(sync, group, json, group.rows.some((row) => row.sent_at !== null), isStopped);
}

/**
 * For a remote without the contents route: the new contents go up as a new private
 * file with the file's title, project, tags and show_customer; the local file is
 * re-keyed to it and the old remote file is deleted (at once, as the next request).
 * A create sent before whose answer was lost is looked for first (same project,
 * sha256 and title, another id). Returns how many requests it made.
 */
async function replaceByNewRemoteFile(sync: SyncContext, group: OutboxGroup, json: LocalRecord, wasSent: boolean, isStopped: () => boolean): Promise<number> {
  const oldId = group.recordId;
  const view = FILES.view(json);
  const projectId = view.project as number | null;
  if (await fileCreateWaits(sync, oldId, view)) return 0; // a project it names has not reached the remote yet
  const row = group.rows[0]!;
  let requests = 0;
  let created: RemoteRecord | null = null;
  if (wasSent) {
    const query = { search: String(view.file_hash), limit: 100, ...(projectId === null ? {} : { project: projectId }) };
    const listed = await getRemoteJson(sync, remotePath(sync, 'private_file'), query, FILES.quota.list);
    requests++;
    if (!Array.isArray(listed)) return requests;
    created = readRemoteList(sync.unreadable, 'private_file', listed).find((file) => file.id !== oldId && file.file_hash === view.file_hash && file.title === view.title) ?? null;
  }
  if (!created) {
    const tags = await pushTagsMadeHereFirst(sync, group, json);
    requests += tags.requests;
    if (!tags.mayGo) return requests;
    const tagged = tags.requests > 0 ? ((await localJson(sync, 'private_file', oldId)) ?? json) : json;
    if (await goesUpInParts(sync, oldId, row.op_id)) return requests + (await pushChunkedCreate(sync, group, tagged, row, false, isStopped, false, oldId));
    const body = await FILES.createBody(sync, group, tagged, row.op_id);
    if (body === 'waiting') return requests;
    const size = body instanceof FormData ? ((body.get('file_contents') as Blob | null)?.size ?? 0) : 0;
    sync.uploads?.onProgress?.(oldId, { sent: 0, total: size });
    const outcome = await send(sync, group, { method: 'POST', path: remotePath(sync, 'private_file'), ...(body instanceof FormData ? { form: body } : { json: body }), action: FILES.quota.create, timeoutMs: timeoutForBytes(size) });
    sync.uploads?.onProgress?.(oldId, null);
    requests++;
    if (outcome.kind !== 'ok') return requests;
    created = await readWriteAnswer(sync, group, outcome.body);
    if (!created) return requests;
  }
  await finishCreate(sync, group, created, [], false, oldId);
  return requests + (await pushOldFileDelete(sync, oldId));
}

/** The old remote file of a replacement goes now, not a cycle later: until then the remote shows both. */
async function pushOldFileDelete(sync: SyncContext, oldId: number): Promise<number> {
  const deletion = await groupOfRecord(sync.db, 'private_file', oldId, { pushableOnly: true });
  return deletion?.deleted ? pushGroup(sync, deletion, new Set()) : 0;
}

/** What a model may do before its record goes up: push another record first (models/, `pushReferencesFirst`). */
function pushSteps(sync: SyncContext, done: Set<string>): PushSteps {
  return { sync, done, pushGroup: (group) => pushGroup(sync, group, done) };
}
