// Removes a record from the replica, with its links and sync's bookkeeping of it:
// a deletion pulled from the remote, a sweep, or a pulled copy a re-keyed record
// replaces (record-ids.ts). What goes with each record is its model's (models/, `remove`).
import type { Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { SyncedModel } from './sync-models.ts';
import { syncModel } from './models/index.ts';
import { forgetSyncedRecord } from './merge-bases.ts';

export async function deleteReplicaRecord(trx: Transaction<Database>, model: SyncedModel, id: number): Promise<void> {
  await syncModel(model).remove(trx, id);
  await forgetSyncedRecord(trx, model, id);
}
