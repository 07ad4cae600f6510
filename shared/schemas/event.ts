// A project event (a note, a stage change...) as the API answers it: on its own
// endpoints, in a project's events_data and in Event webhook deliveries. The
// fields are the hosted Event record's (hosted-docs-facts.md 9), plus SolarDesk's
// own `org_id`, `project_id` and `event_type` (the name the app and older clients use).
// The facts page names the hosted fields but not the type of each; where SolarDesk
// only ever sends null and the hosted type is not documented, the schema takes any
// value, so that sync (main/sync/remote-records.ts parses remote events with it)
// never skips a hosted event over a guessed type.
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
  team_members: z.array(z.unknown()).describe('SolarDesk: always []'),
  created_date: z.string(),
  modified_date: z.string(),
  completion_date: z.string().nullable(),
  start: z.string().nullable(),
  end: z.string().nullable(),
  duration: z.union([z.number(), z.string()]).nullable(),
  repeat: z.unknown().describe('SolarDesk: null'),
  is_complete: z.boolean(),
  is_archived: z.boolean(),
  archive_for: z.unknown().describe('SolarDesk: null'),
  task_status: z.unknown().describe('SolarDesk: null'),
  location_override: z.unknown().describe('SolarDesk: null'),
  who: eventWhoSchema.nullable().describe('the person who made the event, null for one the service recorded by itself'),
});
export type EventJson = z.infer<typeof eventJsonSchema>;
