// Pushes the outbox: all queued changes to one record go out as one request with
// only the changed fields; creates as POSTs (a new project's new contacts as
// contacts_new), deletes as DELETEs. A create whose answer never came is looked
// for on the remote before it is sent again, so nothing is created twice.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { OutboxRow } from './sync-tables.ts';
import { snapshotRecord } from '../engine/changes/record-snapshots.ts';
import { writeAnnounced } from '../engine/changes/tracked-write.ts';
import { BY_SYNC } from '../engine/changes/change-feed.ts';
import { ROLE_REFERENCE_FIELDS, WRITABLE_PLAIN_FIELDS } from '../../shared/project-fields.ts';
import { sameJson } from '../../shared/webhook-fields.ts';
import type { ThrottleAction } from '../../shared/throttle-rates.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { formatDuration } from '../../shared/field-rules.ts';
import { EVENT_SYNC_FIELDS } from '../../shared/event-fields.ts';
import {
  type OutboxGroup,
  dropFieldsFromOutbox,
  dropQueuedCreate,
  dueGroups,
  fieldsQueuedAfter,
  groupOfRecord,
  hasQueuedDelete,
  insertOutboxRow,
  markInFlight,
  markParked,
  markParkedAfterSending,
  markPending,
  opNoLongerQueued,
  queuedUpdateFields,
  removeFromOutbox,
  requeueFields,
} from './outbox.ts';
import { CLIENT_OP_KEY, type RecordView, type SyncedModel, clientOpOf, pushableFields, isProvisional, viewOf } from './sync-models.ts';
import { blobPath } from '../engine/files/blob-store.ts';
import type { RemoteOutcome } from './remote-client.ts';
import { DEFAULT_UPLOAD_SETTINGS, type SyncContext, remotePath, remoteUrl, retryDelay } from './sync-context.ts';
import { contentsRouteAbsent, markContentsRouteAbsent } from './sync-state.ts';
import { upsertPrivateFile, writeRemoteRecord } from './replica.ts';
import { rekey } from './record-ids.ts';
import { type RemotePrivateFile, type RemoteProject, type RemoteRecord, parseRemote, readRemote, readRemoteList } from './remote-records.ts';
import { MAX_PRECONDITION_ROUNDS, prepareConditionalUpdate, rereadAndMerge } from './write-preconditions.ts';
import { getRemoteJson } from './pull.ts';
import { settleFolderTwins } from './folder-twins.ts';
import { RemoteBusyError, RemoteUnreachableError, SignInRequiredError, throwUnlessAnswered } from './remote-errors.ts';

/**
 * A local record's snapshot, or a request body built from one: our own engine's
 * JSON (its serializers are typed by shared/schemas/). What the remote sends is
 * read as a Remote* type (remote-records.ts).
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- local API JSON


const WRITE_ACTIONS: Record<SyncedModel, { create: ThrottleAction; update: ThrottleAction; remove: ThrottleAction }> = {
  project: { create: 'project_create', update: 'project_partial_update', remove: 'default' },
  contact: { create: 'default', update: 'default', remove: 'default' },
  event: { create: 'default', update: 'default', remove: 'default' },
  webhook: { create: 'default', update: 'default', remove: 'default' },
  private_file: { create: 'private_file_create', update: 'private_file_partial_update', remove: 'private_file_delete' },
};

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

async function localJson(sync: SyncContext, model: SyncedModel, id: number): Promise<Json | null> {
  return sync.db.transaction().execute((trx) => snapshotRecord(trx, sync.engine, sync.orgId, model, id)) as Promise<Json | null>;
}

async function openConflictFields(sync: SyncContext, model: SyncedModel, id: number): Promise<Set<string>> {
  const rows = await sync.db.selectFrom('sync_conflicts').select('field').where('model', '=', model).where('record_id', '=', id).execute();
  return new Set(rows.map((row) => row.field));
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
    const outcome = await send(sync, group, { method: 'DELETE', path: remotePath(sync, group.model, remoteId), action: WRITE_ACTIONS[group.model].remove });
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

  if (group.created) {
    const fromFolder = group.model === 'private_file' && (await isFromProjectFolder(sync, group.recordId));
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
    if (group.model === 'private_file' && (await goesUpInParts(sync, group.recordId, createRow!.op_id))) {
      return pushChunkedCreate(sync, group, json, createRow!, wasSent && !fromFolder, isStopped, fromFolder); // a folder file's lost create was looked for above
    }
    if (wasSent && !fromFolder) {
      const found = await findLostCreate(sync, group, createRow!);
      if (found) {
        await finishCreate(sync, group, found);
        return 1;
      }
    }
    const referenceRequests = group.model === 'event' ? await pushEventReferencesFirst(sync, json, EVENT_SYNC_FIELDS, done) : 0;
    const fresh = referenceRequests > 0 ? ((await localJson(sync, group.model, group.recordId)) ?? json) : json;
    const body = await createBody(sync, group, fresh, createRow!.op_id);
    if (body === 'waiting') return referenceRequests;
    const size = body instanceof FormData ? ((body.get('file_contents') as Blob | null)?.size ?? 0) : 0;
    if (group.model === 'private_file') sync.uploads?.onProgress?.(group.recordId, { sent: 0, total: size });
    const outcome = await send(sync, group, {
      method: 'POST',
      path: remotePath(sync, group.model),
      ...(body instanceof FormData ? { form: body } : { json: body }),
      action: WRITE_ACTIONS[group.model].create,
      timeoutMs: timeoutForBytes(size),
    });
    if (group.model === 'private_file') sync.uploads?.onProgress?.(group.recordId, null);
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

  if (group.model === 'private_file' && group.fields.has('file_hash')) return pushContentsChange(sync, group, json, done, isStopped);
  return pushUpdate(sync, group, done);
}

/**
 * An update goes up conditionally (write-preconditions.ts): with If-Match on a
 * remote that honours it, after a re-read on one that does not. A 412 re-reads and
 * merges the record, which turns a field changed on both sides into a conflict, and
 * sends what is left with the new version. Returns how many requests it made.
 */
async function pushUpdate(sync: SyncContext, initial: OutboxGroup, done: Set<string>): Promise<number> {
  const { model, recordId } = initial;
  let group = initial;
  let requests = 0;
  for (let round = 1; ; round++) {
    const prepared = await prepareConditionalUpdate(sync, model, recordId);
    requests += prepared.requests;
    if (round > 1 || prepared.requests > 0) {
      // The merge may have settled fields (same value on both sides) or made them conflicts.
      const reloaded = await reloadGroup(sync, group);
      if (!reloaded) return requests;
      group = reloaded;
    }
    const conflicted = await openConflictFields(sync, model, recordId);
    const fields = pushableFields(model, [...group.fields]).filter((field) => !conflicted.has(field));
    if (fields.length === 0) return requests + (conflicted.size > 0 ? 0 : await finishRows(sync, group.rows));
    const json = await localJson(sync, model, recordId);
    if (!json) return requests + (await finishRows(sync, group.rows));
    const contactRequests =
      model === 'project' && fields.includes('contacts') ? await pushNewContactsFirst(sync, json, done)
      : model === 'event' ? await pushEventReferencesFirst(sync, json, fields, done)
      : 0;
    requests += contactRequests;
    const fresh = contactRequests > 0 ? ((await localJson(sync, model, recordId)) ?? json) : json;
    if (model === 'event' && eventWaitsFor(viewOf('event', fresh), fields)) return requests; // its project or contact could not go up yet
    const body = await updateBody(sync, model, fresh, fields);
    const outcome = await send(sync, group, {
      method: 'PATCH',
      path: remotePath(sync, model, recordId),
      json: body,
      action: WRITE_ACTIONS[model].update,
      ...(prepared.ifMatch ? { headers: { 'if-match': prepared.ifMatch } } : {}),
    });
    requests++;
    if (outcome.kind === 'ok') {
      const updated = await readWriteAnswer(sync, group, outcome.body);
      if (!updated) return requests;
      const otherRecord = otherRecordIn(sync, model, recordId, updated);
      if (otherRecord) {
        await failedWrite(sync, group, otherRecord);
        return requests;
      }
      // A field the answer shows with another value than sent was not taken: kept, as a conflict that says so.
      const notTaken = valuesNotTaken(model, fresh, body, fields, updated);
      await finishUpdate(sync, group, updated, fields.filter((field) => !notTaken.includes(field)), notTaken);
      return requests;
    }
    if (!isPreconditionFailed(outcome)) return requests;
    if (round >= MAX_PRECONDITION_ROUNDS) {
      await retryLater(sync, group, 'the record kept changing on the remote while this change was being sent');
      return requests;
    }
    await rereadAndMerge(sync, model, recordId);
    requests++;
  }
}

const isPreconditionFailed = (outcome: RemoteOutcome) => outcome.kind === 'rejected' && outcome.status === 412;

// ---- new contents of a private file ------------------------------------------
// An edit in place (main/watch/, or the local API's PUT .../contents/) changes a
// private file's file_hash, size and bytes under the same id. A SolarDesk remote
// takes them as `PUT .../private_files/<id>/contents/` (one upload, the file keeps
// its id there too). The hosted service has no such route: there the new contents
// go up as a new private file with the same title, project, tags and
// show_customer, the local file is re-keyed to it (its folder mapping, versions
// and outbox follow, as for a create), and the old remote file is deleted.

async function remoteTakesContents(sync: SyncContext): Promise<boolean> {
  if (sync.contentsReplace?.mode === 'off') return false;
  return !(await contentsRouteAbsent(sync.db));
}

/** Sends a private file's new contents, then the rest of its queued fields. Returns how many requests it made. */
async function pushContentsChange(sync: SyncContext, group: OutboxGroup, json: Json, done: Set<string>, isStopped: () => boolean): Promise<number> {
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
      { method: 'PUT', path: apiPaths.privateFileContents(sync.orgId, group.recordId), form, action: WRITE_ACTIONS.private_file.update, timeoutMs: timeoutForBytes(size) },
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
    const detail = await sync.remote.request({ method: 'GET', path: remotePath(sync, 'private_file', group.recordId), action: 'private_file_detail' });
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
async function replaceByNewRemoteFile(sync: SyncContext, group: OutboxGroup, json: Json, wasSent: boolean, isStopped: () => boolean): Promise<number> {
  const oldId = group.recordId;
  const view = viewOf('private_file', json);
  const projectId = view.project as number | null;
  if (projectId !== null && isProvisional(projectId)) return 0; // its project has not reached the remote yet
  const row = group.rows[0]!;
  let requests = 0;
  let created: RemoteRecord | null = null;
  if (wasSent) {
    const query = { search: String(view.file_hash), limit: 100, ...(projectId === null ? {} : { project: projectId }) };
    const listed = await getRemoteJson(sync, remotePath(sync, 'private_file'), query, 'private_file_list');
    requests++;
    if (!Array.isArray(listed)) return requests;
    created = readRemoteList(sync.unreadable, 'private_file', listed).find((file) => file.id !== oldId && file.file_hash === view.file_hash && file.title === view.title) ?? null;
  }
  if (!created) {
    if (await goesUpInParts(sync, oldId, row.op_id)) return requests + (await pushChunkedCreate(sync, group, json, row, false, isStopped, false, oldId));
    const body = await createBody(sync, group, json, row.op_id);
    if (body === 'waiting') return requests;
    const size = body instanceof FormData ? ((body.get('file_contents') as Blob | null)?.size ?? 0) : 0;
    sync.uploads?.onProgress?.(oldId, { sent: 0, total: size });
    const outcome = await send(sync, group, { method: 'POST', path: remotePath(sync, 'private_file'), ...(body instanceof FormData ? { form: body } : { json: body }), action: WRITE_ACTIONS.private_file.create, timeoutMs: timeoutForBytes(size) });
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

/** The record's queued changes as they are now. */
async function reloadGroup(sync: SyncContext, group: OutboxGroup): Promise<OutboxGroup | undefined> {
  return groupOfRecord(sync.db, group.model, group.recordId, { pushableOnly: true });
}

async function retryLater(sync: SyncContext, group: OutboxGroup, reason: string): Promise<void> {
  const attempts = Math.max(...group.rows.map((row) => row.attempts)) + 1;
  await markPending(sync.db, group.rows, { attempts, error: reason, retryAt: new Date(sync.clock.now().getTime() + retryDelay(sync.retry, attempts)).toISOString() });
}

/** Marks the rows sent, sends, and sorts the outcome into done / retry / park / stop. */
async function send(
  sync: SyncContext,
  group: OutboxGroup,
  request: Parameters<SyncContext['remote']['request']>[0],
  options: { returnNotFound?: boolean; returnStatuses?: readonly number[] } = {},
): Promise<RemoteOutcome> {
  const { rows } = group;
  await markInFlight(sync.db, rows, sync.clock.now().toISOString());
  const outcome = await sync.remote.request(request);
  const attempts = Math.max(...group.rows.map((row) => row.attempts)) + 1;
  switch (outcome.kind) {
    case 'ok':
      return outcome;
    case 'unauthorized':
      await markPending(sync.db, rows, { error: outcome.message });
      throw new SignInRequiredError(outcome.message);
    case 'unreachable':
      // sent_at stays: the request may have been applied.
      await markPending(sync.db, rows, { attempts, error: outcome.message });
      throw new RemoteUnreachableError(outcome.message);
    case 'retry': {
      const delay = outcome.retryAfterMs ?? retryDelay(sync.retry, attempts);
      await markPending(sync.db, rows, {
        attempts,
        error: outcome.message,
        retryAt: new Date(sync.clock.now().getTime() + delay).toISOString(),
        // A 429 was never processed; a 5xx might have been, so a create stays "sent" and is looked for first.
        unsent: outcome.status === 429,
      });
      return outcome;
    }
    case 'rejected':
      if (outcome.status === 404 && (request.method === 'DELETE' || options.returnNotFound)) return outcome;
      if (options.returnStatuses?.includes(outcome.status)) return outcome;
      if (outcome.status === 412 && request.headers?.['if-match']) {
        // Not a rejection of the change: the record moved. The caller re-reads and merges.
        await markPending(sync.db, rows, { unsent: true });
        return outcome;
      }
      // One change the remote will not take is parked with its reason; the rest go on.
      await markParked(sync.db, rows, attempts, outcome.message);
      return outcome;
  }
}

/**
 * A write's answer read as the group's record. One that does not read as it (a
 * captive portal's page, a proxy's error in a 200, a record with an id from this
 * computer's provisional range) is a transient failure, not a refusal (issue 25,
 * item 11): the change stays queued and is tried again with its back-off. The write
 * may have landed: sent_at stays, so a create is looked for before it goes again.
 */
async function readWriteAnswer(sync: SyncContext, group: OutboxGroup, body: unknown): Promise<RemoteRecord | null> {
  const parsed = parseRemote(group.model, body);
  if (parsed.ok) return parsed.record;
  await retryUnreadableAnswer(sync, group, parsed.reason);
  return null;
}

async function retryUnreadableAnswer(sync: SyncContext, group: OutboxGroup, reason: string): Promise<void> {
  await retryLater(sync, group, `the remote's answer could not be read: ${reason}`);
}

/** Tries of a write answered for another record before it is parked and shown (it stays until the user retries or edits). */
export const OTHER_RECORD_TRIES = 5;

/**
 * Why a write's answer is not the record written (another id, or a project of
 * another org), or null when it is (issue 34, item 2). Such an answer says nothing
 * of what happened to the write, so none of it is kept.
 */
function otherRecordIn(sync: SyncContext, model: SyncedModel, recordId: number, answer: RemoteRecord): string | null {
  if (answer.id !== recordId) return `the remote answered the write of ${model.replace('_', ' ')} ${recordId} with another record (${answer.id})`;
  const orgId = (answer as { org_id?: unknown }).org_id;
  if (typeof orgId === 'number' && orgId !== sync.orgId) return `the remote answered the write with a record of another organisation (${orgId})`;
  return null;
}

/**
 * Why a create's answer is not the record created, or null: a project carrying
 * another create's mark (clientOpOf), or a record of another org. Its id is new, so
 * the id itself says nothing; one in the provisional range never reads (remote-records.ts).
 */
function otherCreateIn(sync: SyncContext, model: SyncedModel, opId: string, answer: RemoteRecord): string | null {
  const mark = model === 'project' ? clientOpOf(answer) : undefined;
  if (mark !== undefined && mark !== opId) return `the remote answered the create with another record (project ${answer.id}, made by another change)`;
  const orgId = (answer as { org_id?: unknown }).org_id;
  if (typeof orgId === 'number' && orgId !== sync.orgId) return `the remote answered the create with a record of another organisation (${orgId})`;
  return null;
}

/**
 * A write whose answer does not show it applied: the change stays queued and is
 * tried again with its back-off; after OTHER_RECORD_TRIES it is parked with the
 * reason, where the Sync screen shows it with Retry. sent_at stays: a create may
 * have landed, and is looked for before it goes again.
 */
async function failedWrite(sync: SyncContext, group: OutboxGroup, reason: string): Promise<void> {
  const attempts = Math.max(...group.rows.map((row) => row.attempts)) + 1;
  if (attempts >= OTHER_RECORD_TRIES) await markParkedAfterSending(sync.db, group.rows, reason, attempts);
  else await retryLater(sync, group, reason);
}

/** Whether a write's answer shows `field` at all (a remote may leave out what it does not let a client read back). */
function answerShows(answer: RemoteRecord, field: string): boolean {
  if (field === 'active_stage_id') return 'active_stage_id' in answer || 'workflow' in answer;
  return field in answer;
}

/**
 * The sent fields the answer shows with another value than the one sent: the remote
 * did not take them (it ignored them, or a proxy answered with the record as it was).
 * A field the body did not carry (an empty country is not sent) or the answer does
 * not show is not judged: nothing says it was refused.
 */
function valuesNotTaken(model: SyncedModel, sentJson: Json, body: Json, fields: readonly string[], answer: RemoteRecord): string[] {
  const sent = viewOf(model, sentJson);
  const answered = viewOf(model, answer);
  return fields.filter((field) => field in body && answerShows(answer, field) && !sameJson(sent[field], answered[field]));
}

async function finishRows(sync: SyncContext, rows: OutboxRow[]): Promise<number> {
  await removeFromOutbox(sync.db, rows);
  return 0;
}

/** Values of a record's changes queued after the group was read: they stay local until their own push. */
async function laterLocalValues(trx: Transaction<Database>, group: OutboxGroup, view: RecordView): Promise<RecordView> {
  const keep: RecordView = {};
  for (const field of await fieldsQueuedAfter(trx, group)) keep[field] = view[field];
  return keep;
}

async function storeBase(trx: Transaction<Database>, model: SyncedModel, id: number, remoteJson: RemoteRecord): Promise<void> {
  const row = { model, record_id: id, base: JSON.stringify(viewOf(model, remoteJson)), remote_modified: remoteJson.modified_date ?? null };
  await trx.insertInto('sync_records').values(row).onConflict((conflict) => conflict.columns(['model', 'record_id']).doUpdateSet(row)).execute();
}

/** `carry`: fields the create could not send (a chunked upload takes no tags); they keep their local values and go up as a PATCH. */
/** `replaces`: the remote id of a file whose new contents this create carried (pushContentsChange); its deletion is queued with the re-key. */
/** `sentBody`: the create's JSON body, when its answer is to be checked for the values sent (a field it did not take becomes a conflict, as for an update). */
async function finishCreate(
  sync: SyncContext,
  group: OutboxGroup,
  remoteJson: RemoteRecord,
  carry: readonly string[] = [],
  folderCopy = false,
  replaces: number | null = null,
  sentBody: Json | null = null,
): Promise<void> {
  await writeAnnounced(sync.engine, { orgId: sync.orgId, by: BY_SYNC }, async (trx, track) => {
    // Re-keyed: the local id goes away and the remote's takes its place.
    await track.record(group.model, group.recordId);
    await track.record(group.model, remoteJson.id);
    // Made here from a project folder: its race check (settleFolderCopy) is due, even after a kill.
    if (folderCopy) await trx.insertInto('sync_state').values({ key: `${FOLDER_COPY_KEY}${remoteJson.id}`, value: String(remoteJson.file_hash ?? '') }).onConflict((conflict) => conflict.column('key').doNothing()).execute();
    const local = (await snapshotRecord(trx, sync.engine, sync.orgId, group.model, group.recordId)) as Json | null;
    const keep = local ? await laterLocalValues(trx, group, viewOf(group.model, local)) : {};
    const remoteView = viewOf(group.model, remoteJson);
    const localView = local ? viewOf(group.model, local) : {};
    const carried = local ? carry.filter((field) => !sameJson(localView[field], remoteView[field])) : [];
    for (const field of carried) keep[field] = localView[field];
    // Values the create carried and the answer shows otherwise were not taken. An empty value sent is
    // not judged (a remote may answer "" for null), nor are contacts (new ones come back with new ids).
    const notTaken = local && sentBody
      ? valuesNotTaken(group.model, local, sentBody, Object.keys(remoteView), remoteJson).filter(
          (field) => !(field in keep) && field !== 'contacts' && localView[field] !== null && localView[field] !== '',
        )
      : [];
    for (const field of notTaken) keep[field] = localView[field];
    if (group.model === 'project') await adoptCreatedContacts(trx, sync, local, remoteJson as RemoteProject);
    await rekey(trx, group.model, group.recordId, remoteJson.id, sync.folderRecords);
    await removeFromOutbox(trx, group.rows);
    await writeRemoteRecord(trx, sync, group.model, remoteJson, keep);
    await storeBase(trx, group.model, remoteJson.id, remoteJson);
    if (carried.length) await requeueFields(trx, sync.clock, group.model, remoteJson.id, carried);
    if (notTaken.length) {
      await recordNotTaken(trx, sync, group.model, remoteJson.id, localView, remoteView, notTaken);
      await requeueFields(trx, sync.clock, group.model, remoteJson.id, notTaken);
    }
    if (replaces !== null) await insertOutboxRow(trx, sync.clock.now().toISOString(), { model: 'private_file', recordId: replaces, op: 'delete', fields: [] });
  });
}

/** What a conflict says when the remote answered a write without the value sent (conflicts.ts lets the user send it again). */
export const NOT_TAKEN_REASON = 'The server did not take this value: its answer to the change still shows its own. Keep mine sends it again; Take the server\'s keeps what it has.';

/** `notTaken`: sent fields the answer shows with another value; each stays local, as a conflict that says why. */
async function finishUpdate(sync: SyncContext, group: OutboxGroup, remoteJson: RemoteRecord, sentFields: string[], notTaken: readonly string[] = []): Promise<void> {
  await writeAnnounced(sync.engine, { orgId: sync.orgId, by: BY_SYNC }, async (trx, track) => {
    await track.record(group.model, group.recordId);
    const local = (await snapshotRecord(trx, sync.engine, sync.orgId, group.model, group.recordId)) as Json | null;
    const localView = local ? viewOf(group.model, local) : {};
    if (notTaken.length) await recordNotTaken(trx, sync, group.model, group.recordId, localView, viewOf(group.model, remoteJson), notTaken);
    const keep = await laterLocalValues(trx, group, localView);
    const conflicts = await trx.selectFrom('sync_conflicts').select('field').where('model', '=', group.model).where('record_id', '=', group.recordId).execute();
    for (const { field } of conflicts) keep[field] = localView[field];
    // Fields of the group held back by a conflict stay queued; the sent ones are done.
    const heldBack = [...group.fields].filter((field) => !sentFields.includes(field));
    await removeFromOutbox(trx, group.rows);
    if (heldBack.length) await requeueFields(trx, sync.clock, group.model, group.recordId, heldBack);
    await writeRemoteRecord(trx, sync, group.model, remoteJson, keep);
    const record = await trx.selectFrom('sync_records').select('base').where('model', '=', group.model).where('record_id', '=', group.recordId).executeTakeFirst();
    const base = record ? (JSON.parse(record.base) as RecordView) : viewOf(group.model, remoteJson);
    const remoteView = viewOf(group.model, remoteJson);
    for (const field of sentFields) base[field] = remoteView[field];
    const row = { model: group.model, record_id: group.recordId, base: JSON.stringify(base), remote_modified: remoteJson.modified_date ?? null };
    await trx.insertInto('sync_records').values(row).onConflict((conflict) => conflict.columns(['model', 'record_id']).doUpdateSet(row)).execute();
  });
}

/**
 * Sent fields the remote did not take become conflicts (issue 34, item 1): the local
 * value stays, the field is held back from pushes until the user settles it, and the
 * merge base keeps what both sides last agreed on.
 */
async function recordNotTaken(
  trx: Transaction<Database>,
  sync: SyncContext,
  model: SyncedModel,
  recordId: number,
  localView: RecordView,
  remoteView: RecordView,
  fields: readonly string[],
): Promise<void> {
  const record = await trx.selectFrom('sync_records').select('base').where('model', '=', model).where('record_id', '=', recordId).executeTakeFirst();
  const base = record ? (JSON.parse(record.base) as RecordView) : {};
  for (const field of fields) {
    const values = {
      local_value: JSON.stringify(localView[field] ?? null),
      remote_value: JSON.stringify(remoteView[field] ?? null),
      base_value: JSON.stringify(base[field] ?? null),
      reason: NOT_TAKEN_REASON,
    };
    const open = await trx.selectFrom('sync_conflicts').select('id').where('model', '=', model).where('record_id', '=', recordId).where('field', '=', field).executeTakeFirst();
    if (open) await trx.updateTable('sync_conflicts').set(values).where('id', '=', open.id).execute();
    else await trx.insertInto('sync_conflicts').values({ model, record_id: recordId, field, ...values, created_date: sync.clock.now().toISOString() }).execute();
  }
}

/** A new project's contacts made offline were sent as contacts_new; the remote's copies take their place. */
async function adoptCreatedContacts(trx: Transaction<Database>, sync: SyncContext, local: Json | null, remoteJson: RemoteProject): Promise<void> {
  if (!local) return;
  const provisional = (local.contacts_data as Json[]).filter((contact) => isProvisional(contact.id));
  const remoteContacts = remoteJson.contacts_data ?? [];
  const created = remoteContacts.slice(remoteContacts.length - provisional.length);
  for (const [index, contact] of provisional.entries()) {
    const remote = created[index];
    if (!remote) continue;
    await rekey(trx, 'contact', contact.id, remote.id, sync.folderRecords);
    await dropQueuedCreate(trx, 'contact', remote.id);
    await storeBase(trx, 'contact', remote.id, remote);
  }
}

/** Contacts made offline and attached to an existing project are created on their own first. */
async function pushNewContactsFirst(sync: SyncContext, project: Json, done: Set<string>): Promise<number> {
  let requests = 0;
  for (const contact of project.contacts_data as Json[]) {
    if (!isProvisional(contact.id)) continue;
    const group = await groupOfRecord(sync.db, 'contact', contact.id);
    if (group) requests += await pushGroup(sync, group, done);
  }
  return requests;
}

/** An event's project or contact made offline goes up first, so the event can name it (its create, or an update that names it). */
async function pushEventReferencesFirst(sync: SyncContext, event: Json, fields: readonly string[], done: Set<string>): Promise<number> {
  const view = viewOf('event', event);
  let requests = 0;
  for (const [field, model] of [['project_id', 'project'], ['contact', 'contact']] as const) {
    const id = view[field];
    if (!fields.includes(field) || typeof id !== 'number' || !isProvisional(id) || done.has(`${model}:${id}`)) continue;
    const group = await groupOfRecord(sync.db, model, id, { pushableOnly: true });
    if (group) requests += await pushGroup(sync, group, done);
  }
  return requests;
}

const roleUrl = (sync: SyncContext, id: number | null) => (id === null ? null : remoteUrl(sync, apiPaths.role(sync.orgId, id)));

async function projectFieldsBody(sync: SyncContext, json: Json, fields: readonly string[]): Promise<Json> {
  const view = viewOf('project', json);
  const body: Json = {};
  for (const field of fields) {
    if (field in WRITABLE_PLAIN_FIELDS || field === 'custom_data') body[field] = view[field];
    else if (field === 'country_iso2') {
      if (view.country_iso2) body.country_iso2 = view.country_iso2;
    } else if (field === 'roof_type') body.roof_type = view.roof_type === null ? null : remoteUrl(sync, apiPaths.roofType(String(view.roof_type)));
    else if ((ROLE_REFERENCE_FIELDS as readonly string[]).includes(field)) body[field] = roleUrl(sync, view[field] as number | null);
    else if (field === 'contacts') body.contacts = (view.contacts as number[]).map((id) => remoteUrl(sync, remotePath(sync, 'contact', id)));
    else if (field === 'active_stage_id') {
      body.workflow = { workflow_id: json.workflow?.workflow_id, active_stage_id: view.active_stage_id };
      body.active_stage_id = view.active_stage_id;
    } else if (field === 'usage') body.usage = view.usage;
  }
  return body;
}

const projectUrl = (sync: SyncContext, id: number | null) => (id === null ? null : remoteUrl(sync, remotePath(sync, 'project', id)));
const fileTagUrl = (sync: SyncContext, id: number) => remoteUrl(sync, apiPaths.fileTag(id));

async function updateBody(sync: SyncContext, model: SyncedModel, json: Json, fields: string[]): Promise<Json> {
  if (model === 'project') return projectFieldsBody(sync, json, fields);
  if (model === 'private_file') {
    const view = viewOf(model, json);
    return Object.fromEntries(
      fields.map((field) => {
        if (field === 'project') return [field, projectUrl(sync, view.project as number | null)];
        if (field === 'file_tags') return [field, (view.file_tags as number[]).map((id) => fileTagUrl(sync, id))];
        return [field, view[field]];
      }),
    );
  }
  const view = viewOf(model, json);
  if (model === 'event') return eventFieldsBody(sync, view, fields);
  return Object.fromEntries(fields.map((field) => [field, view[field]]));
}

/**
 * An event's fields as the API takes them: references as remote URLs (`project`,
 * `contact`, `team_members` as the org's roles), the duration as DRF writes one.
 * The hosted service reads the kind from `event_type_id` (hosted-docs-facts.md 9).
 */
function eventFieldsBody(sync: SyncContext, view: RecordView, fields: readonly string[]): Json {
  const body: Json = {};
  for (const field of fields) {
    const value = view[field];
    if (field === 'project_id') body.project = projectUrl(sync, value as number | null);
    else if (field === 'contact') body.contact = value === null ? null : remoteUrl(sync, remotePath(sync, 'contact', value as number));
    else if (field === 'team_members') body.team_members = (value as number[]).map((id) => roleUrl(sync, id));
    else if (field === 'duration') body.duration = typeof value === 'number' ? formatDuration(value) : value;
    else body[field] = value;
  }
  return body;
}

/** The fields a lost event create is recognised by: what it sent that the remote keeps as sent. */
const LOST_EVENT_MATCH_FIELDS = ['title', 'notes', 'event_type', 'start', 'end', 'contact', 'team_members', 'location_override'] as const;

/** Whether an event's `fields` name a project or contact made offline that has no remote id yet. */
function eventWaitsFor(view: RecordView, fields: readonly string[]): boolean {
  return (['project_id', 'contact'] as const).some((field) => fields.includes(field) && typeof view[field] === 'number' && isProvisional(view[field]));
}

async function createBody(sync: SyncContext, group: OutboxGroup, json: Json, opId: string): Promise<Json | FormData | 'waiting'> {
  const view = viewOf(group.model, json);
  switch (group.model) {
    case 'private_file': {
      const projectId = view.project as number | null;
      if (projectId !== null && isProvisional(projectId)) return 'waiting';
      const row = await sync.db.selectFrom('private_files').select(['file_name', 'mime_type', 'file_hash']).where('id', '=', group.recordId).executeTakeFirstOrThrow();
      const form = new FormData();
      form.append('title', String(view.title));
      form.append('show_customer', String(view.show_customer));
      if (projectId !== null) form.append('project', projectUrl(sync, projectId)!);
      if ((view.file_tags as number[]).length) form.append('file_tags', (view.file_tags as number[]).map((id) => fileTagUrl(sync, id)).join(','));
      // Streams from the blob store: the bytes are never all in memory.
      const blob = await fs.openAsBlob(blobPath(sync.engine.store.fileRoot, row.file_hash!), { type: row.mime_type });
      form.append('file_contents', blob, row.file_name);
      return form;
    }
    case 'project': {
      const fields = Object.keys(view).filter((field) => field !== 'contacts' && view[field] !== null);
      const body = await projectFieldsBody(sync, json, fields);
      body.custom_data = { ...((view.custom_data as Json | null) ?? {}), [CLIENT_OP_KEY]: opId };
      const contacts = json.contacts_data as Json[];
      body.contacts = contacts.filter((contact) => !isProvisional(contact.id)).map((contact) => remoteUrl(sync, remotePath(sync, 'contact', contact.id)));
      body.contacts_new = contacts.filter((contact) => isProvisional(contact.id)).map((contact) => viewOf('contact', contact));
      return body;
    }
    case 'event': {
      // Its project or contact made offline has not reached the remote yet.
      if (eventWaitsFor(view, EVENT_SYNC_FIELDS)) return 'waiting';
      const fields = EVENT_SYNC_FIELDS.filter((field) => field !== 'event_type_id' || typeof view.event_type_id === 'number');
      return eventFieldsBody(sync, view, fields);
    }
    case 'contact':
    case 'webhook':
      return view;
  }
}

/**
 * A file dropped into a project folder follows the folder's rule on the remote too:
 * the same contents in one project are one file (docs/project-folders.md). A file
 * uploaded through the app is the user's explicit choice and is not merged.
 */
async function isFromProjectFolder(sync: SyncContext, fileId: number): Promise<boolean> {
  return sync.folderRecords.isInProjectFolder(sync.db, fileId);
}

/**
 * A remote private file of the same project with the same sha256 (`file_hash`,
 * which the list's `search` matches), one this replica is not about to delete.
 * Null when the file has no project on the remote yet, or none matches.
 */
async function findSameContentsInProject(sync: SyncContext, json: Json): Promise<RemotePrivateFile | null> {
  const view = viewOf('private_file', json);
  const projectId = view.project as number | null;
  if (!view.file_hash || projectId === null || isProvisional(projectId)) return null;
  const query = { project: projectId, search: String(view.file_hash), limit: 100 };
  const listed = await getRemoteJson(sync, remotePath(sync, 'private_file'), query, 'private_file_list');
  if (!Array.isArray(listed)) return null; // may not list: the create itself will say why
  return (await copiesInProject(sync, readRemoteList(sync.unreadable, 'private_file', listed), String(view.file_hash), projectId))[0] ?? null;
}

/**
 * The listed files of `projectId` with sha256 `hash` that this replica is not about
 * to delete, lowest id first: every computer that sees several picks the first, so
 * racing computers agree on one (ids only grow, so the lowest was there first and
 * every later creator sees it).
 */
async function copiesInProject(sync: SyncContext, listed: RemotePrivateFile[], hash: string, projectId: number): Promise<RemotePrivateFile[]> {
  const copies: RemotePrivateFile[] = [];
  for (const file of listed) {
    const candidate = viewOf('private_file', file);
    if (candidate.file_hash !== hash || candidate.project !== projectId) continue;
    if (!(await hasQueuedDelete(sync.db, 'private_file', file.id))) copies.push(file);
  }
  return copies.sort((a, b) => a.id - b.id);
}

/** sync_state keys `folder_copy:<remote id>`: a file this computer created from a project folder, not yet checked for a racing copy. */
const FOLDER_COPY_KEY = 'folder_copy:';

/** finishCreate for a folder file this computer created, then its race check. Returns the requests made. */
async function finishFolderCreate(sync: SyncContext, group: OutboxGroup, remoteJson: RemoteRecord, carry: readonly string[] = []): Promise<number> {
  await finishCreate(sync, group, remoteJson, carry, true);
  return settleFolderCopy(sync, remoteJson.id);
}

async function settleFolderCopies(sync: SyncContext, isStopped: () => boolean): Promise<number> {
  const marks = await sync.db.selectFrom('sync_state').select('key').where('key', 'like', `${FOLDER_COPY_KEY}%`).execute();
  let requests = 0;
  for (const { key } of marks) {
    if (isStopped()) break;
    requests += await settleFolderCopy(sync, Number(key.slice(FOLDER_COPY_KEY.length)));
  }
  return requests;
}

/**
 * Two computers that drop the same bytes into one project at once may both find
 * nothing and both create (the remote has no uniqueness to lean on). So after a
 * folder file's create, the project's files with that sha256 are listed again; of
 * several, the lowest id is the one file. A computer deletes only its own copy (this
 * one, made here from its folder a moment ago: same bytes, so nothing is lost), after
 * re-keying its local file (and its folder mapping) to the chosen one in the same
 * transaction that queues the delete: the folder keeps its file, nothing is uploaded
 * again, nothing is held. Copies made by others are never deleted here; their own
 * computers settle them the same way. Returns the requests made.
 */
async function settleFolderCopy(sync: SyncContext, ownId: number): Promise<number> {
  const key = `${FOLDER_COPY_KEY}${ownId}`;
  const done = () => sync.db.deleteFrom('sync_state').where('key', '=', key).execute();
  const local = await sync.db.selectFrom('private_files').select(['project_id', 'file_hash']).where('id', '=', ownId).executeTakeFirst();
  const deleting = await hasQueuedDelete(sync.db, 'private_file', ownId);
  // Gone here, or deleted in the folder (held for the user): that decision is the user's.
  if (!local?.file_hash || local.project_id === null || deleting) return done().then(() => 0);
  const query = { project: local.project_id, search: local.file_hash, limit: 100 };
  const listed = await getRemoteJson(sync, remotePath(sync, 'private_file'), query, 'private_file_list'); // busy: tried again next cycle
  if (!Array.isArray(listed)) return done().then(() => 1);
  const copies = await copiesInProject(sync, readRemoteList(sync.unreadable, 'private_file', listed), local.file_hash, local.project_id);
  const chosen = copies[0];
  // Alone, the chosen one, or no longer in this project (moved or deleted elsewhere): nothing to merge.
  if (!chosen || chosen.id === ownId || !copies.some((copy) => copy.id === ownId)) return done().then(() => 1);
  await writeAnnounced(sync.engine, { orgId: sync.orgId, by: BY_SYNC }, async (trx, track) => {
    await track.privateFile(ownId);
    await track.privateFile(chosen.id);
    const snapshot = (await snapshotRecord(trx, sync.engine, sync.orgId, 'private_file', ownId)) as Json | null;
    // Local edits still waiting (a rename in the folder) follow the file to the chosen one.
    const view = snapshot ? viewOf('private_file', snapshot) : {};
    const keep: RecordView = {};
    for (const field of await queuedUpdateFields(trx, 'private_file', ownId)) keep[field] = view[field];
    await rekey(trx, 'private_file', ownId, chosen.id, sync.folderRecords);
    await upsertPrivateFile(trx, sync.orgId, chosen, keep);
    await storeBase(trx, 'private_file', chosen.id, chosen);
    await insertOutboxRow(trx, sync.clock.now().toISOString(), { model: 'private_file', recordId: ownId, op: 'delete', fields: [] });
    await trx.deleteFrom('sync_state').where('key', '=', key).execute();
  });
  return 1;
}

/** Long enough for a body at a slow 32 KiB/s uplink, never under the usual 30 s. */
export const timeoutForBytes = (bytes: number) => Math.max(30_000, Math.ceil(bytes / 32_768) * 1000);

/** A private file above the chunk size goes up in parts, and so does one whose parted upload already began. */
async function goesUpInParts(sync: SyncContext, fileId: number, opId: string): Promise<boolean> {
  if (await sync.db.selectFrom('sync_uploads').select('op_id').where('op_id', '=', opId).executeTakeFirst()) return true;
  const row = await sync.db.selectFrom('private_files').select('filesize').where('id', '=', fileId).executeTakeFirst();
  return (row?.filesize ?? 0) > (sync.uploads ?? DEFAULT_UPLOAD_SETTINGS).chunkAboveBytes;
}

/**
 * A big private file goes up through the remote's chunked upload: start a session,
 * send parts 1..N from the blob, complete. The session id and the parts the remote
 * acknowledged are kept in sync_uploads, so after a crash or a cut connection the
 * upload resumes at the next part; a part sent again just replaces itself, and
 * completing again answers with the same file. Returns how many requests it made.
 */
async function pushChunkedCreate(
  sync: SyncContext,
  group: OutboxGroup,
  json: Json,
  createRow: OutboxRow,
  wasSent: boolean,
  isStopped: () => boolean,
  fromFolder: boolean,
  replaces: number | null = null,
): Promise<number> {
  const settings = sync.uploads ?? DEFAULT_UPLOAD_SETTINGS;
  const view = viewOf('private_file', json);
  const projectId = view.project as number | null;
  if (projectId !== null && isProvisional(projectId)) return 0; // its project has not reached the remote yet
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
      json: { title: String(view.title), filename: file.file_name, size: total, ...(projectId === null ? {} : { project: remoteUrl(sync, remotePath(sync, 'project', projectId)) }) },
      action: 'private_file_upload',
    });
    requests++;
    if (started.kind !== 'ok') return requests;
    const session = parseRemote('upload', started.body);
    if (!session.ok) {
      await retryUnreadableAnswer(sync, group, session.reason);
      return requests;
    }
    upload = { op_id: createRow.op_id, upload_id: session.record.upload_id, part_bytes: settings.partBytes, parts_done: 0, created_date: sync.clock.now().toISOString() };
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
      const sent = await send(
        sync,
        group,
        { method: 'PUT', path: apiPaths.fileUploadPart(sync.orgId, uploadId, part), bytes, action: 'private_file_upload', timeoutMs: timeoutForBytes(length) },
        { returnNotFound: true },
      );
      requests++;
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
  const completed = await send(sync, group, { method: 'POST', path: apiPaths.fileUploadComplete(sync.orgId, uploadId), action: 'private_file_create', timeoutMs: timeoutForBytes(total) }, { returnNotFound: true });
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

/**
 * A create was sent but its answer never came (timeout, reset, kill -9): find the
 * record on the remote before sending it again. Projects carry the client op id in
 * custom_data; other records are matched by their fields among the newest.
 */
async function findLostCreate(sync: SyncContext, group: OutboxGroup, createRow: OutboxRow): Promise<RemoteRecord | null> {
  const json = await localJson(sync, group.model, group.recordId);
  const view = json ? viewOf(group.model, json) : null;
  const list = async (query: Record<string, string | number>) => {
    const outcome = await sync.remote.request({ method: 'GET', path: remotePath(sync, group.model), query, action: 'default' });
    // A busy remote (429, 5xx) has not said the create is missing: creating again could make it twice.
    throwUnlessAnswered(outcome);
    // An answer that is no list (a captive portal's page) has not said the create is missing either.
    if (outcome.kind === 'ok' && !Array.isArray(outcome.body)) throw new RemoteBusyError(`the remote's answer could not be read (no list where one was asked for)`, undefined);
    return outcome.kind === 'ok' ? readRemoteList(sync.unreadable, group.model, outcome.body as unknown[]) : [];
  };
  switch (group.model) {
    case 'project': {
      const recent = await list({ ordering: '-created_date', limit: 50, fieldset: 'list' });
      const match = recent.find((project) => clientOpOf(project) === createRow.op_id);
      if (!match) return null;
      const detail = await sync.remote.request({ method: 'GET', path: remotePath(sync, 'project', match.id), action: 'project_detail' });
      throwUnlessAnswered(detail);
      return detail.kind === 'ok' ? readRemote(sync.unreadable, 'project', detail.body) : null;
    }
    case 'contact': {
      if (!view) return null;
      const recent = await list({ ordering: '-created_date', limit: 50 });
      return recent.find((contact) => sameJson(viewOf('contact', contact), view)) ?? null;
    }
    case 'event': {
      if (!view || json?.project_id == null) return null;
      const events = await list({ project: String(json.project_id), limit: 100 });
      // Two visits of one project may share a title: the schedule tells them apart too.
      const sameAs = (event: RemoteRecord) => LOST_EVENT_MATCH_FIELDS.every((field) => sameJson(viewOf('event', event)[field], view[field]));
      return events.find(sameAs) ?? null;
    }
    case 'webhook': {
      if (!view) return null;
      const webhooks = await list({ limit: 1000 });
      return webhooks.find((webhook) => sameJson(viewOf('webhook', webhook), view)) ?? null;
    }
    case 'private_file': {
      if (!view?.file_hash) return null;
      const files = await list({ search: String(view.file_hash), limit: 100 });
      return files.find((file) => file.file_hash === view.file_hash && file.title === view.title) ?? null;
    }
  }
}

