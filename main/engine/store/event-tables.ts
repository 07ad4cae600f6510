// Row types of the engine's tables for project activity and what follows from it:
// events, webhooks and their deliveries, the change log, and the throttles'
// buckets. Part of the engine's tables (tables.ts composes them into EngineTables);
// stored as tables.ts says (0/1 booleans, ISO 8601 UTC text).
import type { Generated } from 'kysely';
import type { Flag } from './portable-columns.ts';

/** Activity on a project (created, stage changed, file added...) or a note a user added. */
export interface EventsTable {
  id: Generated<number>;
  org_id: number;
  project_id: number | null;
  event_type: string;
  /** The hosted kind (shared/event-types.ts, migration 0017). */
  event_type_id: Generated<number>;
  /** The contact an activity event is about (contact_added, contact_removed), or null. */
  contact_id: number | null;
  title: string;
  notes: string;
  user_id: number | null;
  created_date: string;
  modified_date: string;
  // The schedule (migration 0024): ISO 8601 UTC text, or null for an event with no time.
  starts_at: Generated<string | null>;
  ends_at: Generated<string | null>;
  duration_seconds: Generated<number | null>;
  is_complete: Generated<Flag>;
  completion_date: Generated<string | null>;
  is_archived: Generated<Flag>;
  task_status: Generated<number | null>;
  /** JSON array of the org's role ids: the event's `team_members`. */
  team_member_role_ids: Generated<string>;
  /** The client's `repeat` as JSON text, or null. */
  repeat_json: Generated<string | null>;
  location_override: Generated<string | null>;
}

export interface WebhooksTable {
  id: Generated<number>;
  org_id: number;
  endpoint: string;
  enabled: Flag;
  debug: Flag;
  /** JSON array of paths, or null. */
  trigger_fields: string | null;
  payload_fields: string | null;
  /** The JSON-encoded header object, as the client sent it. */
  headers: string | null;
  created_date: string;
  modified_date: string;
}

export interface WebhookChangesTable {
  id: Generated<number>;
  org_id: number;
  model: string;
  model_id: number;
  event: string;
  occurred_at: string;
}

/** One record a committed write changed (migration 0011): what the change feed lists. */
export interface ChangeLogTable {
  /** The cursor: rows of one org are numbered in commit order (writes to an org are serialised). */
  id: Generated<number>;
  org_id: number;
  model: string;
  record_id: number;
  op: string;
  project_id: number | null;
  modified_date: string;
  logged_at: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: number;
  change_id: number;
  /** The exact JSON body to POST, fixed when the change was captured. */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  first_attempt_at: string | null;
  last_error: string | null;
  created_date: string;
  finished_at: string | null;
  /** The process whose worker is delivering it now (its claim), and until when the claim holds. */
  claimed_by: string | null;
  claimed_until: string | null;
  /** When the worker holding the claim took it (migration 0018); null while no worker holds it. The queue's `processing_started_at`. */
  processing_started_at: string | null;
}

export interface WebhookProcessLogsTable {
  id: Generated<number>;
  org_id: number;
  webhook_id: number;
  delivery_id: number;
  attempt: number;
  created_date: string;
  successful: Flag;
  model_name: string;
  model_pk: number;
  event_id: number;
  event_name: string;
  event_timestamp: string;
  notes: string;
}

export interface ThrottleBucketsTable {
  scope_key: string;
  /** Epoch milliseconds at which this bucket's slice of the window starts. */
  bucket_start: number;
  hits: number;
}
