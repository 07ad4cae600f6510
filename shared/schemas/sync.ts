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
  status: z.string().describe('pending, in_flight, parked (the remote refused it) or held (waits for the user)'),
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
  created_date: z.string(),
});
export type SyncConflictJson = z.infer<typeof syncConflictJsonSchema>;

/** POST .../sync/pending/<id>/confirm/ */
export const heldDeleteConfirmedJsonSchema = z.object({ file_id: z.number().int(), deleted: z.boolean() });
/** POST .../sync/pending/<id>/restore/ */
export const heldDeleteRestoredJsonSchema = z.object({ file_id: z.number().int(), restored: z.boolean() });
