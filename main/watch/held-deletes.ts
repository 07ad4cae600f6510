// A file deleted in a project folder is never deleted on the remote by itself
// (sync-lessons.md "Files"): the deletion is held, as an outbox row with status
// 'held' and its reason, listed by GET .../sync/pending/ and sent nowhere. The user
// confirms it (POST .../sync/pending/<id>/confirm/, or the agent's
// --confirm-deletes), which deletes the file through the engine so the outbox gets
// an ordinary delete; or restores it (POST .../restore/), which drops the hold and
// lets the file be written back into its folder.
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database, OutboxRow } from '../engine/store/tables.ts';
import type { EngineContext } from '../engine/context.ts';
import { deleteFile } from '../engine/files/file-service.ts';
import type { ChangeActor } from '../engine/changes/change-feed.ts';
import { ApiError } from '../engine/http/errors.ts';

type Db = Kysely<Database> | Transaction<Database>;

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
