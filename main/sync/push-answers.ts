// A write's answer into the replica (push.ts): the record re-keyed from its
// provisional id after a create, its merge base, the values the remote did not take
// (kept as conflicts that say so), and records the create made too (a new project's
// contacts made offline: models/project.ts).
import type { Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import { snapshotRecord } from '../engine/changes/record-snapshots.ts';
import { writeAnnounced } from '../engine/changes/tracked-write.ts';
import { BY_SYNC } from '../engine/changes/change-feed.ts';
import { sameJson } from '../../shared/webhook-fields.ts';
import { type OutboxGroup, fieldsQueuedAfter, insertOutboxRow, removeFromOutbox, requeueFields } from './outbox.ts';
import type { RecordView, SyncedModel } from './sync-models.ts';
import { syncModel, viewOf } from './models/index.ts';
import type { SyncContext } from './sync-context.ts';
import { writeRemoteRecord } from './replica.ts';
import { rekey } from './record-ids.ts';
import type { RemoteRecord } from './remote-records.ts';
import type { LocalRecord, RequestBody } from './push-requests.ts';
import { markFolderCopy } from './sync-state.ts';

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
export function valuesNotTaken(model: SyncedModel, sentJson: LocalRecord, body: RequestBody, fields: readonly string[], answer: RemoteRecord): string[] {
  const sent = viewOf(model, sentJson);
  const answered = viewOf(model, answer);
  return fields.filter((field) => field in body && answerShows(answer, field) && !sameJson(sent[field], answered[field]));
}

/** Values of a record's changes queued after the group was read: they stay local until their own push. */
async function laterLocalValues(trx: Transaction<Database>, group: OutboxGroup, view: RecordView): Promise<RecordView> {
  const keep: RecordView = {};
  for (const field of await fieldsQueuedAfter(trx, group)) keep[field] = view[field];
  return keep;
}

export async function storeBase(trx: Transaction<Database>, model: SyncedModel, id: number, remoteJson: RemoteRecord): Promise<void> {
  const row = { model, record_id: id, base: JSON.stringify(viewOf(model, remoteJson)), remote_modified: remoteJson.modified_date ?? null };
  await trx.insertInto('sync_records').values(row).onConflict((conflict) => conflict.columns(['model', 'record_id']).doUpdateSet(row)).execute();
}

/** `carry`: fields the create could not send (a chunked upload takes no tags); they keep their local values and go up as a PATCH. */
/** `replaces`: the remote id of a file whose new contents this create carried (pushContentsChange); its deletion is queued with the re-key. */
/** `sentBody`: the create's JSON body, when its answer is to be checked for the values sent (a field it did not take becomes a conflict, as for an update). */
export async function finishCreate(
  sync: SyncContext,
  group: OutboxGroup,
  remoteJson: RemoteRecord,
  carry: readonly string[] = [],
  folderCopy = false,
  replaces: number | null = null,
  sentBody: RequestBody | null = null,
): Promise<void> {
  await writeAnnounced(sync.engine, { orgId: sync.orgId, by: BY_SYNC }, async (trx, track) => {
    // Re-keyed: the local id goes away and the remote's takes its place.
    await track.record(group.model, group.recordId);
    await track.record(group.model, remoteJson.id);
    // Made here from a project folder: its race check (settleFolderCopy) is due, even after a kill.
    if (folderCopy) await markFolderCopy(trx, remoteJson.id, String(remoteJson.file_hash ?? ''));
    const local = (await snapshotRecord(trx, sync.engine, sync.orgId, group.model, group.recordId)) as LocalRecord | null;
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
    await syncModel(group.model).adoptCreated?.(
      { trx, sync, rekey: (model, from, to) => rekey(trx, model, from, to, sync.folderRecords), storeBase: (model, id, remote) => storeBase(trx, model, id, remote) },
      local,
      remoteJson,
    );
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
export async function finishUpdate(sync: SyncContext, group: OutboxGroup, remoteJson: RemoteRecord, sentFields: string[], notTaken: readonly string[] = []): Promise<void> {
  await writeAnnounced(sync.engine, { orgId: sync.orgId, by: BY_SYNC }, async (trx, track) => {
    await track.record(group.model, group.recordId);
    const local = (await snapshotRecord(trx, sync.engine, sync.orgId, group.model, group.recordId)) as LocalRecord | null;
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
