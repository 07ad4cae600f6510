// What sync's merge bases (`sync_records`, the field values both sides last agreed
// on) tell the other parts. Only sync reads the table; the watcher gets this
// through its FolderOutbox (main/watch/folder-outbox.ts), injected by the core.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { SyncedModel } from './sync-models.ts';

/** The contents hash each private file had when last read from the remote: bytes the remote is known to hold. Files never synced are absent. */
export async function remoteFileHashes(db: Kysely<Database>, fileIds: readonly number[]): Promise<Map<number, string | null>> {
  const known = new Map<number, string | null>();
  if (fileIds.length === 0) return known;
  const rows = await db.selectFrom('sync_records').select(['record_id', 'base']).where('model', '=', 'private_file').where('record_id', 'in', [...fileIds]).execute();
  for (const row of rows) {
    try {
      const hash = (JSON.parse(row.base) as { file_hash?: unknown }).file_hash;
      known.set(row.record_id, typeof hash === 'string' ? hash : null);
    } catch {
      known.set(row.record_id, null);
    }
  }
  return known;
}

/** Forgets what sync kept of a record removed from the replica: its merge base and its open conflicts. */
export async function forgetSyncedRecord(trx: Transaction<Database>, model: SyncedModel, id: number): Promise<void> {
  await trx.deleteFrom('sync_records').where('model', '=', model).where('record_id', '=', id).execute();
  await trx.deleteFrom('sync_conflicts').where('model', '=', model).where('record_id', '=', id).execute();
}
