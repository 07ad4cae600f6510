// Settling a conflict: the user keeps the local value, takes the remote one, or
// types a third. The choice is applied locally and, unless it is the remote's
// value already, queued to go up.
import type { Kysely, Transaction } from 'kysely';
import fs from 'node:fs';
import { type Clock, nowIso } from '../engine/clock.ts';
import { blobPath } from '../engine/files/blob-store.ts';
import { recordVersion, versionHashesOf } from '../engine/files/file-versions.ts';
import type { Database } from '../engine/store/tables.ts';
import { sameJson } from '../../shared/webhook-fields.ts';
import { ApiError, fieldError, notFound } from '../engine/http/errors.ts';
import { snapshotRecord } from '../engine/changes/record-snapshots.ts';
import { writeAnnounced } from '../engine/changes/tracked-write.ts';
import { byUser } from '../engine/changes/change-feed.ts';
import { dropFieldsFromOutbox, requeueFields } from './outbox.ts';
import type { SyncContext } from './sync-context.ts';
import type { RecordView, SyncedModel } from './sync-models.ts';
import { syncModel, viewOf } from './models/index.ts';

export type ConflictChoice = 'local' | 'remote' | 'value';

/** The two sides as the user was shown them, when the client sends them. */
export interface SeenSides {
  /**
   * A settlement never replaces a local edit made after the user looked: "local" keeps
   * the field's value as it is now, and a choice made on an older local value is refused (409).
   */
  localValue?: unknown;
  /**
   * A pull may bring a newer remote value into the open conflict after the user looked.
   * "Keep mine" or a typed value would replace it unseen, so that choice is refused (409)
   * and the user looks again. Taking the remote's value loses nothing there, and takes its newest.
   */
  remoteValue?: unknown;
}

export async function resolveConflict(sync: SyncContext, conflictId: number, choice: ConflictChoice, value: unknown, seen: SeenSides = {}): Promise<void> {
  const contents = await contentsConflictSides(sync, conflictId, choice);
  // The user's choice, made on this computer: announced as theirs, and queued for the remote by requeueFields below.
  await writeAnnounced(sync.engine, { orgId: sync.orgId, by: byUser(sync.localUserId) }, async (trx, track) => {
    const conflict = await trx.selectFrom('sync_conflicts').selectAll().where('id', '=', conflictId).executeTakeFirst();
    if (!conflict) throw notFound('No such conflict: it may have been settled already.');
    const model = conflict.model as SyncedModel;
    await track.record(model, conflict.record_id);
    const remoteValue = JSON.parse(conflict.remote_value) as unknown;
    const localValue = await currentLocalValue(trx, sync, model, conflict.record_id, conflict.field, JSON.parse(conflict.local_value) as unknown);
    if (seen.localValue !== undefined && !sameJson(seen.localValue, localValue)) {
      throw new ApiError(409, {
        detail: `The local value of ${conflict.field} changed after you looked at this conflict; it is now ${JSON.stringify(localValue)}. Look at the conflict again and choose.`,
      });
    }
    if (choice !== 'remote' && seen.remoteValue !== undefined && !sameJson(seen.remoteValue, remoteValue)) {
      throw new ApiError(409, {
        detail: `The remote's value of ${conflict.field} changed after you looked at this conflict; it is now ${JSON.stringify(remoteValue)}. Look at the conflict again and choose.`,
      });
    }
    const chosen = choice === 'local' ? localValue : choice === 'remote' ? remoteValue : checkValue(model, conflict.field, value);
    if (contents) await applyContentsChoice(trx, sync, conflict.record_id, contents, chosen);
    else await syncModel(model).applyView(trx, conflict.record_id, { [conflict.field]: chosen });
    const record = await trx.selectFrom('sync_records').select('base').where('model', '=', model).where('record_id', '=', conflict.record_id).executeTakeFirst();
    if (record) {
      const base = JSON.parse(record.base) as RecordView;
      base[conflict.field] = remoteValue; // both sides have now seen the remote's value
      await trx.updateTable('sync_records').set({ base: JSON.stringify(base) }).where('model', '=', model).where('record_id', '=', conflict.record_id).execute();
    }
    await trx.deleteFrom('sync_conflicts').where('id', '=', conflict.id).execute();
    if (sameJson(chosen, remoteValue)) await dropFieldsFromOutbox(trx, model, conflict.record_id, [conflict.field]);
    else {
      await dropFieldsFromOutbox(trx, model, conflict.record_id, [conflict.field]);
      await requeueFields(trx, sync.clock, model, conflict.record_id, [conflict.field]);
    }
  });
}

/** A contents conflict's two sides, each as the hash, size and type its bytes have here. */
interface ContentsSides {
  local: string;
  remote: string;
  /** Size of the remote's bytes, fetched before the choice is applied. */
  remoteSize: number | null;
}

/**
 * A contents (`file_hash`) conflict: "remote" or "local" only (a typed hash names no
 * bytes), and the remote's bytes are fetched before anything changes, so whichever
 * side is chosen, the other stays here as a version that downloads. Null for any
 * other conflict.
 */
async function contentsConflictSides(sync: SyncContext, conflictId: number, choice: ConflictChoice): Promise<ContentsSides | null> {
  const conflict = await sync.db.selectFrom('sync_conflicts').selectAll().where('id', '=', conflictId).executeTakeFirst();
  if (!conflict || syncModel(conflict.model as SyncedModel).contents?.field !== conflict.field) return null;
  if (choice === 'value') throw fieldError('choice', 'A contents conflict is settled with "local" (the bytes on this computer) or "remote" (the remote\'s bytes).');
  const file = await sync.db.selectFrom('private_files').selectAll().where('id', '=', conflict.record_id).executeTakeFirst();
  const remote = JSON.parse(conflict.remote_value) as string | null;
  if (!file?.file_hash || typeof remote !== 'string') return null;
  const remoteBlob = blobPath(sync.engine.store.fileRoot, remote);
  if (!fs.existsSync(remoteBlob)) {
    try {
      if (!sync.engine.fetchMissingBlob) throw new Error('nothing here fetches contents');
      await sync.engine.fetchMissingBlob({ ...file, file_hash: remote }, { requestClass: 'user' });
    } catch (error) {
      // Without the remote's bytes, "remote" would leave this computer with a hash it cannot show.
      if (choice === 'remote') throw new ApiError(503, { detail: `The remote's contents of "${file.title}" could not be fetched (${(error as Error).message}). Try again when the remote can be reached.` });
    }
  }
  const size = fs.existsSync(remoteBlob) ? fs.statSync(remoteBlob).size : null;
  return { local: file.file_hash, remote, remoteSize: size };
}

/**
 * Makes the record's contents the chosen side's, keeping the other side's bytes as a
 * version (when they are here): disk follows (the folder copy takes the record's new
 * contents), the blob is kept, and the push sends "local" up or drops the change for "remote".
 */
async function applyContentsChoice(trx: Transaction<Database>, sync: SyncContext, fileId: number, sides: ContentsSides, chosen: unknown): Promise<void> {
  const file = await trx.selectFrom('private_files').selectAll().where('id', '=', fileId).executeTakeFirstOrThrow();
  const now = nowIso(sync.clock);
  const versions = new Set(await versionHashesOf(trx, fileId));
  if (chosen === sides.remote && file.file_hash !== sides.remote) {
    if (!versions.has(file.file_hash!)) await recordVersion(trx, file, now, sync.localUserId);
    await trx.updateTable('private_files').set({ file_hash: sides.remote, filesize: sides.remoteSize ?? file.filesize }).where('id', '=', fileId).execute();
  } else if (chosen !== sides.remote && !versions.has(sides.remote) && sides.remoteSize !== null) {
    // "local": the remote's bytes stay here as a version (the remote keeps them as its own version too).
    await recordVersion(trx, { ...file, file_hash: sides.remote, filesize: sides.remoteSize }, now, sync.localUserId);
  }
}

/** The field's value in the replica now (the conflict row's copy only if the record is gone). */
async function currentLocalValue(trx: Transaction<Database>, sync: SyncContext, model: SyncedModel, id: number, field: string, fallback: unknown): Promise<unknown> {
  const snapshot = await snapshotRecord(trx, sync.engine, sync.orgId, model, id);
  return snapshot ? (viewOf(model, snapshot)[field] ?? null) : fallback;
}

/** A typed value must be valid for its field, as a write through the API would be (its model's rules). */
function checkValue(model: SyncedModel, field: string, value: unknown): unknown {
  if (value === undefined) throw fieldError('value', 'Give the value to keep when choice is "value".');
  return syncModel(model).checkValue(field, value);
}

/** The two sides of an edit in place made on a folder copy whose file took other contents meanwhile. */
export interface FolderContentsSides {
  /** The contents the folder copy was made from (its mapping's hash). */
  folderBase: string;
  /** The file's contents just before the edit was taken. */
  before: string;
  /** The contents the edit brings. */
  local: string;
}

/**
 * An edit made in a project folder on top of contents the remote has since replaced
 * (the agent was stopped, or a program had the file open while the new contents
 * waited): both sides changed, so it is a conflict on `file_hash`, not an upload
 * over the colleague's bytes. Recorded only when the contents the edit replaces are
 * the remote's (the merge base names them): a change made here in the app is simply
 * followed by the later edit, as before. Called before the edit is written, so its
 * upload is held from the start. True when a conflict was recorded.
 */
export async function recordFolderContentsConflict(db: Kysely<Database>, clock: Clock, fileId: number, sides: FolderContentsSides): Promise<boolean> {
  if (sides.before === sides.folderBase || sides.before === sides.local) return false;
  return db.transaction().execute(async (trx) => {
    const record = await trx.selectFrom('sync_records').select('base').where('model', '=', 'private_file').where('record_id', '=', fileId).executeTakeFirst();
    if (!record || (JSON.parse(record.base) as RecordView).file_hash !== sides.before) return false;
    const existing = await trx.selectFrom('sync_conflicts').select('id').where('model', '=', 'private_file').where('record_id', '=', fileId).where('field', '=', 'file_hash').executeTakeFirst();
    if (existing) {
      await trx.updateTable('sync_conflicts').set({ local_value: JSON.stringify(sides.local), remote_value: JSON.stringify(sides.before) }).where('id', '=', existing.id).execute();
      return true;
    }
    await trx
      .insertInto('sync_conflicts')
      .values({
        model: 'private_file',
        record_id: fileId,
        field: 'file_hash',
        local_value: JSON.stringify(sides.local),
        remote_value: JSON.stringify(sides.before),
        base_value: JSON.stringify(sides.folderBase),
        created_date: nowIso(clock),
      })
      .execute();
    return true;
  });
}

/** A field that waits for the user: changed here and on the remote to different values. */
export interface OpenConflict {
  id: number;
  model: SyncedModel;
  recordId: number;
  field: string;
}

/** Every conflict still open, oldest first (the core's activity log notes the new ones). */
export async function listOpenConflicts(db: Kysely<Database>): Promise<OpenConflict[]> {
  const rows = await db.selectFrom('sync_conflicts').select(['id', 'model', 'record_id', 'field']).orderBy('id').execute();
  return rows.map((row) => ({ id: row.id, model: row.model as SyncedModel, recordId: row.record_id, field: row.field }));
}
