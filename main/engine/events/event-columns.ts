// An event's one mapper from its checked values to its columns (issue 26): the
// engine's writes (event-service.ts) and the replica's copies of remote events
// (main/sync/models/event.ts) both store through eventColumnsOf, so a time, a flag,
// the team or the kind is stored one way whoever writes it. What each writer checks
// or parses before (references within the actor's org, a remote's spellings) stays
// with it; the way back, row to JSON, is serializeEvent (events.ts).
import type { EventRow } from '../store/tables.ts';
import { eventTypeIdOf, eventTypeNameOf } from '../../../shared/event-types.ts';
import { toFlag } from '../store/portable-columns.ts';

export type EventColumns = Partial<Omit<EventRow, 'id' | 'org_id' | 'created_date' | 'modified_date' | 'user_id'>>;

/** An event's writable fields once checked: references as ids, times as ISO text, the duration in seconds. */
export interface EventValues {
  title: string;
  notes: string;
  /** The kind by name, by id, or both: either alone gives the other (shared/event-types.ts); neither is a note. */
  event_type: string | null;
  event_type_id: number | null;
  project_id: number | null;
  contact_id: number | null;
  /** Role ids; a role named twice is one team member. */
  team_members: readonly number[];
  start: string | null;
  end: string | null;
  duration: number | null;
  is_complete: boolean;
  completion_date: string | null;
  is_archived: boolean;
  task_status: number | null;
  /** Kept as sent (the hosted service does not document its shape). */
  repeat: unknown;
  location_override: string | null;
}

/** The columns of the fields `values` holds; a field left out (undefined) sets nothing. */
export function eventColumnsOf(values: Partial<EventValues>): EventColumns {
  const columns: EventColumns = {};
  if (values.title !== undefined) columns.title = values.title;
  if (values.notes !== undefined) columns.notes = values.notes;
  if (values.event_type !== undefined || values.event_type_id !== undefined) {
    const typeId = values.event_type_id ?? null;
    columns.event_type = values.event_type || (typeId === null ? 'note' : eventTypeNameOf(typeId));
    columns.event_type_id = typeId ?? eventTypeIdOf(columns.event_type);
  }
  if (values.project_id !== undefined) columns.project_id = values.project_id;
  if (values.contact_id !== undefined) columns.contact_id = values.contact_id;
  if (values.team_members !== undefined) columns.team_member_role_ids = JSON.stringify([...new Set(values.team_members)]);
  if (values.start !== undefined) columns.starts_at = values.start;
  if (values.end !== undefined) columns.ends_at = values.end;
  if (values.duration !== undefined) columns.duration_seconds = values.duration;
  if (values.is_complete !== undefined) columns.is_complete = toFlag(values.is_complete);
  if (values.completion_date !== undefined) columns.completion_date = values.completion_date;
  if (values.is_archived !== undefined) columns.is_archived = toFlag(values.is_archived);
  if (values.task_status !== undefined) columns.task_status = values.task_status;
  if (values.repeat !== undefined) columns.repeat_json = values.repeat === null ? null : JSON.stringify(values.repeat);
  if (values.location_override !== undefined) columns.location_override = values.location_override;
  return columns;
}
