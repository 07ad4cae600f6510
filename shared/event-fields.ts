// An event's fields as sync carries them and as people name them. Sync compares,
// merges and raises conflicts in terms of these fields (main/sync/models/event.ts
// eventView); the Sync screen's conflict inbox shows them by these labels.

/** The hosted Event record's writable fields (hosted-docs-facts.md 9), as sync carries them: references as ids. */
export const EVENT_SYNC_FIELDS = [
  'title', 'notes', 'event_type', 'event_type_id', 'project_id', 'contact', 'start', 'end', 'duration',
  'is_complete', 'completion_date', 'is_archived', 'task_status', 'team_members', 'repeat', 'location_override',
] as const;
export type EventSyncField = (typeof EVENT_SYNC_FIELDS)[number];

/** How a person names each field of an event (a conflict on `team_members` reads "Who goes"). */
export const EVENT_FIELD_LABELS: Readonly<Record<EventSyncField, string>> = {
  title: 'Title',
  notes: 'Notes',
  event_type: 'Kind (SolarDesk name)',
  event_type_id: 'Kind',
  project_id: 'Project',
  contact: 'Contact',
  start: 'Starts',
  end: 'Ends',
  duration: 'Duration',
  is_complete: 'Done',
  completion_date: 'Done on',
  is_archived: 'Archived',
  task_status: 'Task status',
  team_members: 'Who goes',
  repeat: 'Repeats',
  location_override: 'Place (instead of the project address)',
};

/** The label of an event field, or null for a name that is not one of them. */
export function eventFieldLabel(field: string): string | null {
  return Object.hasOwn(EVENT_FIELD_LABELS, field) ? EVENT_FIELD_LABELS[field as EventSyncField] : null;
}
