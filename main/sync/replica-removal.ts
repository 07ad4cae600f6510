// Removes a record from the replica, with its links and sync's bookkeeping of it:
// a deletion pulled from the remote, a sweep, or a pulled copy a re-keyed record
// replaces (record-ids.ts).
import type { Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { SyncedModel } from './sync-models.ts';

export async function deleteReplicaRecord(trx: Transaction<Database>, model: SyncedModel, id: number): Promise<void> {
  switch (model) {
    case 'project':
      await trx.deleteFrom('project_contacts').where('project_id', '=', id).execute();
      await trx.deleteFrom('projects').where('id', '=', id).execute();
      break;
    case 'contact':
      await trx.deleteFrom('project_contacts').where('contact_id', '=', id).execute();
      await trx.deleteFrom('contacts').where('id', '=', id).execute();
      break;
    case 'event':
      await trx.deleteFrom('events').where('id', '=', id).execute();
      break;
    case 'webhook':
      await trx.deleteFrom('webhooks').where('id', '=', id).execute();
      break;
    case 'private_file':
      // Its blob, if no other file shares it, is removed at the next start (removeStorageLeftovers).
      await trx.deleteFrom('private_files').where('id', '=', id).execute();
      break;
  }
  await trx.deleteFrom('sync_records').where('model', '=', model).where('record_id', '=', id).execute();
  await trx.deleteFrom('sync_conflicts').where('model', '=', model).where('record_id', '=', id).execute();
}
