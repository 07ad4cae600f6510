// Pulls the remote into the replica, incrementally: lists ordered by
// -modified_date, stopping at what the replica already has, details only for
// projects that changed; every few pulls a sweep of ids notices remote deletions.
// Each remote record is merged field by field against its merge base.
import type { Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import { snapshotRecord } from '../engine/changes/record-snapshots.ts';
import { sameJson } from '../../shared/webhook-fields.ts';
import type { ThrottleAction } from '../../shared/throttle-rates.ts';
import { CLIENT_OP_KEY, type RecordView, type SyncedModel, viewOf } from './sync-models.ts';
import { type SyncContext, getSyncState, remotePath, setSyncState } from './sync-context.ts';
import { RemoteBusyError, RemoteUnreachableError, SignInRequiredError } from './push.ts';
import {
  deleteReplicaRecord,
  isProvisional,
  upsertContact,
  upsertFileTags,
  upsertPrivateFile,
  upsertProject,
  upsertRole,
  upsertWebhook,
  upsertWorkflows,
} from './replica.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API JSON

const CHANGES_PAGE = 100;
const SWEEP_PAGE = 1000;
/** A full sweep of ids (to notice remote deletions) every this many pulls. */
export const DELETION_SWEEP_EVERY = 10;

async function get(sync: SyncContext, path: string, query: Record<string, string | number>, action: ThrottleAction = 'default'): Promise<Json | Json[] | null> {
  const outcome = await sync.remote.request({ method: 'GET', path, query, action });
  switch (outcome.kind) {
    case 'ok':
      return outcome.body;
    case 'unreachable':
      throw new RemoteUnreachableError(outcome.message);
    case 'unauthorized':
      throw new SignInRequiredError(outcome.message);
    case 'retry':
      throw new RemoteBusyError(outcome.message, outcome.retryAfterMs); // try the whole pull again later
    case 'rejected':
      return null; // 403 (not for this user) or 404: nothing to replicate
  }
}

export async function pullAll(sync: SyncContext): Promise<{ changed: number }> {
  const pulls = Number((await getSyncState(sync.db, 'pull_count')) ?? '0');
  const sweep = pulls % DELETION_SWEEP_EVERY === 0;
  let changed = 0;
  const workflows = await get(sync, `/api/orgs/${sync.orgId}/workflows/`, {});
  if (Array.isArray(workflows)) await sync.db.transaction().execute((trx) => upsertWorkflows(trx, sync.orgId, workflows));
  const roles = await get(sync, `/api/orgs/${sync.orgId}/roles/`, { limit: 1000 });
  if (Array.isArray(roles)) await sync.db.transaction().execute(async (trx) => {
    for (const role of roles) await upsertRole(trx, sync.orgId, role, sync.localUserId);
  });
  changed += await pullChanged(sync, 'contact', async (item) => item);
  changed += await pullChanged(sync, 'project', async (item) => {
    const detail = await get(sync, remotePath(sync, 'project', item.id), {}, 'project_detail');
    return Array.isArray(detail) ? null : detail;
  });
  const tags = await get(sync, `/api/orgs/${sync.orgId}/file_tags/`, { limit: 1000 });
  if (Array.isArray(tags)) await sync.db.transaction().execute((trx) => upsertFileTags(trx, sync.orgId, tags));
  changed += await pullChanged(sync, 'private_file', async (item) => item);
  const webhooks = await get(sync, remotePath(sync, 'webhook'), { limit: 1000 });
  if (Array.isArray(webhooks)) for (const webhook of webhooks) changed += await mergeRemote(sync, 'webhook', webhook);
  if (sweep) {
    changed += await sweepDeletions(sync, 'project', { fieldset: 'list' });
    changed += await sweepDeletions(sync, 'contact', {});
    changed += await sweepDeletions(sync, 'private_file', {});
    if (Array.isArray(webhooks)) changed += await removeMissing(sync, 'webhook', new Set(webhooks.map((webhook) => webhook.id as number)));
  }
  await setSyncState(sync.db, 'pull_count', String(pulls + 1));
  return { changed };
}

/** Walks the list newest first until it reaches records the replica already has. */
const LIST_ACTIONS: Partial<Record<SyncedModel, ThrottleAction>> = { private_file: 'private_file_list' };

async function pullChanged(sync: SyncContext, model: 'project' | 'contact' | 'private_file', detailOf: (item: Json) => Promise<Json | null>): Promise<number> {
  const markKey = `${model}_high_water`;
  const highWater = await getSyncState(sync.db, markKey);
  let newest = highWater ?? '';
  let changed = 0;
  const pageSize = sync.pullPageSize ?? CHANGES_PAGE;
  for (let page = 1; ; page++) {
    const query = { ordering: '-modified_date', limit: pageSize, page, ...(model === 'project' ? { fieldset: 'list' } : {}) };
    const items = await get(sync, remotePath(sync, model), query, LIST_ACTIONS[model]);
    if (!Array.isArray(items) || items.length === 0) break;
    let reachedKnown = false;
    for (const item of items) {
      const modified = String(item.modified_date ?? '');
      if (highWater && modified < highWater) {
        reachedKnown = true;
        break;
      }
      if (modified > newest) newest = modified;
      const known = await sync.db.selectFrom('sync_records').select('remote_modified').where('model', '=', model).where('record_id', '=', item.id).executeTakeFirst();
      if (known?.remote_modified === modified) continue; // already have this version (often our own push)
      const detail = await detailOf(item);
      if (detail) changed += await mergeRemote(sync, model, detail);
    }
    if (reachedKnown || items.length < pageSize) break;
  }
  if (newest) await setSyncState(sync.db, markKey, newest);
  return changed;
}

/**
 * Merges one remote record into the replica against its merge base: a field changed
 * only remotely comes down; changed only locally stays (and goes up); changed on both
 * to different values becomes a conflict, kept with both values.
 */
export async function mergeRemote(sync: SyncContext, model: SyncedModel, remoteJson: Json): Promise<number> {
  return sync.db.transaction().execute(async (trx) => {
    const id = remoteJson.id as number;
    const remoteView = viewOf(model, remoteJson);
    const record = await trx.selectFrom('sync_records').selectAll().where('model', '=', model).where('record_id', '=', id).executeTakeFirst();
    const base = record ? (JSON.parse(record.base) as RecordView) : null;
    const rows = await trx.selectFrom('sync_outbox').selectAll().where('model', '=', model).where('record_id', '=', id).execute();
    if (rows.some((row) => row.op === 'delete')) return 0; // deleted here; the delete is on its way
    const marker = remoteJson.custom_data?.[CLIENT_OP_KEY];
    if (marker && (await trx.selectFrom('sync_outbox').select('id').where('op_id', '=', marker).executeTakeFirst())) {
      return 0; // our own create whose answer was lost: the push adopts it
    }
    const pending = new Set(rows.flatMap((row) => JSON.parse(row.fields) as string[]));
    const conflicts = await trx.selectFrom('sync_conflicts').selectAll().where('model', '=', model).where('record_id', '=', id).execute();
    const conflicted = new Map(conflicts.map((conflict) => [conflict.field, conflict]));
    const local = (await snapshotRecord(trx, sync.engine, sync.orgId, model, id)) as Json | null;
    const localView = local ? viewOf(model, local) : null;

    const keep: RecordView = {};
    const newBase: RecordView = { ...remoteView };
    const agreed: string[] = [];
    if (localView) {
      for (const field of Object.keys(remoteView)) {
        const existing = conflicted.get(field);
        if (existing) {
          keep[field] = localView[field];
          newBase[field] = base?.[field] ?? null;
          await trx.updateTable('sync_conflicts').set({ remote_value: JSON.stringify(remoteView[field]) }).where('id', '=', existing.id).execute();
          continue;
        }
        if (!pending.has(field)) continue; // take the remote value
        const remoteChanged = base ? !sameJson(remoteView[field], base[field]) : false;
        if (sameJson(remoteView[field], localView[field])) {
          agreed.push(field); // both sides made the same change
          continue;
        }
        keep[field] = localView[field];
        if (!remoteChanged) {
          newBase[field] = base?.[field] ?? remoteView[field];
          continue;
        }
        newBase[field] = base?.[field] ?? null;
        await trx
          .insertInto('sync_conflicts')
          .values({
            model,
            record_id: id,
            field,
            local_value: JSON.stringify(localView[field]),
            remote_value: JSON.stringify(remoteView[field]),
            base_value: JSON.stringify(base?.[field] ?? null),
            created_date: sync.clock.now().toISOString(),
          })
          .execute();
      }
    }
    if (agreed.length) await dropFieldsFromOutbox(trx, model, id, agreed);
    await applyPulled(trx, sync, model, remoteJson, keep);
    const row = { model, record_id: id, base: JSON.stringify(newBase), remote_modified: remoteJson.modified_date ?? null };
    await trx.insertInto('sync_records').values(row).onConflict((conflict) => conflict.columns(['model', 'record_id']).doUpdateSet(row)).execute();
    return localView && sameJson(localView, { ...remoteView, ...keep }) ? 0 : 1;
  });
}

async function applyPulled(trx: Transaction<Database>, sync: SyncContext, model: SyncedModel, json: Json, keep: RecordView): Promise<void> {
  if (model === 'project') await upsertProject(trx, sync.orgId, json, keep, sync.localUserId);
  else if (model === 'contact') await upsertContact(trx, sync.orgId, json, keep);
  else if (model === 'webhook') await upsertWebhook(trx, sync.orgId, json, keep);
  else if (model === 'private_file') await upsertPrivateFile(trx, sync.orgId, json, keep);
}

export async function dropFieldsFromOutbox(trx: Transaction<Database>, model: SyncedModel, id: number, fields: string[]): Promise<void> {
  const rows = await trx.selectFrom('sync_outbox').selectAll().where('model', '=', model).where('record_id', '=', id).where('op', '=', 'update').execute();
  for (const row of rows) {
    const left = (JSON.parse(row.fields) as string[]).filter((field) => !fields.includes(field));
    if (left.length === 0) await trx.deleteFrom('sync_outbox').where('id', '=', row.id).execute();
    else await trx.updateTable('sync_outbox').set({ fields: JSON.stringify(left) }).where('id', '=', row.id).execute();
  }
}

async function sweepDeletions(sync: SyncContext, model: 'project' | 'contact' | 'private_file', query: Record<string, string>): Promise<number> {
  const remoteIds = new Set<number>();
  const pageSize = sync.pullPageSize ?? SWEEP_PAGE;
  for (let page = 1; ; page++) {
    const items = await get(sync, remotePath(sync, model), { ...query, ordering: 'id', limit: pageSize, page }, LIST_ACTIONS[model]);
    if (!Array.isArray(items)) return 0; // not allowed to list: do not guess
    for (const item of items) remoteIds.add(item.id);
    if (items.length < pageSize) break;
  }
  return removeMissing(sync, model, remoteIds);
}

/** Removes synced records the remote no longer has, unless they carry local changes still waiting. */
async function removeMissing(sync: SyncContext, model: SyncedModel, remoteIds: Set<number>): Promise<number> {
  const known = await sync.db.selectFrom('sync_records').select('record_id').where('model', '=', model).execute();
  let removed = 0;
  for (const { record_id: id } of known) {
    if (remoteIds.has(id) || isProvisional(id)) continue;
    const waiting = await sync.db.selectFrom('sync_outbox').select('id').where('model', '=', model).where('record_id', '=', id).executeTakeFirst();
    if (waiting) continue;
    await sync.db.transaction().execute((trx) => deleteReplicaRecord(trx, model, id));
    removed++;
  }
  return removed;
}
