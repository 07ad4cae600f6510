// What a client may write to a contact, on its own endpoint or in a project's contacts_new.
import { z } from 'zod';
import { CONTACT_FIELD_RULES } from '../field-rules.ts';
import { integerField, stringField } from './coercing-fields.ts';

export const contactWriteSchema = z.object({
  first_name: stringField().optional(),
  family_name: stringField().optional(),
  // Email, date of birth and gender keep the rules of shared/field-rules.ts.
  email: CONTACT_FIELD_RULES.email.optional(),
  phone: stringField().optional(),
  passport_number: stringField().optional(),
  licence_number: stringField().optional(),
  custom_contact_info_1: stringField().optional(),
  custom_contact_info_2: stringField().optional(),
  identifier: stringField().optional(),
  type: integerField().optional(),
  date_of_birth: CONTACT_FIELD_RULES.date_of_birth.optional(),
  gender: CONTACT_FIELD_RULES.gender.optional(),
});

export type ContactWrite = z.output<typeof contactWriteSchema>;
