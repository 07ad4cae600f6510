// The change feed's log (issue 15, docs/http-api.md "Change feed"): every committed
// write of a tracked record appends one row per record it changed, in the write's
// own transaction (a `deliver` change capture), so the log holds exactly what
// committed, in commit order per org (writes to one org are serialised by the
// `org-writes` lock). Rows are references (model, id, op, project), never bodies.
// The list a caller reads is filtered by the same visibility rules as the records'
// own routes (docs/access.md). Old rows are pruned; a cursor from before the pruned
// horizon is answered 410, and the client reads everything again.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import { canSeeAllProjects } from '../auth/actor.ts';
import { nowIso } from '../clock.ts';
import { type ChangeCapture, describeChanges } from './tracked-write.ts';
import { visibleProjectIds, visibleTo } from '../projects/project-access.ts';
import { fileVisibleTo, isFilesUser } from '../files/file-access.ts';
import { contactVisibleTo } from '../contacts/contact-access.ts';
import { seesSharedProjects, sharedProjectIdsFor } from '../sharing/project-shares.ts';
import { CHANGE_MODELS, type ChangeEntry, type ChangeModel } from '../../../shared/schemas/change-feed.ts';

/** Rows older than this are pruned (a desktop away longer reads everything again). */
export const CHANGE_LOG_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** At most this many rows are kept, whatever their age. */
export const CHANGE_LOG_MAX_ROWS = 200_000;
/** Pruning runs with every this many-th row written. */
const PRUNE_EVERY = 500;
/** The largest id pruned so far; a cursor below it may have missed changes. */
const HORIZON_SETTING = 'change_log_pruned_through';

/** The `deliver` capture that appends a write's changes to the log. */
export function createChangeLogCapture(context: EngineContext): ChangeCapture {
  return {
    phase: 'deliver',
    async capture(trx, orgId, changes) {
      const described = describeChanges(context, changes);
      if (described.length === 0) return;
      const now = nowIso(context.clock);
      const rows = described.map((change) => ({
        org_id: orgId,
        model: change.model,
        record_id: change.id,
        op: change.op,
        project_id: change.projectId,
        modified_date: typeof change.after?.modified_date === 'string' ? change.after.modified_date : now,
        logged_at: now,
      }));
      const inserted = await trx.insertInto('change_log').values(rows).returning('id').execute();
      const newest = Math.max(...inserted.map((row) => Number(row.id)));
      // Crossing a multiple of PRUNE_EVERY: prune now, in this transaction (an indexed range delete).
      if (Math.floor(newest / PRUNE_EVERY) !== Math.floor((newest - inserted.length) / PRUNE_EVERY)) await pruneChangeLog(context, trx);
    },
  };
}

/** Deletes rows past the retention or the row cap, and moves the horizon; returns the new horizon. */
export async function pruneChangeLog(
  context: EngineContext,
  db: Kysely<Database> | Transaction<Database>,
  limits: { retentionMs?: number; maxRows?: number } = {},
): Promise<number> {
  const cutoff = new Date(context.clock.now().getTime() - (limits.retentionMs ?? CHANGE_LOG_RETENTION_MS)).toISOString();
  const old = await db.selectFrom('change_log').select((builder) => builder.fn.max('id').as('id')).where('logged_at', '<', cutoff).executeTakeFirst();
  const newest = await db.selectFrom('change_log').select((builder) => builder.fn.max('id').as('id')).executeTakeFirst();
  const throughAge = Number(old?.id ?? 0);
  const throughCount = Number(newest?.id ?? 0) - (limits.maxRows ?? CHANGE_LOG_MAX_ROWS);
  const through = Math.max(throughAge, throughCount);
  const horizon = await readHorizon(db);
  if (through <= horizon) return horizon;
  await db.deleteFrom('change_log').where('id', '<=', through).execute();
  const value = String(through);
  await db.insertInto('settings').values({ key: HORIZON_SETTING, value }).onConflict((conflict) => conflict.column('key').doUpdateSet({ value })).execute();
  return through;
}

async function readHorizon(db: Kysely<Database> | Transaction<Database>): Promise<number> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', HORIZON_SETTING).executeTakeFirst();
  return Number(row?.value ?? 0);
}

/** The newest cursor: where a client that has just read everything starts. */
export async function headCursor(db: Kysely<Database>, orgId: number): Promise<number> {
  const row = await db.selectFrom('change_log').select((builder) => builder.fn.max('id').as('id')).where('org_id', '=', orgId).executeTakeFirst();
  return Math.max(Number(row?.id ?? 0), await readHorizon(db));
}

export type ChangeRead =
  | { kind: 'expired'; horizon: number }
  | { kind: 'changes'; changes: ChangeEntry[]; nextCursor: number; hasMore: boolean };

/** The changes after `after` this actor may see, at most `limit` rows of the log read. */
export async function readChanges(context: EngineContext, actor: Actor, after: number, limit: number): Promise<ChangeRead> {
  const horizon = await readHorizon(context.db);
  if (after < horizon) return { kind: 'expired', horizon };
  const rows = await context.db
    .selectFrom('change_log')
    .selectAll()
    .where('org_id', '=', actor.org.id)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit + 1)
    .execute();
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const nextCursor = page.length > 0 ? Number(page.at(-1)!.id) : after;
  const visible = await visibleChanges(context.db, actor, page);
  const changes = page
    .filter((row) => visible.has(`${row.model}:${row.record_id}`))
    .map((row) => ({
      cursor: String(row.id),
      model: row.model as ChangeModel,
      id: row.record_id,
      op: row.op as ChangeEntry['op'],
      project_id: row.project_id,
      modified_date: row.modified_date,
    }));
  return { kind: 'changes', changes, nextCursor, hasMore };
}

type LogRow = { model: string; record_id: number; op: string; project_id: number | null };

/**
 * Which of the rows' records the actor may see, as `model:id` (docs/access.md):
 * a record that still exists by its model's own rule; a deleted one by its
 * project's visibility (none: by the org-wide permission its model asks for).
 */
async function visibleChanges(db: Kysely<Database>, actor: Actor, rows: readonly LogRow[]): Promise<Set<string>> {
  const visible = new Set<string>();
  if (rows.length === 0) return visible;
  const idsOf = (model: ChangeModel) => [...new Set(rows.filter((row) => row.model === model).map((row) => row.record_id))];
  const seesAll = canSeeAllProjects(actor.role);
  const existing = new Map<ChangeModel, Set<number>>();
  // Records still there and shown to the actor; `ids` that are not are deleted or hidden.
  const note = (model: ChangeModel, _ids: number[], present: number[]) => {
    existing.set(model, new Set(present));
    for (const id of present) visible.add(`${model}:${id}`);
  };
  for (const model of CHANGE_MODELS) {
    const ids = idsOf(model);
    if (ids.length === 0) continue;
    if (model === 'project') {
      // Projects connected orgs share with this one count too (their rows are logged here by sharing/project-shares.ts).
      const shown = await db
        .selectFrom('projects')
        .select('projects.id')
        .where(seesSharedProjects(actor) ? (builder) => builder.or([visibleTo(actor)(builder), builder('projects.id', 'in', sharedProjectIdsFor(actor.org.id))]) : visibleTo(actor))
        .where('projects.id', 'in', ids)
        .execute();
      note(model, ids, shown.map((row) => row.id));
    } else if (model === 'private_file') {
      const shown = await db.selectFrom('private_files').select('private_files.id').where(fileVisibleTo(actor)).where('private_files.id', 'in', ids).execute();
      note(model, ids, shown.map((row) => row.id));
    } else if (model === 'contact') {
      const shown = await db.selectFrom('contacts').select('contacts.id').where(contactVisibleTo(actor)).where('contacts.id', 'in', ids).execute();
      note(model, ids, shown.map((row) => row.id));
    } else if (model === 'event') {
      let query = db.selectFrom('events').select('events.id').where('events.org_id', '=', actor.org.id).where('events.id', 'in', ids);
      if (!seesAll) query = query.where((builder) => builder.or([builder('events.project_id', 'is', null), builder('events.project_id', 'in', visibleProjectIds(actor))]));
      note(model, ids, (await query.execute()).map((row) => row.id));
    } else {
      note(model, ids, actor.role.is_admin === 1 ? ids : []);
    }
  }
  // Deleted records (or hidden ones, which stay hidden): by their project, as their model's rule goes.
  const deletedProjects = rows.filter((row) => row.op === 'delete' && row.project_id !== null).map((row) => row.project_id!);
  const projectsShown = new Set(
    deletedProjects.length === 0
      ? []
      : (await db.selectFrom('projects').select('projects.id').where(visibleTo(actor)).where('projects.id', 'in', [...new Set(deletedProjects)]).execute()).map((row) => row.id),
  );
  for (const row of rows) {
    if (row.op !== 'delete') continue;
    const model = row.model as ChangeModel;
    const key = `${model}:${row.record_id}`;
    if (visible.has(key) || existing.get(model)?.has(row.record_id)) continue;
    // Still there in this org but hidden from this actor: not theirs to hear of. (A project
    // of another org that is no longer shared here is gone, for this org.)
    if (await stillExists(db, model, row.record_id, actor.org.id)) continue;
    if (model === 'webhook') {
      if (actor.role.is_admin === 1) visible.add(key);
    } else if (model === 'private_file' && !isFilesUser(actor.role)) {
      continue;
    } else if (row.project_id !== null && model !== 'project') {
      if (projectsShown.has(row.project_id) || seesAll) visible.add(key);
    } else if (seesAll || (model === 'private_file' && actor.role.can_access_all_files === 1)) {
      visible.add(key);
    }
  }
  return visible;
}

const TABLE_OF: Record<ChangeModel, 'projects' | 'contacts' | 'events' | 'webhooks' | 'private_files'> = {
  project: 'projects',
  contact: 'contacts',
  event: 'events',
  webhook: 'webhooks',
  private_file: 'private_files',
};

async function stillExists(db: Kysely<Database>, model: ChangeModel, id: number, orgId: number): Promise<boolean> {
  return (await db.selectFrom(TABLE_OF[model] as 'projects').select('id').where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst()) !== undefined;
}
