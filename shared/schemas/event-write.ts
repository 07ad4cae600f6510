// What a client may write to an event (POST, PATCH and PUT of /events/): the hosted
// Event record's writable fields, with the rules of shared/field-rules.ts. References
// (`project`, `contact`, `team_members`) are URLs or ids; whether they name records
// of the actor's org that the actor may see is the engine's to check.
import { z } from 'zod';
import { EVENT_FIELD_RULES } from '../field-rules.ts';
import { isEventTypeId } from '../event-types.ts';
import { integerField, stringField } from './coercing-fields.ts';

// No .describe() on a field whose parsed value differs from what it accepts (a number
// taken as text, "2" as 2, "true" as true): the OpenAPI converter then documents the
// parsed type alone, and clients and the hardening suite (which sends every type the
// document says is refused) would take accepted spellings for refused ones. Those
// fields say what they are in a comment instead.
const reference = () => z.union([z.string(), z.number()], { error: 'Incorrect type. Expected URL string.' }).nullable().optional();

export const eventUpdateSchema = z.object({
  project: reference().describe('the project URL (or id); null for an org-wide event'),
  contact: reference().describe('the URL (or id) of a contact of the organisation; null for none'),
  title: stringField().refine((title) => title.trim() !== '', 'This field may not be blank.').optional(),
  notes: stringField().optional(),
  event_type: stringField().optional(),
  // the kind, from the fixed table of event types; default: that of event_type, else 31 (Note)
  event_type_id: integerField()
    .refine(isEventTypeId, 'Not a known event type id (hosted-docs-facts.md 9: the fixed table of event kinds).')
    .optional(),
  start: EVENT_FIELD_RULES.start.optional().describe('ISO 8601 date-time; without an offset it is UTC'),
  end: EVENT_FIELD_RULES.end.optional().describe('ISO 8601 date-time, not before start'),
  duration: EVENT_FIELD_RULES.duration.optional().describe('"[D ]HH:MM:SS" or a number of seconds'),
  // true completes the event; completion_date defaults to now
  is_complete: EVENT_FIELD_RULES.is_complete.optional(),
  completion_date: EVENT_FIELD_RULES.completion_date.optional(),
  is_archived: EVENT_FIELD_RULES.is_archived.optional(),
  // a whole-number status code
  task_status: EVENT_FIELD_RULES.task_status.optional(),
  team_members: EVENT_FIELD_RULES.team_members.optional().describe("URLs (or ids) of the organisation's roles"),
  repeat: z.unknown().optional().describe('stored and answered as sent (the hosted service does not document its shape)'),
  // where the event is, when not at its project
  location_override: EVENT_FIELD_RULES.location_override.optional(),
});

/** A create: `title` is required. */
export const eventCreateSchema = eventUpdateSchema.extend({
  title: stringField().refine((title) => title.trim() !== '', 'This field may not be blank.'),
});

export type EventUpdate = z.output<typeof eventUpdateSchema>;
export type EventCreate = z.output<typeof eventCreateSchema>;
