// A contact as the API answers it (service.md 2.1, "Contact record shape"): on its
// own endpoints and in a project's contacts_data. The engine's serializer is typed
// by it, the OpenAPI document shows it, the renderer and sync read its type.
import { z } from 'zod';

export const contactJsonSchema = z.object({
  id: z.number().int(),
  org_id: z.number().int(),
  url: z.string(),
  first_name: z.string(),
  family_name: z.string(),
  display: z.string().describe('first and family name, or the email when both are blank'),
  email: z.string(),
  phone: z.string(),
  passport_number: z.string(),
  licence_number: z.string(),
  custom_contact_info_1: z.string(),
  custom_contact_info_2: z.string(),
  identifier: z.string(),
  user_id: z.number().int().nullable(),
  type: z.number().int(),
  date_of_birth: z.string().nullable(),
  gender: z.number().int().describe('0 unset, 1 female, 2 male'),
  created_date: z.string(),
  modified_date: z.string(),
});
export type ContactJson = z.infer<typeof contactJsonSchema>;
