// Pulls the remote into the replica, incrementally: lists ordered by
// -modified_date, stopping at what the replica already has, details only for
// records that changed; every few pulls (and at once after a list shifted under a
// pull) a sweep lists every record, fetches what the replica lacks or holds at an
// older version, and removes what the remote no longer has. Lists are read by
// offset pages (`page`, `limit`: all the hosted API offers) and a walk never skips
// a record (walkList). Each remote record is merged field by field against its
// merge base.
import { writeAnnounced } from '../engine/changes/tracked-write.ts';
import { BY_SYNC } from '../engine/changes/change-feed.ts';
import { sameJson } from '../../shared/webhook-fields.ts';
import type { ThrottleAction } from '../../shared/throttle-rates.ts';
import { type RecordView, type SyncedModel, clientOpOf, isProvisional } from './sync-models.ts';
import { syncModel } from './models/index.ts';
import { type RecordSnapshot, snapshotRecord } from '../engine/changes/record-snapshots.ts';
import { type Remote, type RemoteKind, type RemoteRecord, listedId, readRemote, readRemoteList } from './remote-records.ts';
import { type SyncContext, remotePath } from './sync-context.ts';
import { highWaterMark, isSweepDue, pullCount, setHighWaterMark, setPullCount, setSweepDue } from './sync-state.ts';
import { throwUnlessAnswered } from './remote-errors.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { deleteReplicaRecord } from './replica-removal.ts';
import { writeRemoteRecord } from './replica.ts';
import { upsertRole, upsertWorkflows } from './replica-rows.ts';
import { upsertFileTags } from './replica-tags.ts';
import { dropFieldsFromOutbox, hasQueuedChanges, isOpQueued, rowsOfRecord } from './outbox.ts';
import { noteFolderTwin } from './folder-twins.ts';
import { letWaitingIoIn } from './give-way.ts';

export const CHANGES_PAGE = 100;
export const SWEEP_PAGE = 1000;
/** A full sweep every this many pulls (it also runs when a pull's list shifted, and until one completes). */
export const DELETION_SWEEP_EVERY = 10;
/** Walks of one list that may start over after it shifted, before the rest is left to the next pull. */
const WALK_ATTEMPTS = 3;
/** A bound on the pages of one walk (ten million records at the sweep's page size). */
const MAX_PAGES = 10_000;

export type PagedModel = 'project' | 'contact' | 'private_file';
/** What a list of each model is asked for besides paging: projects in their light list fieldset. */
export const LIST_QUERY: Record<PagedModel, Record<string, string>> = { project: { fieldset: 'list' }, contact: {}, private_file: {} };
/**
 * The order a sweep reads each model in: a field a record never changes and new
 * records sort last by, so the only thing that moves records between pages is a
 * deletion, which walkList notices. Files cannot be ordered by id on the hosted
 * service (service.md 4.2), so by creation date.
 */
export const SWEEP_ORDERING: Record<PagedModel, string> = { project: 'id', contact: 'id', private_file: 'created_date' };

/**
 * A GET of the remote: its JSON, not yet read as anything (remote-records.ts), or
 * null when it is not for this user (403, 404); throws what stops a cycle (offline, busy, signed out).
 */
export async function getRemoteJson(sync: SyncContext, path: string, query: Record<string, string | number>, action: ThrottleAction = 'default'): Promise<unknown> {
  const outcome = await sync.remote.request({ method: 'GET', path, query, action, requestClass: sync.requestClass ?? 'user' });
  throwUnlessAnswered(outcome); // busy: the whole pull is tried again later
  return outcome.kind === 'ok' ? outcome.body : null; // refused: 403 (not for this user) or 404, nothing to replicate
}

/**
 * complete: read to the end; stopped: the visitor had enough; unsettled: the list
 * kept shifting (or had no end), so some records may have been missed; refused:
 * this user may not list it.
 */
type WalkOutcome = 'complete' | 'stopped' | 'unsettled' | 'refused';

interface ListWalk {
  path: string;
  query: Record<string, string>;
  action?: ThrottleAction;
  pageSize: number;
}

/**
 * Reads a list page by page and hands each page to `visit`, without skipping a
 * record. With offset pages, a record removed from an earlier page (or moved to
 * the front by an edit) between two requests shifts every later record by one
 * place, and the first record of the next page would never be read. So before a
 * page N+1 is used, a one-record request checks that the record read last on page
 * N is still in its place; if it is not, the walk starts over from page 1 (a
 * visitor that collects the whole list starts afresh there). `shifted` says whether
 * that happened: a deletion, most likely, which the caller may want to sweep for.
 */
export async function walkList(sync: SyncContext, walk: ListWalk, visit: (items: unknown[], page: number) => Promise<'more' | 'enough'>): Promise<{ outcome: WalkOutcome; shifted: boolean }> {
  let shifted = false;
  for (let attempt = 1; attempt <= WALK_ATTEMPTS; attempt++) {
    let lastId: unknown = undefined;
    let moved = false;
    for (let page = 1; page <= MAX_PAGES && !moved; page++) {
      const items = await getRemoteJson(sync, walk.path, { ...walk.query, limit: walk.pageSize, page }, walk.action);
      if (!Array.isArray(items)) return { outcome: 'refused', shifted };
      if (page > 1) {
        // The position of the last record read, as a page of one.
        const probe = await getRemoteJson(sync, walk.path, { ...walk.query, limit: 1, page: (page - 1) * walk.pageSize }, walk.action);
        moved = !Array.isArray(probe) || listedId(probe[0]) !== lastId;
        if (moved) break;
      }
      if ((await visit(items, page)) === 'enough') return { outcome: 'stopped', shifted };
      if (items.length < walk.pageSize) return { outcome: 'complete', shifted };
      lastId = listedId(items.at(-1));
    }
    if (!moved) return { outcome: 'unsettled', shifted }; // MAX_PAGES full pages: a remote that ignores paging
    shifted = true;
  }
  return { outcome: 'unsettled', shifted };
}

/**
 * The records of a list that read as `kind`, and the ids of every record it listed:
 * one that could not be read is still there, and must not be taken for deleted.
 */
interface ListedRecords<Kind extends RemoteKind> {
  records: Map<number, Remote<Kind>>;
  listedIds: Set<number>;
}

function collectListed<Kind extends RemoteKind>(sync: SyncContext, kind: Kind, listed: ListedRecords<Kind>, items: unknown[]): void {
  for (const item of items) {
    const id = listedId(item);
    if (typeof id === 'number') listed.listedIds.add(id);
  }
  for (const record of readRemoteList(sync.unreadable, kind, items)) listed.records.set(record.id as number, record);
}

/** Every record of a small list (roles, tags, workflows, webhooks), or null if this user may not list it. */
async function listAll<Kind extends RemoteKind>(
  sync: SyncContext,
  path: string,
  kind: Kind,
  query: Record<string, string> = {},
): Promise<{ items: Array<Remote<Kind>>; listedIds: Set<number>; complete: boolean } | null> {
  const listed: ListedRecords<Kind> = { records: new Map(), listedIds: new Set() };
  const { outcome } = await walkList(sync, { path, query, pageSize: sync.pullPageSize ?? SWEEP_PAGE }, async (items, page) => {
    if (page === 1) {
      listed.records.clear();
      listed.listedIds.clear();
    }
    collectListed(sync, kind, listed, items);
    return 'more';
  });
  return outcome === 'refused' ? null : { items: [...listed.records.values()], listedIds: listed.listedIds, complete: outcome === 'complete' };
}

/** A project as its detail tells it (the list's light fieldset lacks fields the replica keeps). */
export function projectDetailOf(sync: SyncContext): DetailOf {
  return async (item: RemoteRecord) => {
    const detail = await getRemoteJson(sync, remotePath(sync, 'project', item.id), {}, syncModel('project').quota.detail);
    return detail === null || Array.isArray(detail) ? null : readRemote(sync.unreadable, 'project', detail);
  };
}

/** Contacts and files: the list carries the whole record. */
export const asListed: DetailOf = async (item: RemoteRecord) => item;

/** The small lists, each one request for a small org: workflows, roles, file tags and webhooks. */
export const SMALL_LISTS = ['workflow', 'role', 'file_tag', 'webhook'] as const;
export type SmallList = (typeof SMALL_LISTS)[number];

/** Pulls one small list; webhooks also lose those the remote no longer lists when `removeMissingWebhooks`. Returns records changed and whether it read through. */
export async function pullSmallList(sync: SyncContext, list: SmallList, removeMissingWebhooks = false): Promise<{ changed: number; complete: boolean }> {
  switch (list) {
    case 'workflow': {
      const workflows = await listAll(sync, apiPaths.workflows(sync.orgId), 'workflow');
      if (workflows) await sync.db.transaction().execute((trx) => upsertWorkflows(trx, sync.orgId, workflows.items, workflows.complete));
      return { changed: 0, complete: workflows?.complete !== false };
    }
    case 'role': {
      const roles = await listAll(sync, apiPaths.roles(sync.orgId), 'role', { ordering: 'id' });
      if (roles) await sync.db.transaction().execute(async (trx) => {
        for (const role of roles.items) await upsertRole(trx, sync.orgId, role, sync.localUserId);
      });
      return { changed: 0, complete: roles?.complete !== false };
    }
    case 'file_tag': {
      const tags = await listAll(sync, apiPaths.fileTags(sync.orgId), 'file_tag');
      if (tags) await sync.db.transaction().execute((trx) => upsertFileTags(trx, sync.orgId, tags.items));
      return { changed: 0, complete: tags?.complete !== false };
    }
    case 'webhook': {
      const webhooks = await listAll(sync, remotePath(sync, 'webhook'), 'webhook', { ordering: 'id' });
      let changed = 0;
      if (webhooks) for (const webhook of webhooks.items) changed += await mergeRemote(sync, 'webhook', webhook);
      if (webhooks?.complete && removeMissingWebhooks) changed += await removeMissing(sync, 'webhook', webhooks.listedIds);
      return { changed, complete: webhooks?.complete !== false };
    }
  }
}

/**
 * The whole incremental pull, as a person asking to sync (and the agent's first
 * cycle) gets it: every list, newest first down to its mark, and every tenth time a
 * sweep. Timed polls use the budgeted pull of pull-plan.ts instead.
 */
export async function pullAll(sync: SyncContext): Promise<{ changed: number }> {
  const pulls = await pullCount(sync.db);
  let sweep = pulls % DELETION_SWEEP_EVERY === 0 || (await isSweepDue(sync.db));
  let changed = 0;
  await pullSmallList(sync, 'workflow');
  await pullSmallList(sync, 'role');
  const projectDetail = projectDetailOf(sync);
  const contacts = await pullChanged(sync, 'contact', asListed);
  const projects = await pullChanged(sync, 'project', projectDetail);
  await pullSmallList(sync, 'file_tag');
  const files = await pullChanged(sync, 'private_file', asListed);
  changed += contacts.changed + projects.changed + files.changed;
  // A list that shifted under this pull most likely lost a record: find out now, not pulls later.
  if (contacts.shifted || projects.shifted || files.shifted) sweep = true;
  const webhooks = await pullSmallList(sync, 'webhook', sweep);
  changed += webhooks.changed;
  if (sweep) {
    const swept = [await sweepModel(sync, 'project', projectDetail), await sweepModel(sync, 'contact', asListed), await sweepModel(sync, 'private_file', asListed)];
    for (const result of swept) changed += result.changed;
    const complete = swept.every((result) => result.complete) && webhooks.complete;
    await setSweepDue(sync.db, !complete);
  }
  await setPullCount(sync.db, pulls + 1);
  return { changed };
}

/** Merges a listed record unless the replica has that version already (often our own push). */
export type DetailOf = (item: RemoteRecord) => Promise<RemoteRecord | null>;

export async function pullIfNewer(sync: SyncContext, model: PagedModel, item: RemoteRecord, detailOf: DetailOf, onNewer?: (id: number) => void): Promise<number> {
  const known = await sync.db.selectFrom('sync_records').select('remote_modified').where('model', '=', model).where('record_id', '=', item.id).executeTakeFirst();
  if (known && known.remote_modified === (item.modified_date ?? null)) return 0;
  onNewer?.(item.id);
  const detail = await detailOf(item);
  // A merge holds the thread and the store's one connection: the screen's requests go first (give-way.ts).
  await (sync.giveWay ?? letWaitingIoIn)();
  return detail ? mergeRemote(sync, model, detail) : 0;
}

/** Walks the list newest first until it reaches records the replica already has. */
export async function pullChanged(sync: SyncContext, model: PagedModel, detailOf: DetailOf, onNewer?: (id: number) => void): Promise<{ changed: number; shifted: boolean; read: boolean }> {
  const highWater = await highWaterMark(sync.db, model);
  let newest = highWater ?? '';
  let changed = 0;
  const walk = { path: remotePath(sync, model), query: { ordering: '-modified_date', ...LIST_QUERY[model] }, action: syncModel(model).quota.list, pageSize: sync.pullPageSize ?? CHANGES_PAGE };
  let skippedSome = false;
  const { outcome, shifted } = await walkList(sync, walk, async (items) => {
    const records = readRemoteList(sync.unreadable, model, items);
    if (records.length < items.length) skippedSome = true;
    for (const item of records) {
      const modified = String(item.modified_date ?? '');
      if (highWater && modified < highWater) return 'enough';
      if (modified > newest) newest = modified;
      changed += await pullIfNewer(sync, model, item, detailOf, onNewer);
    }
    return 'more';
  });
  // A walk that may have missed records, or skipped one it could not read, leaves the mark where it was: the next pull looks again.
  const read = !skippedSome && (outcome === 'complete' || outcome === 'stopped');
  if (newest && read) await setHighWaterMark(sync.db, model, newest);
  return { changed, shifted: shifted || outcome === 'unsettled', read: read || outcome === 'refused' };
}

/**
 * Merges one remote record into the replica against its merge base: a field changed
 * only remotely comes down; changed only locally stays (and goes up); changed on both
 * to different values becomes a conflict, kept with both values.
 */
export async function mergeRemote(sync: SyncContext, model: SyncedModel, remoteJson: RemoteRecord): Promise<number> {
  // Records keep their org (record-orgs.ts): one the remote puts in another org is refused, reported, and changes nothing here.
  const definition = syncModel(model);
  const verdict = await definition.orgVerdict(sync, remoteJson);
  if (!verdict.ok) {
    sync.unreadable.add(`${model.replace('_', ' ')} ${remoteJson.id}`, verdict.reason);
    return 0;
  }
  return writeAnnounced(sync.engine, { orgId: sync.orgId, by: BY_SYNC }, async (trx, track) => {
    const id = remoteJson.id;
    await track.record(model, id);
    const remoteView = definition.view(remoteJson);
    const record = await trx.selectFrom('sync_records').selectAll().where('model', '=', model).where('record_id', '=', id).executeTakeFirst();
    const base = record ? (JSON.parse(record.base) as RecordView) : null;
    const rows = await rowsOfRecord(trx, model, id);
    // Deleted here and on its way. A deletion held for the user's confirmation (a file
    // deleted in its folder) is going nowhere: the record is still here and merges as
    // usual, or its version would never move and an update of it would meet 412 forever.
    if (rows.some((row) => row.op === 'delete' && row.status !== 'held')) return 0;
    const marker = clientOpOf(remoteJson);
    if (marker && (await isOpQueued(trx, marker))) {
      return 0; // our own create whose answer was lost: the push adopts it
    }
    const pending = new Set(rows.flatMap((row) => JSON.parse(row.fields) as string[]));
    const conflicts = await trx.selectFrom('sync_conflicts').selectAll().where('model', '=', model).where('record_id', '=', id).execute();
    const conflicted = new Map(conflicts.map((conflict) => [conflict.field, conflict]));
    const local: RecordSnapshot | null = await snapshotRecord(trx, sync.engine, sync.orgId, model, id);
    const localView = local ? definition.view(local) : null;

    const keep: RecordView = {};
    const newBase: RecordView = { ...remoteView };
    const agreed: string[] = [];
    if (localView) {
      for (const field of Object.keys(remoteView)) {
        const existing = conflicted.get(field);
        if (existing && sameJson(localView[field], remoteView[field])) {
          // Both sides now hold the same value: nothing is left to settle.
          await trx.deleteFrom('sync_conflicts').where('id', '=', existing.id).execute();
          agreed.push(field);
          continue;
        }
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
    await writeRemoteRecord(trx, sync, model, remoteJson, keep, verdict.sharedBy);
    // New here, with the bytes of a folder file of its project: perhaps a racing copy about to be deleted (folder-twins.ts).
    if (definition.contents && !localView) await noteFolderTwin(trx, remoteJson, sync.folderRecords);
    const row = { model, record_id: id, base: JSON.stringify(newBase), remote_modified: remoteJson.modified_date ?? null };
    await trx.insertInto('sync_records').values(row).onConflict((conflict) => conflict.columns(['model', 'record_id']).doUpdateSet(row)).execute();
    return localView && sameJson(localView, { ...remoteView, ...keep }) ? 0 : 1;
  });
}

/**
 * Lists every record of a model and brings the replica level with it: records it
 * lacks or holds at another version come down (an incremental pull stops at its
 * high-water mark, so it never looks at them again), and records the remote no
 * longer lists are removed, but only after a walk read the list through without
 * it shifting, so a record that merely moved is never taken for a deleted one.
 */
export async function sweepModel(sync: SyncContext, model: PagedModel, detailOf: DetailOf): Promise<{ changed: number; complete: boolean }> {
  const listed: ListedRecords<PagedModel> = { records: new Map(), listedIds: new Set() };
  const walk = { path: remotePath(sync, model), query: { ordering: SWEEP_ORDERING[model], ...LIST_QUERY[model] }, action: syncModel(model).quota.list, pageSize: sync.pullPageSize ?? SWEEP_PAGE };
  const { outcome } = await walkList(sync, walk, async (items, page) => {
    if (page === 1) {
      listed.records.clear();
      listed.listedIds.clear();
    }
    collectListed(sync, model, listed, items);
    return 'more';
  });
  if (outcome === 'refused') return { changed: 0, complete: true }; // not allowed to list: do not guess
  let changed = 0;
  for (const item of listed.records.values()) changed += await pullIfNewer(sync, model, item, detailOf);
  if (outcome === 'complete') changed += await removeMissing(sync, model, listed.listedIds);
  return { changed, complete: outcome === 'complete' };
}

/**
 * Removes synced records the remote no longer has, unless they carry local changes
 * still waiting. A list that names a record under an id from this computer's
 * provisional range is not believed for deletions: no remote has such an id, so it
 * lies (it may list one of ours under another id), and what it leaves out may be there.
 */
export async function removeMissing(sync: SyncContext, model: SyncedModel, remoteIds: Set<number>, within?: Set<number>): Promise<number> {
  for (const id of remoteIds) if (isProvisional(id)) return 0;
  const known = await sync.db.selectFrom('sync_records').select('record_id').where('model', '=', model).execute();
  let removed = 0;
  for (const { record_id: id } of known) {
    if (remoteIds.has(id) || (within && !within.has(id))) continue;
    removed += await removeReplicaRecord(sync, model, id);
  }
  return removed;
}

/**
 * Removes one synced record the remote no longer has (or no longer shows this user),
 * unless it carries local changes still waiting or was never synced; 1 when removed.
 */
export async function removeReplicaRecord(sync: SyncContext, model: SyncedModel, id: number): Promise<number> {
  if (isProvisional(id)) return 0;
  const known = await sync.db.selectFrom('sync_records').select('record_id').where('model', '=', model).where('record_id', '=', id).executeTakeFirst();
  if (!known) return 0;
  if (await hasQueuedChanges(sync.db, model, id)) return 0;
  await writeAnnounced(sync.engine, { orgId: sync.orgId, by: BY_SYNC }, async (trx, track) => {
    await track.record(model, id);
    await deleteReplicaRecord(trx, model, id);
  });
  return 1;
}

/** The next pull sweeps every list (the change feed lost its place: main/sync/feed-pull.ts). */
export async function requestSweep(sync: SyncContext): Promise<void> {
  await setSweepDue(sync.db, true);
}
