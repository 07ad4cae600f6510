// The answers of the sync routes the agent serves on the local API
// (main/sync/sync-routes.ts; their paths are in shared/sync-api.ts).
import { z } from 'zod';

/** GET .../sync/status/, and the answer of resolve, pause and resume. */
export const syncStatusJsonSchema = z.object({
  state: z.string().describe('idle, syncing, offline, paused, needs_sign_in or error'),
  pending: z.number().int(),
  conflicts: z.number().int(),
  last_synced_at: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
  remote_reachable: z.boolean(),
  detail: z.string().nullable().describe('what the state is about, in words (the offline reason, the error)'),
});
export type SyncStatusJson = z.infer<typeof syncStatusJsonSchema>;

/** One queued change of GET .../sync/pending/. Held deletes wait for POST .../confirm/. */
export const pendingChangeJsonSchema = z.object({
  id: z.number().int(),
  op_id: z.string(),
  model: z.string(),
  record_id: z.number().int(),
  op: z.string().describe('create, update or delete'),
  fields: z.array(z.string()).describe('the fields an update carries'),
  status: z.string().describe('pending, in_flight, parked (the remote refused it, or its answers never showed it applied: POST .../retry/ sends it again) or held (waits for the user)'),
  reason: z.string().describe('why it has not gone yet, in words'),
  waiting_until: z.string().nullable().describe('when it is tried next; null when it is not waiting for a time'),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
  created_date: z.string(),
});
export type PendingChangeJson = z.infer<typeof pendingChangeJsonSchema>;

/** One conflict of GET .../sync/conflicts/: a field both sides changed to different values. */
export const syncConflictJsonSchema = z.object({
  id: z.number().int(),
  model: z.string(),
  record_id: z.number().int(),
  field: z.string(),
  local_value: z.unknown(),
  remote_value: z.unknown(),
  base_value: z.unknown(),
  reason: z.string().nullable().describe('why it is a conflict when not both sides changed it (the server did not take the value sent); null: both sides changed it'),
  created_date: z.string(),
});
export type SyncConflictJson = z.infer<typeof syncConflictJsonSchema>;

/** POST .../sync/pending/<id>/confirm/ */
export const heldDeleteConfirmedJsonSchema = z.object({ file_id: z.number().int(), deleted: z.boolean() });
/** POST .../sync/pending/<id>/restore/ */
export const heldDeleteRestoredJsonSchema = z.object({ file_id: z.number().int(), restored: z.boolean() });

/** One quota bucket of GET .../sync/budget/: what this computer spent of it today (UTC), and what background sync may spend. */
export const syncBudgetBucketJsonSchema = z.object({
  bucket: z.string().describe('the throttle bucket (shared/throttle-rates.ts): private_files, project_detail, default...'),
  label: z.string().describe('the bucket in words'),
  user: z.number().int().describe("requests this computer sent today for work a person waited for"),
  background: z.number().int().describe('requests this computer sent today for background sync (polls, sweeps)'),
  org_daily_quota: z.number().int().nullable().describe("the org's quota of this bucket per day, for all its users and computers together; null: none"),
  background_allowance: z.number().int().nullable().describe("how many a day this computer's background sync may spend (the share of the org quota)"),
  background_available: z.number().int().describe('background requests that may go now'),
  next_background_at: z.string().nullable().describe('when the next background request may go, if not now'),
});
export type SyncBudgetBucketJson = z.infer<typeof syncBudgetBucketJsonSchema>;

/** Background work left for want of budget, and when it may go. */
export const syncBudgetWaitJsonSchema = z.object({
  bucket: z.string(),
  what: z.string().describe('the work, in words'),
  may_go_at: z.string().describe('the earliest it may go'),
});
export type SyncBudgetWaitJson = z.infer<typeof syncBudgetWaitJsonSchema>;

/** GET .../sync/budget/ */
export const syncBudgetJsonSchema = z.object({
  day: z.string().describe('the UTC day the spend is counted for (YYYY-MM-DD)'),
  resets_at: z.string().describe('when the count starts again (the next UTC midnight)'),
  background_share: z.number().describe('the share of each org quota background sync may spend (0.02: 2 %)'),
  buckets: z.array(syncBudgetBucketJsonSchema),
  waiting: z.array(syncBudgetWaitJsonSchema),
});
export type SyncBudgetJson = z.infer<typeof syncBudgetJsonSchema>;

/** POST .../sync/refresh/: read projects afresh (their records and private files) as work a person waits for. */
export const syncRefreshBodySchema = z.object({
  project_id: z.number().int().positive().optional().describe('one project to read afresh'),
  project_ids: z.array(z.number().int().positive()).max(100).optional().describe('several'),
  force: z.boolean().optional().describe('read even a project read afresh in the last few minutes (the user pressed refresh); without it, opening a project again soon costs nothing'),
});
