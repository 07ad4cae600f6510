// The rules a project's and a contact's values must keep to be true: a latitude on
// the globe, a date that exists, a known country, a count that is whole and not
// negative, an email that is one. This file is their one source: the engine's write
// schemas (shared/schemas/project-write.ts, contact-write.ts) are built from the
// schemas below, so a 400 from the engine and the message beside a box in the app
// say the same thing. Each rule looks only at the fields it is given, so a record
// stored with an old bad value stays editable field by field.
//
// Everything the hosted service accepts stays accepted (compatibility.md): numbers
// as strings ("35.12"), `gender` "2", null where the field is nullable. Postal codes
// are never refused (formats change and exceptions exist): postalCodeWarning only warns.
import { z } from 'zod';
import { parseOrgReference, parseRoofTypeReference } from './api-paths.ts';
import { countryNumericCode } from './countries.ts';
import { WRITABLE_PLAIN_FIELDS, type WritablePlainField } from './project-fields.ts';
import { findRoofType } from './roof-types.ts';
import { booleanField, dateField, integerField, schemaForKind, stringField } from './schemas/coercing-fields.ts';

/** DRF's field-error shape: `{"lat": ["Latitude must be between -90 and 90."]}`. */
export type FieldErrors = Record<string, string[]>;

const isIn = (min: number, max: number) => (value: number | null) => value === null || (value >= min && value <= max);

/** A coordinate: a number (or numeric text) from -`limit` to `limit`, edges included, or null. */
function coordinateSchema(field: 'lat' | 'lon', label: string, limit: number, example: string) {
  return (schemaForKind(WRITABLE_PLAIN_FIELDS[field].kind, `${label} must be a number, such as ${example}.`) as z.ZodType<number | null>).refine(
    isIn(-limit, limit),
    `${label} must be between -${limit} and ${limit}.`,
  );
}

/** How a person names each ruled project field, in its messages. */
const LABELS = {
  number_of_phases: 'Number of phases',
  number_of_wires: 'Number of wires',
  number_of_storeys: 'Number of storeys',
  years_to_simulate: 'Years to simulate',
  contract_date: 'Contract date',
  installation_date: 'Installation date',
  sold_date: 'Sold date',
  valid_until_date: 'Valid until date',
} as const satisfies Partial<Record<WritablePlainField, string>>;

/**
 * A whole-number count of things on a site or in a forecast: never fractional, never
 * negative. (`priority` and `has_cellular_coverage` are integers too, but codes, not counts.)
 */
function countSchema(field: 'number_of_phases' | 'number_of_wires' | 'number_of_storeys' | 'years_to_simulate') {
  const label = LABELS[field];
  return (schemaForKind(WRITABLE_PLAIN_FIELDS[field].kind, `${label} must be a whole number, such as 2.`) as z.ZodType<number | null>).refine(
    (value) => value === null || value >= 0,
    `${label} cannot be negative.`,
  );
}

const dateMessage = (label: string) => `${label} must be a real date, such as 2026-03-31.`;

/** One of the dates a project takes. */
function projectDateSchema(field: 'contract_date' | 'installation_date' | 'sold_date' | 'valid_until_date') {
  return schemaForKind(WRITABLE_PLAIN_FIELDS[field].kind, dateMessage(LABELS[field]));
}

const COUNTRY_CODE_MESSAGE = 'Enter a 2-letter country code, such as AU, US or GB.';

/** Kept word for word: the hosted service's answer for a URL that names nothing, which clients already handle. */
const UNKNOWN_ROOF_TYPE = 'Invalid hyperlink - Object does not exist.';

/** The project fields that have a rule, each as the schema the engine parses a write with. */
export const PROJECT_FIELD_RULES = {
  lat: coordinateSchema('lat', 'Latitude', 90, '-33.86'),
  lon: coordinateSchema('lon', 'Longitude', 180, '151.21'),
  number_of_phases: countSchema('number_of_phases'),
  number_of_wires: countSchema('number_of_wires'),
  number_of_storeys: countSchema('number_of_storeys'),
  years_to_simulate: countSchema('years_to_simulate'),
  contract_date: projectDateSchema('contract_date'),
  installation_date: projectDateSchema('installation_date'),
  sold_date: projectDateSchema('sold_date'),
  valid_until_date: projectDateSchema('valid_until_date'),
  country_iso2: z
    .string({ error: COUNTRY_CODE_MESSAGE })
    .regex(/^[A-Za-z]{2}$/, COUNTRY_CODE_MESSAGE)
    .transform((code) => code.toUpperCase())
    .refine((code) => countryNumericCode(code) !== undefined, 'There is no country with this code: use its 2-letter ISO code, such as AU, US or GB.'),
  // A URL (or id) of the roof type catalogue (GET /api/roof_types/); null or "" clears it.
  roof_type: z
    .union([z.string(), z.number()], { error: 'Incorrect type. Expected URL string.' })
    .nullable()
    .refine((reference) => {
      if (reference === null || reference === '') return true;
      const id = parseRoofTypeReference(reference);
      return id !== null && findRoofType(id) !== undefined;
    }, UNKNOWN_ROOF_TYPE),
} satisfies Record<string, z.ZodType>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const GENDER_MESSAGE = 'Gender must be 0 (not given), 1 (female) or 2 (male).';

/** The contact fields that have a rule (on the contact's own endpoint and in a project's `contacts_new`). */
export const CONTACT_FIELD_RULES = {
  email: stringField().refine((email) => email === '' || EMAIL.test(email), 'Enter a valid email address.'),
  date_of_birth: dateField(dateMessage('Date of birth')).nullable(),
  // "2" as text is what integrations send (compatibility.md).
  gender: integerField(GENDER_MESSAGE).refine((gender) => gender === 0 || gender === 1 || gender === 2, GENDER_MESSAGE),
} satisfies Record<string, z.ZodType>;

// An event's schedule (issue 27). The hosted service documents the Event record's
// field names but not their types (hosted-docs-facts.md 9); it is a Django REST
// framework service, so SolarDesk takes DRF's: date-times in ISO 8601, a duration as
// "[D ]HH:MM:SS" (or a number of seconds), a task status as a whole-number code.

const DATE_TIME_TEXT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An ISO 8601 date-time as the UTC instant it names ("2026-03-31T09:00:00.000Z"), or
 * null when the text is not one or names a day or time that does not exist. A time
 * without an offset is UTC, as every timestamp of the API is.
 */
export function parseDateTime(text: string): string | null {
  const match = DATE_TIME_TEXT.exec(text.trim());
  if (!match) return null;
  const [, year, month, day, hour, minute, second = '00', fraction = '', zone = 'Z'] = match;
  const parts = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  const local = new Date(Date.UTC(parts[0], parts[1] - 1, parts[2], parts[3], parts[4], parts[5]));
  // Date.UTC rolls 31 April over to 1 May and 25:00 to the next day: such a date-time is not a real one.
  const real =
    local.getUTCFullYear() === parts[0] && local.getUTCMonth() === parts[1] - 1 && local.getUTCDate() === parts[2] &&
    local.getUTCHours() === parts[3] && local.getUTCMinutes() === parts[4] && local.getUTCSeconds() === parts[5];
  if (!real) return null;
  const offsetMinutes = zone.toUpperCase() === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  const milliseconds = fraction === '' ? 0 : Math.floor(Number(`0${fraction}`) * 1000);
  return new Date(local.getTime() + milliseconds - offsetMinutes * 60_000).toISOString();
}

const dateTimeMessage = (label: string) => `${label} must be a date and time, such as 2026-03-31T09:00:00Z.`;

/** An optional date-time: normalised to UTC; null or "" clears it. */
function dateTimeSchema(label: string) {
  const invalid = dateTimeMessage(label);
  return z
    .string({ error: invalid })
    .nullable()
    .transform((text, context) => {
      if (text === null || text.trim() === '') return null;
      const instant = parseDateTime(text);
      if (instant === null) context.addIssue({ code: 'custom', message: invalid });
      return instant;
    });
}

const DURATION_TEXT = /^(?:(\d+) )?(\d{1,2}):(\d{2}):(\d{2})(?:\.\d{1,6})?$/;
const DURATION_MESSAGE = 'Duration must be a length of time, such as 01:30:00 for an hour and a half, or a number of seconds.';

/** A duration in whole seconds from DRF's "[D ]HH:MM:SS" or a number of seconds; null when it is neither. */
export function parseDurationSeconds(value: string | number): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.round(value) : null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text));
  const match = DURATION_TEXT.exec(text);
  if (!match || Number(match[3]) > 59 || Number(match[4]) > 59) return null;
  return Number(match[1] ?? 0) * 86_400 + Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4]);
}

/** Seconds as DRF writes a duration: "01:30:00", "1 02:00:00" past a day. */
export function formatDuration(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const rest = seconds % 86_400;
  const pad = (value: number) => String(value).padStart(2, '0');
  const clock = `${pad(Math.floor(rest / 3600))}:${pad(Math.floor((rest % 3600) / 60))}:${pad(rest % 60)}`;
  return days > 0 ? `${days} ${clock}` : clock;
}

const TEAM_MEMBER_MESSAGE = "Each team member must be the URL of one of the organisation's roles, such as /api/orgs/1/roles/3/.";
const END_BEFORE_START = 'The end cannot be before the start: check both times.';

/** The event fields that have a rule (POST, PATCH and PUT of /events/). */
export const EVENT_FIELD_RULES = {
  start: dateTimeSchema('Start'),
  end: dateTimeSchema('End'),
  completion_date: dateTimeSchema('Completion date'),
  duration: z
    .union([z.number(), z.string()], { error: DURATION_MESSAGE })
    .nullable()
    .transform((value, context) => {
      if (value === null || value === '') return null;
      const seconds = parseDurationSeconds(value);
      if (seconds === null) context.addIssue({ code: 'custom', message: DURATION_MESSAGE });
      else if (seconds < 0) context.addIssue({ code: 'custom', message: 'Duration cannot be negative.' });
      return seconds;
    }),
  is_complete: booleanField(),
  is_archived: booleanField(),
  // The check before .nullable(): after it, the OpenAPI document would show whole numbers only, not "2".
  task_status: integerField('Task status must be a whole number code, such as 1.')
    .refine((status) => status >= 0, 'Task status cannot be negative.')
    .nullable(),
  // Whether each names a role of the actor's org is the engine's to check; here, that it names a role at all.
  team_members: z
    .array(z.union([z.string(), z.number()]), { error: 'Team members must be a list of role URLs.' })
    .refine((references) => references.every((reference) => parseOrgReference(reference, 'roles') !== null), TEAM_MEMBER_MESSAGE),
  location_override: stringField().nullable(),
} satisfies Record<string, z.ZodType>;

/** The message for a schedule whose end comes before its start (both UTC ISO text), or null. */
export function eventTimeError(start: string | null, end: string | null): string | null {
  return start !== null && end !== null && end < start ? END_BEFORE_START : null;
}

/** The messages of the rules in `rules` broken by the fields present in `fields`; fields without a rule are not looked at. */
function errorsOf(rules: Record<string, z.ZodType>, fields: Record<string, unknown>): FieldErrors {
  const errors: FieldErrors = {};
  for (const [field, value] of Object.entries(fields)) {
    const rule = Object.hasOwn(rules, field) ? rules[field] : undefined;
    if (!rule || value === undefined) continue;
    const parsed = rule.safeParse(value);
    if (!parsed.success) errors[field] = [...new Set(parsed.error.issues.map((issue) => issue.message))];
  }
  return errors;
}

/** What is wrong with a contact's fields, by field; `{}` when nothing is. */
export function contactFieldErrors(fields: Record<string, unknown>): FieldErrors {
  return errorsOf(CONTACT_FIELD_RULES, fields);
}

/**
 * What is wrong with a project's fields, by field; `{}` when nothing is. The contacts
 * of `contacts_new` are checked as contacts; their messages are listed under
 * `contacts_new`, the shape the engine answers with (one list of messages per field,
 * compatibility.md "Status codes and error bodies").
 */
export function projectFieldErrors(fields: Record<string, unknown>): FieldErrors {
  const errors = errorsOf(PROJECT_FIELD_RULES, fields);
  if (Array.isArray(fields.contacts_new)) {
    const messages = new Set<string>();
    for (const contact of fields.contacts_new) {
      if (contact === null || typeof contact !== 'object' || Array.isArray(contact)) continue;
      for (const list of Object.values(contactFieldErrors(contact as Record<string, unknown>))) for (const message of list) messages.add(message);
    }
    if (messages.size > 0) errors.contacts_new = [...messages];
  }
  return errors;
}

/**
 * What is wrong with an event's fields, by field; `{}` when nothing is. An end before
 * the start is listed under `end`, when both are given here (a write that changes one
 * of them is checked against the stored other by the engine, with eventTimeError).
 */
export function eventFieldErrors(fields: Record<string, unknown>): FieldErrors {
  const errors = errorsOf(EVENT_FIELD_RULES, fields);
  if (!errors.start && !errors.end) {
    const time = (value: unknown) => (typeof value === 'string' ? parseDateTime(value) : null);
    const message = eventTimeError(time(fields.start), time(fields.end));
    if (message) errors.end = [message];
  }
  return errors;
}

/** Postal code formats that are fixed by law or the post office, with an example of each. */
const POSTAL_CODE_FORMATS: Readonly<Record<string, { country: string; pattern: RegExp; shape: string }>> = {
  AU: { country: 'Australia', pattern: /^\d{4}$/, shape: '4 digits, such as 2000' },
  NZ: { country: 'New Zealand', pattern: /^\d{4}$/, shape: '4 digits, such as 6011' },
  US: { country: 'the United States', pattern: /^\d{5}(-\d{4})?$/, shape: '5 digits (or 5+4), such as 94103 or 94103-1234' },
  DE: { country: 'Germany', pattern: /^\d{5}$/, shape: '5 digits, such as 10115' },
  FR: { country: 'France', pattern: /^\d{5}$/, shape: '5 digits, such as 75001' },
  IT: { country: 'Italy', pattern: /^\d{5}$/, shape: '5 digits, such as 00184' },
  ES: { country: 'Spain', pattern: /^\d{5}$/, shape: '5 digits, such as 28013' },
  MX: { country: 'Mexico', pattern: /^\d{5}$/, shape: '5 digits, such as 06000' },
  AT: { country: 'Austria', pattern: /^\d{4}$/, shape: '4 digits, such as 1010' },
  CH: { country: 'Switzerland', pattern: /^\d{4}$/, shape: '4 digits, such as 8001' },
  BE: { country: 'Belgium', pattern: /^\d{4}$/, shape: '4 digits, such as 1000' },
  DK: { country: 'Denmark', pattern: /^\d{4}$/, shape: '4 digits, such as 1050' },
  NO: { country: 'Norway', pattern: /^\d{4}$/, shape: '4 digits, such as 0150' },
  ZA: { country: 'South Africa', pattern: /^\d{4}$/, shape: '4 digits, such as 8001' },
  IN: { country: 'India', pattern: /^\d{6}$/, shape: '6 digits, such as 110001' },
  NL: { country: 'the Netherlands', pattern: /^\d{4} ?[A-Z]{2}$/i, shape: '4 digits and 2 letters, such as 1011 AB' },
  SE: { country: 'Sweden', pattern: /^\d{3} ?\d{2}$/, shape: '5 digits, such as 111 22' },
  BR: { country: 'Brazil', pattern: /^\d{5}-?\d{3}$/, shape: '8 digits, such as 01310-100' },
  JP: { country: 'Japan', pattern: /^\d{3}-?\d{4}$/, shape: '7 digits, such as 100-0001' },
  CA: { country: 'Canada', pattern: /^[A-Z]\d[A-Z] ?\d[A-Z]\d$/i, shape: 'letter, digit, letter, digit, letter, digit, such as K1A 0B1' },
  GB: { country: 'the United Kingdom', pattern: /^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$/i, shape: 'like SW1A 1AA or M1 1AE' },
};

/**
 * A warning when `zip` does not look like a postal code of `countryIso2`, where that
 * country's format is fixed; null when it does, when it is blank, or when the
 * country's format is not known here. Never a reason to refuse a save.
 */
export function postalCodeWarning(countryIso2: string | null, zip: string): string | null {
  const format = countryIso2 ? POSTAL_CODE_FORMATS[countryIso2.trim().toUpperCase()] : undefined;
  const code = zip.trim();
  if (!format || code === '' || format.pattern.test(code)) return null;
  return `Postal codes in ${format.country} are ${format.shape}: check "${code}" before it goes on a proposal.`;
}
