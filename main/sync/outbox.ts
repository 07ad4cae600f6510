// The outbox: every local write to a synced record adds a row in the write's own
// transaction (so kill -9 at any moment loses no acknowledged write). Rows carry a
// client-made op id and their sequence number (the row id).
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Database, OutboxRow } from '../engine/store/tables.ts';
import type { ChangeCapture } from '../engine/changes/tracked-write.ts';
import type { Clock } from '../engine/clock.ts';
import { SYNCED_MODELS, type RecordView, type SyncedModel, changedFields, viewOf } from './sync-models.ts';

export function createOutboxCapture(clock: Clock, onQueued: () => void): ChangeCapture {
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

export function groupOutbox(rows: readonly OutboxRow[]): OutboxGroup[] {
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
