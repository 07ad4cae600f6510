// A project event (a note, a stage change...) as the API answers it: on its own
// endpoints and in a project's events_data.
import { z } from 'zod';

export const eventJsonSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  org_id: z.number().int(),
  org: z.string(),
  project: z.string().nullable(),
  project_id: z.number().int().nullable(),
  event_type: z.string(),
  title: z.string(),
  notes: z.string(),
  user: z.string().nullable(),
  created_date: z.string(),
  modified_date: z.string(),
});
export type EventJson = z.infer<typeof eventJsonSchema>;
