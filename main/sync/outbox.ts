// The outbox: every local write to a synced record adds a row in the write's own
// transaction (so kill -9 at any moment loses no acknowledged write). Rows carry a
// client-made op id and their sequence number (the row id).
//
// This module is the one that reads and writes `sync_outbox` (issue 13): sync's push,
// pull, replica, conflicts, engine and routes go through its functions; the folder
// watcher gets its held deletes through it (injected by the composer,
// main/core/agent-folders.ts), and the core counts held deletes through it.
import { randomUUID } from 'node:crypto';
import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { OutboxRow, OutboxStatus } from './sync-tables.ts';
import type { ChangeCapture } from '../engine/changes/tracked-write.ts';
import type { Clock } from '../engine/clock.ts';
import type { EngineContext } from '../engine/context.ts';
import type { ChangeActor } from '../engine/changes/change-feed.ts';
import { deleteFile } from '../engine/files/file-service.ts';
import { ApiError } from '../engine/http/errors.ts';
import { SYNCED_MODELS, type RecordView, type SyncedModel, changedFields } from './sync-models.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Statuses of changes the push sends: held and parked ones wait for the user. */
const PUSHABLE: OutboxStatus[] = ['pending', 'in_flight'];

/**
 * `viewOf`: each model's view (models/index.ts), handed in so the outbox stays below
 * the models, which use it (their records' queued changes).
 */
export function createOutboxCapture(clock: Clock, viewOf: (model: SyncedModel, json: RecordView) => RecordView, onQueued: () => void): ChangeCapture {
  return {
    phase: 'deliver',
    async capture(trx, _orgId, changes) {
      const now = clock.now().toISOString();
      let queued = 0;
      for (const change of changes) {
        const model = change.model as SyncedModel;
        if (!SYNCED_MODELS.includes(model)) continue;
        const op = change.before === null ? 'create' : change.after === null ? 'delete' : 'update';
        const after = op === 'update' ? viewOf(model, change.after!) : {};
        const fields = op === 'update' ? changedFields(viewOf(model, change.before!), after) : [];
        if (op === 'update' && fields.length === 0) continue;
        await insertOutboxRow(trx, now, { model, recordId: change.id, op, fields });
        if (op === 'update') await followLocalEdit(trx, model, change.id, fields, after);
        queued++;
      }
      if (queued > 0) setImmediate(onQueued); // after the commit
    },
  };
}

/**
 * An open conflict shows the field's local value as it is now: a local edit made
 * after the conflict was raised becomes the conflict's local side, so settling it
 * "local" keeps that edit and never an older value (issue 19, finding 1).
 */
async function followLocalEdit(trx: Transaction<Database>, model: SyncedModel, id: number, fields: readonly string[], after: RecordView): Promise<void> {
  for (const field of fields) {
    await trx
      .updateTable('sync_conflicts')
      .set({ local_value: JSON.stringify(after[field] ?? null) })
      .where('model', '=', model)
      .where('record_id', '=', id)
      .where('field', '=', field)
      .execute();
  }
}

/** Queues one change, due now, with a fresh client-made op id. */
export async function insertOutboxRow(
  trx: Transaction<Database>,
  now: string,
  change: { model: SyncedModel; recordId: number; op: 'create' | 'update' | 'delete'; fields: readonly string[] },
): Promise<void> {
  await trx
    .insertInto('sync_outbox')
    .values({
      op_id: randomUUID(),
      model: change.model,
      record_id: change.recordId,
      op: change.op,
      fields: JSON.stringify(change.fields),
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      sent_at: null,
      last_error: null,
      created_date: now,
    })
    .execute();
}

/** Queues fields of a record to go up (again): held back by a conflict, carried past a create, or settled by the user. */
export async function requeueFields(trx: Transaction<Database>, clock: Clock, model: SyncedModel, recordId: number, fields: readonly string[]): Promise<void> {
  await insertOutboxRow(trx, clock.now().toISOString(), { model, recordId, op: 'update', fields });
}

/** All queued changes to one record, pushed as one request. */
export interface OutboxGroup {
  model: SyncedModel;
  recordId: number;
  rows: OutboxRow[];
  /** The earliest sequence number: groups go out in the order their first change was made. */
  firstSeq: number;
  created: boolean;
  deleted: boolean;
  fields: Set<string>;
}

/** Queued rows by record, groups in the order their first change was made. */
function groupOutbox(rows: readonly OutboxRow[]): OutboxGroup[] {
  const groups = new Map<string, OutboxGroup>();
  for (const row of rows) {
    const key = `${row.model}:${row.record_id}`;
    let group = groups.get(key);
    if (!group) {
      group = { model: row.model as SyncedModel, recordId: row.record_id, rows: [], firstSeq: row.id, created: false, deleted: false, fields: new Set() };
      groups.set(key, group);
    }
    group.rows.push(row);
    if (row.op === 'create') group.created = true;
    if (row.op === 'delete') group.deleted = true;
    for (const field of JSON.parse(row.fields) as string[]) group.fields.add(field);
  }
  return [...groups.values()].sort((a, b) => a.firstSeq - b.firstSeq);
}

export async function countOutbox(db: Db): Promise<number> {
  const row = await db.selectFrom('sync_outbox').select((builder) => builder.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Whether anything waits to be pushed or is being pushed (held and parked changes wait for the user). */
export async function hasChangesToPush(db: Db): Promise<boolean> {
  const row = await db.selectFrom('sync_outbox').select('id').where('status', 'in', PUSHABLE).limit(1).executeTakeFirst();
  return row !== undefined;
}

// ---- what is queued --------------------------------------------------------

/** Every change due now (one the push sends, its retry time reached), grouped by record. */
export async function dueGroups(db: Db, now: string): Promise<OutboxGroup[]> {
  const rows = await db.selectFrom('sync_outbox').selectAll().where('status', 'in', PUSHABLE).where('next_attempt_at', '<=', now).orderBy('id').execute();
  return groupOutbox(rows);
}

/** A record's queued changes, oldest first; `pushableOnly` leaves out held and parked ones. */
export async function rowsOfRecord(db: Db, model: SyncedModel, recordId: number, { pushableOnly = false } = {}): Promise<OutboxRow[]> {
  let query = db.selectFrom('sync_outbox').selectAll().where('model', '=', model).where('record_id', '=', recordId);
  if (pushableOnly) query = query.where('status', 'in', PUSHABLE);
  return query.orderBy('id').execute();
}

/** A record's queued changes as one group (none when nothing is queued); `pushableOnly` leaves out held and parked ones. */
export async function groupOfRecord(db: Db, model: SyncedModel, recordId: number, options: { pushableOnly?: boolean } = {}): Promise<OutboxGroup | undefined> {
  return groupOutbox(await rowsOfRecord(db, model, recordId, options))[0];
}

/** The fields of a record's changes queued after `group` was read. */
export async function fieldsQueuedAfter(db: Db, group: OutboxGroup): Promise<string[]> {
  const lastId = Math.max(...group.rows.map((row) => row.id));
  const later = await db.selectFrom('sync_outbox').select('fields').where('model', '=', group.model).where('record_id', '=', group.recordId).where('id', '>', lastId).execute();
  return later.flatMap((row) => JSON.parse(row.fields) as string[]);
}

/** The fields of a record's queued updates. */
export async function queuedUpdateFields(db: Db, model: SyncedModel, recordId: number): Promise<string[]> {
  const rows = await db.selectFrom('sync_outbox').select('fields').where('model', '=', model).where('record_id', '=', recordId).where('op', '=', 'update').execute();
  return rows.flatMap((row) => JSON.parse(row.fields) as string[]);
}

/** Whether the record has any change queued, held or parked. */
export async function hasQueuedChanges(db: Db, model: SyncedModel, recordId: number): Promise<boolean> {
  return (await db.selectFrom('sync_outbox').select('id').where('model', '=', model).where('record_id', '=', recordId).executeTakeFirst()) !== undefined;
}

/** Whether the record's deletion is queued or held. */
export async function hasQueuedDelete(db: Db, model: SyncedModel, recordId: number): Promise<boolean> {
  const row = await db.selectFrom('sync_outbox').select('id').where('model', '=', model).where('record_id', '=', recordId).where('op', '=', 'delete').executeTakeFirst();
  return row !== undefined;
}

/** Whether a change with this client-made op id is still queued. */
export async function isOpQueued(db: Db, opId: string): Promise<boolean> {
  return (await db.selectFrom('sync_outbox').select('id').where('op_id', '=', opId).executeTakeFirst()) !== undefined;
}

/** A condition on a query over `sync_uploads`: the upload's op (its create) has left the outbox. */
export function opNoLongerQueued({ not, exists, selectFrom }: ExpressionBuilder<Database, 'sync_uploads'>) {
  return not(exists(selectFrom('sync_outbox').select('id').whereRef('sync_outbox.op_id', '=', 'sync_uploads.op_id')));
}

// ---- a push's marks ----------------------------------------------------------
// Each request marks its group's rows as it goes out and as its answer comes back;
// the rows go once the remote has the changes (or they have nothing left to send).

type Rows = readonly Pick<OutboxRow, 'id'>[];
const idsOf = (rows: Rows) => rows.map((row) => row.id);

/** Recorded before the request goes out: after a crash, a create marked sent is looked for before it is sent again. */
export async function markInFlight(db: Db, rows: Rows, sentAt: string): Promise<void> {
  await db.updateTable('sync_outbox').set({ status: 'in_flight', sent_at: sentAt }).where('id', 'in', idsOf(rows)).execute();
}

/**
 * Back to waiting for the next push. What is given is recorded; `unsent` clears
 * sent_at, for a request the remote surely did not apply (otherwise sent_at stays,
 * and a create is looked for on the remote before it is sent again).
 */
export async function markPending(db: Db, rows: Rows, after: { attempts?: number; error?: string; retryAt?: string; unsent?: boolean } = {}): Promise<void> {
  await db
    .updateTable('sync_outbox')
    .set({
      status: 'pending',
      ...(after.attempts === undefined ? {} : { attempts: after.attempts }),
      ...(after.error === undefined ? {} : { last_error: after.error }),
      ...(after.retryAt === undefined ? {} : { next_attempt_at: after.retryAt }),
      ...(after.unsent ? { sent_at: null } : {}),
    })
    .where('id', 'in', idsOf(rows))
    .execute();
}

/** The remote will not take the change: it stays, with the reason, until the record is edited again. */
export async function markParked(db: Db, rows: Rows, attempts: number, error: string): Promise<void> {
  await db.updateTable('sync_outbox').set({ status: 'parked', attempts, last_error: error, sent_at: null }).where('id', 'in', idsOf(rows)).execute();
}

/**
 * The request reached the remote but its answers never showed the write (another
 * record, again and again): parked with the reason, and still marked sent, so a
 * create tried again is first looked for there.
 */
export async function markParkedAfterSending(db: Db, rows: Rows, error: string, attempts: number): Promise<void> {
  await db.updateTable('sync_outbox').set({ status: 'parked', attempts, last_error: error }).where('id', 'in', idsOf(rows)).execute();
}

/**
 * The user asks to send a parked change again (the Sync screen's Retry): it and the
 * other parked changes of its record go back to pending, due now, with a fresh count
 * of attempts. Anything but a parked change is refused with why.
 */
export async function retryParked(db: Kysely<Database>, outboxId: number, now: string): Promise<OutboxRow> {
  const row = await db.selectFrom('sync_outbox').selectAll().where('id', '=', outboxId).executeTakeFirst();
  if (!row) throw new ApiError(404, { detail: 'No such pending change: it may have reached the remote already.' });
  if (row.status !== 'parked') throw new ApiError(409, { detail: 'Only a change the remote refused can be retried; this one goes out on its own.' });
  await db
    .updateTable('sync_outbox')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now })
    .where('model', '=', row.model)
    .where('record_id', '=', row.record_id)
    .where('status', '=', 'parked')
    .execute();
  return row;
}

/** The remote has the changes, or they have nothing left to send. */
export async function removeFromOutbox(db: Db, rows: Rows): Promise<void> {
  await db.deleteFrom('sync_outbox').where('id', 'in', idsOf(rows)).execute();
}

// ---- rows that change under a pull, a settlement or a new id ----------------

/** Fields that no longer need to go up (both sides agree, or the user settled them): dropped from the record's queued updates, and an update left with none goes. */
export async function dropFieldsFromOutbox(trx: Transaction<Database>, model: SyncedModel, recordId: number, fields: readonly string[]): Promise<void> {
  const rows = await trx.selectFrom('sync_outbox').selectAll().where('model', '=', model).where('record_id', '=', recordId).where('op', '=', 'update').execute();
  for (const row of rows) {
    const left = (JSON.parse(row.fields) as string[]).filter((field) => !fields.includes(field));
    if (left.length === 0) await trx.deleteFrom('sync_outbox').where('id', '=', row.id).execute();
    else await trx.updateTable('sync_outbox').set({ fields: JSON.stringify(left) }).where('id', '=', row.id).execute();
  }
}

/** A record created here whose remote copy came by another way (a new project's contacts): its create is done. */
export async function dropQueuedCreate(db: Db, model: SyncedModel, recordId: number): Promise<void> {
  await db.deleteFrom('sync_outbox').where('model', '=', model).where('record_id', '=', recordId).where('op', '=', 'create').execute();
}

/** A record created here took the remote's id: its queued changes follow it. */
export async function rekeyOutbox(trx: Transaction<Database>, model: SyncedModel, from: number, to: number): Promise<void> {
  await trx.updateTable('sync_outbox').set({ record_id: to }).where('model', '=', model).where('record_id', '=', from).execute();
}

// ---- changes that wait only for a conflict --------------------------------
// An update whose every field has an open conflict goes nowhere until the user
// settles them (the push leaves it where it is; settling queues a fresh change).
// The status, the loop's schedule, the harness and the pending list all treat it
// as waiting for the user, through waitsOnlyForConflicts.

/** The fields with an open conflict, as keys of conflictKey. */
type ConflictedFields = ReadonlySet<string>;

const conflictKey = (model: string, recordId: number, field: string) => `${model}:${recordId}:${field}`;

async function conflictedFields(db: Db): Promise<ConflictedFields> {
  const conflicts = await db.selectFrom('sync_conflicts').select(['model', 'record_id', 'field']).execute();
  return new Set(conflicts.map((conflict) => conflictKey(conflict.model, conflict.record_id, conflict.field)));
}

function waitsOnlyForConflicts(row: Pick<OutboxRow, 'model' | 'record_id' | 'op' | 'fields'>, conflicted: ConflictedFields): boolean {
  const fields = JSON.parse(row.fields) as string[];
  return row.op === 'update' && fields.length > 0 && fields.every((field) => conflicted.has(conflictKey(row.model, row.record_id, field)));
}

/** Queued changes that will still go out on their own: not parked, not held deletes, not held only by open conflicts. */
export async function countChangesStillMoving(db: Db): Promise<number> {
  const rows = await db.selectFrom('sync_outbox').selectAll().where('status', 'not in', ['parked', 'held']).execute();
  const conflicted = await conflictedFields(db);
  return rows.filter((row) => !waitsOnlyForConflicts(row, conflicted)).length;
}

/**
 * When the next queued change can go out. A change that waits only for conflicts is
 * never due: counting it would run a cycle (a whole pull) every 50 ms until the user
 * settles it.
 */
export async function nextDueAt(db: Db): Promise<string | null> {
  const rows = await db.selectFrom('sync_outbox').select(['model', 'record_id', 'op', 'fields', 'next_attempt_at']).where('status', '=', 'pending').orderBy('next_attempt_at').execute();
  if (rows.length === 0) return null;
  const conflicted = await conflictedFields(db);
  return rows.find((row) => !waitsOnlyForConflicts(row, conflicted))?.next_attempt_at ?? null;
}

/** A queued change as the pending list shows it. */
export type QueuedChange = OutboxRow & { waitsOnlyForConflicts: boolean };

/** Every queued change, oldest first. */
export async function loadOutbox(db: Db): Promise<QueuedChange[]> {
  const rows = await db.selectFrom('sync_outbox').selectAll().orderBy('id').execute();
  const conflicted = await conflictedFields(db);
  return rows.map((row) => ({ ...row, waitsOnlyForConflicts: waitsOnlyForConflicts(row, conflicted) }));
}

// ---- held deletes ---------------------------------------------------------
// A file deleted in a project folder is never deleted on the remote by itself
// (sync-lessons.md "Files"): the deletion is held, as an outbox row with status
// 'held' and its reason, listed by GET .../sync/pending/ and sent nowhere. The user
// confirms it (POST .../sync/pending/<id>/confirm/, or the agent's
// --confirm-deletes), which deletes the file through the engine so the outbox gets
// an ordinary delete; or restores it (POST .../restore/), which drops the hold and
// lets the file be written back into its folder.

/** Holds the deletion of a private file, once: a second hold of the same file keeps the first. Returns the outbox row id. */
export async function holdDelete(db: Db, fileId: number, reason: string, now: string): Promise<number> {
  const existing = await heldDeleteOf(db, fileId);
  if (existing) return existing.id;
  const row = await db
    .insertInto('sync_outbox')
    .values({
      op_id: randomUUID(),
      model: 'private_file',
      record_id: fileId,
      op: 'delete',
      fields: '[]',
      status: 'held',
      attempts: 0,
      next_attempt_at: now,
      sent_at: null,
      last_error: reason,
      created_date: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function heldDeleteOf(db: Db, fileId: number): Promise<OutboxRow | undefined> {
  return db
    .selectFrom('sync_outbox')
    .selectAll()
    .where('model', '=', 'private_file')
    .where('record_id', '=', fileId)
    .where('op', '=', 'delete')
    .where('status', '=', 'held')
    .executeTakeFirst();
}

/** The file is back (its bytes reappeared in a project folder): its deletion is no longer wanted. */
export async function releaseHeldDelete(db: Db, fileId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('sync_outbox')
    .where('model', '=', 'private_file')
    .where('record_id', '=', fileId)
    .where('op', '=', 'delete')
    .where('status', '=', 'held')
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

async function heldRow(db: Kysely<Database>, outboxId: number): Promise<OutboxRow> {
  const row = await db.selectFrom('sync_outbox').selectAll().where('id', '=', outboxId).executeTakeFirst();
  if (!row) throw new ApiError(404, { detail: 'No such pending change.' });
  if (row.status !== 'held' || row.op !== 'delete' || row.model !== 'private_file') {
    throw new ApiError(409, { detail: 'Only a held deletion can be confirmed or restored; this change goes out on its own.' });
  }
  return row;
}

/** Turns a held deletion into a real one, through the engine (so the outbox gets an ordinary delete). */
export async function confirmHeldDelete(context: EngineContext, outboxId: number, by: ChangeActor): Promise<{ fileId: number; deleted: boolean }> {
  const row = await heldRow(context.db, outboxId);
  const file = await context.db.selectFrom('private_files').selectAll().where('id', '=', row.record_id).executeTakeFirst();
  if (file) await deleteFile(context, file, by);
  await context.db.deleteFrom('sync_outbox').where('id', '=', row.id).execute();
  return { fileId: row.record_id, deleted: file !== undefined };
}

/** Keeps the file after all: the hold goes, and the project folder gets the file back. */
export async function restoreHeldDelete(context: EngineContext, outboxId: number): Promise<{ fileId: number }> {
  const row = await heldRow(context.db, outboxId);
  await context.db.deleteFrom('sync_outbox').where('id', '=', row.id).execute();
  return { fileId: row.record_id };
}

/** Holds of files that no longer exist (deleted since, a crash between a confirm's two steps) mean nothing: dropped at start. */
export async function dropStaleHolds(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('sync_outbox')
    .where('model', '=', 'private_file')
    .where('status', '=', 'held')
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('private_files').select('id').whereRef('private_files.id', '=', 'sync_outbox.record_id'))))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function countHeldDeletes(db: Kysely<Database>): Promise<number> {
  const held = await db
    .selectFrom('sync_outbox')
    .select((builder) => builder.fn.countAll<number>().as('count'))
    .where('status', '=', 'held')
    .executeTakeFirstOrThrow();
  return Number(held.count);
}

/** Held deletions of private files, for the folder status: at most `limit`. */
export async function listHeldFileDeletes(db: Kysely<Database>, limit: number): Promise<Array<{ id: number; record_id: number; last_error: string | null }>> {
  return db.selectFrom('sync_outbox').select(['id', 'record_id', 'last_error']).where('model', '=', 'private_file').where('status', '=', 'held').limit(limit).execute();
}

/** A condition on `private_files`: nothing of the file waits in the outbox (no create, change, delete or hold): its contents here are the synced ones. */
export function hasNoQueuedChange({ not, exists, selectFrom }: ExpressionBuilder<Database, 'private_files'>) {
  return not(
    exists(
      selectFrom('sync_outbox')
        .select('id')
        .where('sync_outbox.model', '=', 'private_file')
        .whereRef('sync_outbox.record_id', '=', 'private_files.id'),
    ),
  );
}

/** Private file creates still waiting to reach the remote, in queue order: at most `limit` after the entry `afterId` (the watcher finds which came from its folders). */
export async function listFileCreates(db: Kysely<Database>, afterId: number, limit: number) {
  return db
    .selectFrom('sync_outbox')
    .select(['id', 'record_id', 'status', 'last_error'])
    .where('model', '=', 'private_file')
    .where('op', '=', 'create')
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Which of these private files have a deletion queued or held. */
export async function filesWithQueuedDelete(db: Kysely<Database>, fileIds: readonly number[]): Promise<Set<number>> {
  if (fileIds.length === 0) return new Set();
  const rows = await db.selectFrom('sync_outbox').select('record_id').where('model', '=', 'private_file').where('op', '=', 'delete').where('record_id', 'in', [...fileIds]).execute();
  return new Set(rows.map((row) => row.record_id));
}

/** Which of these private files have anything waiting in the outbox (a create, change, delete or hold). */
export async function filesWithQueuedChange(db: Kysely<Database>, fileIds: readonly number[]): Promise<Set<number>> {
  if (fileIds.length === 0) return new Set();
  const rows = await db.selectFrom('sync_outbox').select('record_id').where('model', '=', 'private_file').where('record_id', 'in', [...fileIds]).execute();
  return new Set(rows.map((row) => row.record_id));
}
