// The agent's sync routes on the local API (issue 5): status, what waits and why,
// conflicts and their resolution, pause and resume.
import { z } from 'zod';
import type { TypedApp } from '../engine/http/app.ts';
import { idParam } from '../engine/http/list-query.ts';
import { notFound } from '../engine/http/errors.ts';
import type { SyncEngine } from './sync-engine.ts';
import type { SyncContext } from './sync-context.ts';
import { resolveConflict } from './conflicts.ts';
import type { AgentFolders } from './agent.ts';
import { type QueuedChange, confirmHeldDelete, loadOutbox, restoreHeldDelete, retryParked } from './outbox.ts';
import { actorOf } from '../engine/auth/actor.ts';
import type { EngineContext } from '../engine/context.ts';
import { byUser } from '../engine/changes/change-feed.ts';
import {
  heldDeleteConfirmedJsonSchema,
  heldDeleteRestoredJsonSchema,
  pendingChangeJsonSchema,
  syncConflictJsonSchema,
  syncBudgetJsonSchema,
  syncRefreshBodySchema,
  syncStatusJsonSchema,
  type PendingChangeJson,
  type SyncBudgetJson,
  type SyncConflictJson,
} from '../../shared/schemas/sync.ts';
import { folderStatusJsonSchema, type FolderStatusJson } from '../../shared/schemas/folder.ts';
import { documentedResponse } from '../engine/http/response-schemas.ts';
import { BUCKET_LABELS } from '../../shared/throttle-rates.ts';
import { filesDue } from './pull-plan.ts';
import { SYNC_MODELS } from './models/index.ts';
import { describeChangeFailure } from './remote-errors.ts';
import type { ContentsPolicy } from './contents-policy.ts';
import { registerContentsRoutes } from './contents-routes.ts';

const tags = ['sync'];
/** A project opened again within this long is not read afresh (unless forced). */
export const OPENED_PROJECT_FRESH_MS = 5 * 60_000;

/**
 * Documented only (main/engine/http/response-schemas.ts): the renderer polls it
 * while files upload, and its lists run to hundreds of entries each, which an
 * enforced encode would walk field by field on every poll.
 */
const folderStatusAnswer = documentedResponse(folderStatusJsonSchema);

/**
 * A change held back only by its conflicts. The renderer names the fields in people's
 * words beside it; the reason itself names none (a field name here would be the API's).
 */
export const WAITS_FOR_CONFLICT_REASON = 'Waiting for you to choose which value to keep, under Conflicts.';

function reasonFor(row: QueuedChange, state: string, now: string): string {
  if (row.waitsOnlyForConflicts) return WAITS_FOR_CONFLICT_REASON;
  if (row.status === 'parked') return `${row.last_error ? `Not sent: ${describeChangeFailure(row.last_error)}` : 'The remote refused this change'}. Press Retry to send it again, or edit the record.`;
  if (row.status === 'in_flight') return 'Being sent to the remote.';
  if (row.status === 'held') return row.last_error ?? 'Held until you confirm it.';
  if (state === 'paused') return 'Sync is paused.';
  if (state === 'offline') return 'The remote cannot be reached; it goes out when it can.';
  if (state === 'needs_sign_in') return 'Sign in to the remote again to send it.';
  if (row.next_attempt_at > now && row.last_error) return `Not sent yet: ${describeChangeFailure(row.last_error)}. SolarDesk tries again on its own.`;
  return 'Waiting for the next push.';
}

/**
 * What the project-folder routes need: the engine holding the outbox, the folders
 * (if any), the sync state word for the pending list's reasons, and who to tell
 * after a confirm or a restore. The agent and the embedded store (main/core/) both
 * provide one, so the app's held deletes work the same in either mode.
 */
export interface FolderRoutesTarget {
  engine: EngineContext;
  folders?: AgentFolders | null;
  /** The sync state's word (the agent's, or `local_only`): the pending list says why each change waits. */
  stateName(): Promise<string>;
  /** A held deletion was confirmed: the engine deleted the file (the agent's outbox now has a delete to push). */
  onConfirmed(): void;
  /** A held deletion was dropped: the status (held count) changed. */
  onRestored(): void;
}

/**
 * The project folders' status and the held deletes (list, confirm, restore). `running`
 * is read per request: the routes are registered before what serves them exists.
 */
export function registerFolderRoutes(app: TypedApp, running: () => FolderRoutesTarget): void {
  app.get(
    '/sync/folder/',
    {
      config: { throttle: 'none' },
      schema: { tags, summary: 'The project folders: each file waiting, uploading (with progress) or failed and why; ignored and outside files', response: { 200: folderStatusAnswer } },
    },
    async (): Promise<FolderStatusJson> => (await running().folders?.status()) ?? { enabled: false },
  );

  app.post(
    '/sync/folder/downloads/:id/retry/',
    {
      config: { throttle: 'none' },
      schema: {
        tags,
        summary: "Try again now a file's download into its project folder that failed (listed by the folder status as downloading, with why)",
        params: z.object({ org_id: z.string(), id: idParam }),
        response: { 200: z.object({ file_id: z.number().int() }) },
      },
    },
    async (request) => {
      if (!running().folders?.retryDownload(request.params.id)) throw notFound(`No download into a project folder has failed for file ${request.params.id}: there is nothing to retry.`);
      return { file_id: request.params.id };
    },
  );

  const pendingParams = z.object({ org_id: z.string(), id: idParam });
  app.post(
    '/sync/pending/:id/confirm/',
    { config: { throttle: 'none' }, schema: { tags, summary: 'Confirm a held deletion: the file is deleted here and on the remote', params: pendingParams, response: { 200: heldDeleteConfirmedJsonSchema } } },
    async (request) => {
      const target = running();
      const result = await confirmHeldDelete(target.engine, request.params.id, byUser(actorOf(request).user.id));
      target.onConfirmed();
      target.folders?.requestReconcile();
      return { file_id: result.fileId, deleted: result.deleted };
    },
  );
  app.post(
    '/sync/pending/:id/restore/',
    { config: { throttle: 'none' }, schema: { tags, summary: 'Keep a file whose deletion is held: it is written back into its project folder', params: pendingParams, response: { 200: heldDeleteRestoredJsonSchema } } },
    async (request) => {
      const target = running();
      const result = await restoreHeldDelete(target.engine, request.params.id);
      target.onRestored();
      target.folders?.requestReconcile();
      return { file_id: result.fileId, restored: true };
    },
  );

  app.get('/sync/pending/', { config: { throttle: 'none' }, schema: { tags, summary: 'Changes waiting to reach the remote, with why and until when', response: { 200: z.array(pendingChangeJsonSchema) } } }, async () => {
    const target = running();
    const [rows, state] = await Promise.all([loadOutbox(target.engine.db), target.stateName()]);
    const now = target.engine.clock.now().toISOString();
    return rows.map((row): PendingChangeJson => ({
      id: row.id,
      op_id: row.op_id,
      model: row.model,
      record_id: row.record_id,
      op: row.op,
      fields: JSON.parse(row.fields) as string[],
      status: row.status,
      reason: reasonFor(row, state, now),
      waiting_until: row.status === 'pending' && row.next_attempt_at > now ? row.next_attempt_at : null,
      attempts: row.attempts,
      last_error: row.last_error,
      created_date: row.created_date,
    }));
  });
}

/** `running` is read per request: the routes are registered before the sync engine exists. */
export function registerSyncRoutes(
  app: TypedApp,
  running: () => { sync: SyncContext; engine: SyncEngine; folders?: AgentFolders | null; contents: ContentsPolicy },
): void {
  app.get('/sync/status/', { config: { throttle: 'none' }, schema: { tags, summary: 'Sync state', response: { 200: syncStatusJsonSchema } } }, () => running().engine.status());
  registerContentsRoutes(app, running);
  /** When each project was last read afresh because someone opened it: clicking through projects must not spend the org's file quota on each. */
  const readAfreshAt = new Map<number, number>();

  registerFolderRoutes(app, () => {
    const { sync, engine, folders } = running();
    return {
      engine: sync.engine,
      folders,
      stateName: async () => (await engine.status()).state,
      onConfirmed: () => engine.wake(),
      onRestored: () => engine.statusChanged(),
    };
  });

  app.get('/sync/conflicts/', { config: { throttle: 'none' }, schema: { tags, summary: 'Fields changed on both sides, with both values', response: { 200: z.array(syncConflictJsonSchema) } } }, async () => {
    const rows = await running().sync.db.selectFrom('sync_conflicts').selectAll().orderBy('id').execute();
    return rows.map((row): SyncConflictJson => ({
      id: row.id,
      model: row.model,
      record_id: row.record_id,
      field: row.field,
      local_value: JSON.parse(row.local_value) as unknown,
      remote_value: JSON.parse(row.remote_value) as unknown,
      base_value: JSON.parse(row.base_value) as unknown,
      reason: row.reason,
      created_date: row.created_date,
    }));
  });

  app.post(
    '/sync/pending/:id/retry/',
    {
      config: { throttle: 'none' },
      schema: {
        tags,
        summary: 'Send a parked change again (one the remote refused, or whose answers never showed it applied): it and the other parked changes of its record go out at the next push',
        params: z.object({ org_id: z.string(), id: idParam }),
        response: { 200: syncStatusJsonSchema },
      },
    },
    async (request) => {
      const { sync, engine } = running();
      await retryParked(sync.db, request.params.id, sync.clock.now().toISOString());
      engine.wake();
      return engine.status();
    },
  );

  app.post(
    '/sync/conflicts/:id/resolve/',
    {
      config: { throttle: 'none' },
      schema: {
        tags,
        summary: 'Settle a conflict',
        params: z.object({ org_id: z.string(), id: idParam }),
        body: z.object({
          choice: z.enum(['local', 'remote', 'value']),
          value: z.unknown().optional(),
          local_value: z.unknown().optional().describe('The local value the user was shown; if the field was edited here since, the answer is 409'),
          remote_value: z
            .unknown()
            .optional()
            .describe("The remote's value the user was shown; if a newer one has arrived since, keeping the local value or a typed one is refused with 409"),
        }),
        response: { 200: syncStatusJsonSchema },
      },
    },
    async (request) => {
      const { sync, engine } = running();
      await resolveConflict(sync, request.params.id, request.body.choice, request.body.value, { localValue: request.body.local_value, remoteValue: request.body.remote_value });
      engine.wake();
      return engine.status();
    },
  );

  app.get(
    '/sync/budget/',
    {
      config: { throttle: 'none' },
      schema: {
        tags,
        summary: "Today's spend of each quota bucket by this computer (UTC day), the org's daily quotas, background sync's allowance, and what waits for budget",
        response: { 200: syncBudgetJsonSchema },
      },
    },
    async (): Promise<SyncBudgetJson> => {
      const { sync, engine } = running();
      const now = sync.clock.now();
      const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
      const waiting = engine.budgetWaits();
      const due = await filesDue(sync);
      if (due.length && !waiting.some((wait) => wait.what.startsWith('files of'))) {
        waiting.push({ bucket: sync.remote.pacer.bucketKey(SYNC_MODELS.private_file.quota.list), what: `files of ${due.length} changed project${due.length === 1 ? '' : 's'}`, may_go_at: now.toISOString() });
      }
      return {
        day: now.toISOString().slice(0, 10),
        resets_at: midnight.toISOString(),
        background_share: sync.remote.pacer.backgroundShare,
        buckets: sync.remote.pacer.budget().map((bucket) => ({
          bucket: bucket.bucket,
          label: BUCKET_LABELS[bucket.bucket] ?? bucket.bucket,
          user: bucket.user,
          background: bucket.background,
          org_daily_quota: bucket.orgDailyQuota,
          background_allowance: bucket.backgroundAllowance,
          background_available: bucket.backgroundAvailable,
          next_background_at: bucket.nextBackgroundAt === null ? null : new Date(bucket.nextBackgroundAt).toISOString(),
        })),
        waiting,
      };
    },
  );
  app.post(
    '/sync/refresh/',
    {
      config: { throttle: 'none' },
      schema: {
        tags,
        summary: 'Read projects afresh from the remote (their records and private files), as work a person waits for: the project view calls it when a project is opened or refreshed',
        body: syncRefreshBodySchema,
        response: { 200: syncStatusJsonSchema },
      },
    },
    async (request) => {
      const { engine, sync } = running();
      const now = sync.clock.now().getTime();
      const asked = [...(request.body.project_ids ?? []), ...(request.body.project_id === undefined ? [] : [request.body.project_id])];
      const ids = asked.filter((id) => request.body.force || now - (readAfreshAt.get(id) ?? Number.NEGATIVE_INFINITY) >= OPENED_PROJECT_FRESH_MS);
      for (const id of ids) readAfreshAt.set(id, now);
      // Between reads, the change feed or the budgeted polls bring what changes.
      if (ids.length) engine.requestPull('user', { projectIds: ids });
      return engine.status();
    },
  );

  app.post('/sync/pause/', { config: { throttle: 'none' }, schema: { tags, summary: 'Pause sync', response: { 200: syncStatusJsonSchema } } }, async () => {
    const { engine } = running();
    await engine.pause();
    return engine.status();
  });
  app.post('/sync/resume/', { config: { throttle: 'none' }, schema: { tags, summary: 'Resume sync', response: { 200: syncStatusJsonSchema } } }, async () => {
    const { engine } = running();
    await engine.resume();
    return engine.status();
  });
}
