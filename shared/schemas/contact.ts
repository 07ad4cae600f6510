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
  org: z.string().describe('URL of the org (hosted-docs-facts.md 9, Contact payload)'),
  user: z.string().nullable().describe('URL of the user this contact signs in as, or null'),
});
export type ContactJson = z.infer<typeof contactJsonSchema>;

/**
 * A contact on its own endpoints and in Contact webhook deliveries: also the URLs of
 * its projects (those the caller may see; a delivery lists them all). A project's
 * contacts_data leaves them out.
 */
export const contactRecordSchema = contactJsonSchema.extend({
  projects: z.array(z.string()).describe("URLs of the contact's projects"),
});
export type ContactRecordJson = z.infer<typeof contactRecordSchema>;
