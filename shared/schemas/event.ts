// A project event (a note, a stage change...) as the API answers it: on its own
// endpoints, in a project's events_data and in Event webhook deliveries. The
// fields are the hosted Event record's (hosted-docs-facts.md 9), plus SolarDesk's
// own `org_id`, `project_id` and `event_type` (the name the app and older clients use).
// The facts page names the hosted fields but not the type of each. SolarDesk answers
// DRF's types (shared/field-rules.ts EVENT_FIELD_RULES); where the hosted type is not
// documented, the schema still takes any value, so that sync
// (main/sync/remote-records.ts parses remote events with it) never skips a hosted
// event over a guessed type.
import { z } from 'zod';

export const eventWhoSchema = z.object({
  display: z.string().nullable(),
  email: z.string().nullable(),
  portrait_image_public_url: z.string().nullable(),
});

export const eventJsonSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  org_id: z.number().int(),
  org: z.string(),
  project: z.string().nullable(),
  project_id: z.number().int().nullable(),
  project_name: z.string().nullable().describe('the title of the project, null for an org-wide event'),
  title: z.string(),
  notes: z.string(),
  event_type_id: z.number().int().describe('the kind, from the fixed table of shared/event-types.ts'),
  event_type: z.string().describe('SolarDesk extension: its own name of the kind (note, stage_changed, project_created...)'),
  action: z.string().nullable().describe('the workflow action the event belongs to; SolarDesk links none'),
  contact: z.string().nullable().describe('URL of the contact the event is about, or null'),
  user: z.string().nullable(),
  team_members: z.array(z.unknown()).describe("URLs of the organisation's roles who go"),
  created_date: z.string(),
  modified_date: z.string(),
  completion_date: z.string().nullable().describe('when it was completed (ISO 8601 UTC); null while open'),
  start: z.string().nullable().describe('ISO 8601 UTC date-time; null for an event with no time (a note)'),
  end: z.string().nullable().describe('ISO 8601 UTC date-time, not before start'),
  duration: z.union([z.number(), z.string()]).nullable().describe('SolarDesk answers DRF\'s "[D ]HH:MM:SS"'),
  repeat: z.unknown().describe('as the client wrote it (its shape is not documented by the hosted service); null for none'),
  is_complete: z.boolean(),
  is_archived: z.boolean(),
  archive_for: z.unknown().describe('SolarDesk: null (not kept)'),
  task_status: z.unknown().describe('SolarDesk: a whole-number code, or null'),
  location_override: z.unknown().describe('where it is when not at its project (text), or null'),
  who: eventWhoSchema.nullable().describe('the person who made the event, null for one the service recorded by itself'),
});
export type EventJson = z.infer<typeof eventJsonSchema>;
