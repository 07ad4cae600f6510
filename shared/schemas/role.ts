// A role (a person's place in an org) as the API answers it (service.md 2.1, "Role
// record shape"): on its own endpoints and in a project's assigned_*_role_data.
import { z } from 'zod';

export const roleJsonSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  org: z.string(),
  org_name: z.string(),
  user: z.string().nullable(),
  email: z.string(),
  user_email: z.string(),
  first_name: z.string(),
  family_name: z.string(),
  display: z.string(),
  job_title: z.string(),
  accreditation: z.string(),
  phone: z.string(),
  user_phone: z.string(),
  is_admin: z.boolean(),
  is_hidden: z.boolean(),
  allow_email_notifications: z.boolean(),
  has_logged_in: z.boolean(),
  user_is_staff: z.boolean(),
  portrait_image: z.string().nullable(),
  external_calendar_id: z.string().nullable(),
  google_calendar_id: z.string().nullable().describe("the hosted service's name of external_calendar_id: the same value"),
  schedule_meeting_url: z.string(),
  schedule_meeting_label: z.string(),
  api_key_chat: z.string().describe('always blank: this engine holds no chat key'),
});
export type RoleJson = z.infer<typeof roleJsonSchema>;
