// Settling a conflict: the user keeps the local value, takes the remote one, or
// types a third. The choice is applied locally and, unless it is the remote's
// value already, queued to go up.
import type { Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import { WRITABLE_PLAIN_FIELDS, type WritablePlainField } from '../../shared/project-fields.ts';
import { schemaForKind } from '../../shared/schemas/coercing-fields.ts';
import { sameJson } from '../../shared/webhook-fields.ts';
import { ApiError, fieldError, notFound } from '../engine/http/errors.ts';
import { snapshotRecord } from '../engine/changes/record-snapshots.ts';
import { writeAnnounced } from '../engine/changes/tracked-write.ts';
import { byUser } from '../engine/changes/change-feed.ts';
import { applyProjectView } from './replica.ts';
import { setFileTags } from '../engine/files/file-tags.ts';
import { dropFieldsFromOutbox, requeueFields } from './outbox.ts';
import type { SyncContext } from './sync-context.ts';
import { type RecordView, type SyncedModel, viewOf } from './sync-models.ts';

export type ConflictChoice = 'local' | 'remote' | 'value';

/**
 * `seenLocalValue`: the local value the user was shown, when the client sends it. A
 * settlement never replaces a local edit made after that: "local" keeps the field's
 * value as it is now, and a choice made on an older local value is refused (409).
 */
export async function resolveConflict(sync: SyncContext, conflictId: number, choice: ConflictChoice, value: unknown, seenLocalValue?: unknown): Promise<void> {
  // The user's choice, made on this computer: announced as theirs, and queued for the remote by requeueFields below.
  await writeAnnounced(sync.engine, { orgId: sync.orgId, by: byUser(sync.localUserId) }, async (trx, track) => {
    const conflict = await trx.selectFrom('sync_conflicts').selectAll().where('id', '=', conflictId).executeTakeFirst();
    if (!conflict) throw notFound('No such conflict: it may have been settled already.');
    const model = conflict.model as SyncedModel;
    await track.record(model, conflict.record_id);
    const remoteValue = JSON.parse(conflict.remote_value) as unknown;
    const localValue = await currentLocalValue(trx, sync, model, conflict.record_id, conflict.field, JSON.parse(conflict.local_value) as unknown);
    if (seenLocalValue !== undefined && !sameJson(seenLocalValue, localValue)) {
      throw new ApiError(409, {
        detail: `The local value of ${conflict.field} changed after you looked at this conflict; it is now ${JSON.stringify(localValue)}. Look at the conflict again and choose.`,
      });
    }
    const chosen = choice === 'local' ? localValue : choice === 'remote' ? remoteValue : checkValue(model, conflict.field, value);
    await applyLocally(trx, model, conflict.record_id, { [conflict.field]: chosen });
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

/** The field's value in the replica now (the conflict row's copy only if the record is gone). */
async function currentLocalValue(trx: Transaction<Database>, sync: SyncContext, model: SyncedModel, id: number, field: string, fallback: unknown): Promise<unknown> {
  const snapshot = await snapshotRecord(trx, sync.engine, sync.orgId, model, id);
  return snapshot ? (viewOf(model, snapshot)[field] ?? null) : fallback;
}

/** A typed value must be valid for its field, as a write through the API would be. */
function checkValue(model: SyncedModel, field: string, value: unknown): unknown {
  if (value === undefined) throw fieldError('value', 'Give the value to keep when choice is "value".');
  if (model === 'project' && field in WRITABLE_PLAIN_FIELDS) {
    const parsed = schemaForKind(WRITABLE_PLAIN_FIELDS[field as WritablePlainField].kind).safeParse(value);
    if (!parsed.success) throw fieldError('value', parsed.error.issues[0]?.message ?? 'Invalid value for this field.');
    return parsed.data;
  }
  return value;
}

async function applyLocally(trx: Transaction<Database>, model: SyncedModel, id: number, view: RecordView): Promise<void> {
  switch (model) {
    case 'project':
      return applyProjectView(trx, id, view);
    case 'contact':
      await trx.updateTable('contacts').set(view).where('id', '=', id).execute();
      return;
    case 'webhook': {
      const columns = Object.fromEntries(
        Object.entries(view).map(([field, value]) => [
          field,
          field === 'trigger_fields' || field === 'payload_fields' ? (value === null ? null : JSON.stringify(value)) : typeof value === 'boolean' ? Number(value) : value,
        ]),
      );
      await trx.updateTable('webhooks').set(columns).where('id', '=', id).execute();
      return;
    }
    case 'private_file': {
      const { project, file_tags: tagIds, show_customer: showCustomer, title } = view as { project?: number | null; file_tags?: number[]; show_customer?: boolean; title?: string };
      const columns = {
        ...(title === undefined ? {} : { title }),
        ...(showCustomer === undefined ? {} : { show_customer: Number(showCustomer) as 0 | 1 }),
        ...(project === undefined ? {} : { project_id: project }),
      };
      if (Object.keys(columns).length) await trx.updateTable('private_files').set(columns).where('id', '=', id).execute();
      if (tagIds !== undefined) await setFileTags(trx, id, tagIds);
      return;
    }
    case 'event':
      return;
  }
}
