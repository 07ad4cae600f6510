// What a client may write to a contact, on its own endpoint or in a project's contacts_new.
import { z } from 'zod';
import { dateField, integerField, stringField } from './coercing-fields.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const contactWriteSchema = z.object({
  first_name: stringField().optional(),
  family_name: stringField().optional(),
  email: stringField()
    .refine((email) => email === '' || EMAIL.test(email), 'Enter a valid email address.')
    .optional(),
  phone: stringField().optional(),
  passport_number: stringField().optional(),
  licence_number: stringField().optional(),
  custom_contact_info_1: stringField().optional(),
  custom_contact_info_2: stringField().optional(),
  identifier: stringField().optional(),
  type: integerField().optional(),
  date_of_birth: dateField().nullable().optional(),
  gender: integerField()
    .refine((gender) => gender === 0 || gender === 1 || gender === 2, '"gender" must be 0 (unset), 1 (female) or 2 (male).')
    .optional(),
});

export type ContactWrite = z.output<typeof contactWriteSchema>;
