// Writes what the remote says into the local replica, bypassing the outbox (a
// pulled change must not be pushed back). How each record is written is its
// model's (models/, `store`); the org's reference data is replica-rows.ts's, and
// re-keying records created offline is record-ids.ts's.
import type { Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { RecordView, SyncedModel } from './sync-models.ts';
import type { RemoteRecord } from './remote-records.ts';
import type { SyncContext } from './sync-context.ts';
import type { SharingOrg } from './record-orgs.ts';
import type { Clock } from '../engine/clock.ts';
import { syncModel } from './models/index.ts';

// The core's local work finds a re-keyed record's id through here.
export { currentIdOf } from './record-ids.ts';

/**
 * Writes a record the remote sent (a pull, a write's answer) into the replica;
 * `keep` holds view values of fields with local changes still waiting. `record`
 * was read as `model` (remote-records.ts), which is what the models' casts rely on.
 */
export async function writeRemoteRecord(
  trx: Transaction<Database>,
  sync: Pick<SyncContext, 'orgId' | 'localUserId'> & { clock?: Clock },
  model: SyncedModel,
  record: RemoteRecord,
  keep: RecordView,
  sharedBy: SharingOrg | null = null,
): Promise<void> {
  await syncModel(model).store({ trx, sync, keep, sharedBy }, record);
}
