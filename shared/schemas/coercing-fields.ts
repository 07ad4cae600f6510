// zod schemas for single fields that coerce the way the live service does
// (compatibility.md "Writes coerce strings") and fail with DRF's messages. The
// engine validates writes with them; the renderer validates as the user types.
import { z } from 'zod';
import type { FieldKind } from '../project-fields.ts';

const NUMBER_TEXT = /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;
const INTEGER_TEXT = /^\s*-?\d{1,15}\s*$/;
const DATE_TEXT = /^\d{4}-\d{2}-\d{2}$/;
const TRUE_TEXTS = new Set(['true', 'True', 'TRUE', '1', 'yes', 'on']);
const FALSE_TEXTS = new Set(['false', 'False', 'FALSE', '0', 'no', 'off']);

/** DRF's wording, with its special cases for a missing field and for null. */
const message = (text: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? 'This field is required.' : issue.input === null ? 'This field may not be null.' : text;

export const stringField = () =>
  z.union([z.string(), z.number().transform(String)], { error: message('Not a valid string.') });

// Each builder takes the message for a value of the wrong type: DRF's by default, a
// field's own in people's words where shared/field-rules.ts gives one.
export const numberField = (invalid = 'A valid number is required.') =>
  z.union([z.number(), z.string().regex(NUMBER_TEXT).transform(Number)], { error: message(invalid) })
    .refine(Number.isFinite, invalid);

export const integerField = (invalid = 'A valid integer is required.') =>
  z.union([z.number().int(), z.string().regex(INTEGER_TEXT).transform(Number)], {
    error: message(invalid),
  }).refine(Number.isSafeInteger, invalid);

export const booleanField = () =>
  z.union(
    [
      z.boolean(),
      z.literal(1).transform(() => true),
      z.literal(0).transform(() => false),
      z.string().refine((text) => TRUE_TEXTS.has(text) || FALSE_TEXTS.has(text)).transform((text) => TRUE_TEXTS.has(text)),
    ],
    { error: message('Must be a valid boolean.') },
  );

/** An optional boolean query parameter: `?flag=` (empty) counts as not sent. */
export const booleanQueryParam = () => z.preprocess((value) => (value === '' ? undefined : value), booleanField().optional());

export const dateField = (invalid = 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.') =>
  z.string({ error: message(invalid) }).refine(
    (text) => DATE_TEXT.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) && new Date(`${text}T00:00:00Z`).toISOString().startsWith(text),
    invalid,
  );

export const listField = () => z.array(z.unknown(), { error: message('Expected a list of items.') });
export const objectField = () => z.record(z.string(), z.unknown(), { error: message('Expected a dictionary of items.') });

/**
 * The schema for a plain project field of shared/project-fields.ts; `invalid` is the
 * message for a number, integer or date of the wrong type (DRF's when not given).
 */
export function schemaForKind(kind: FieldKind, invalid?: string): z.ZodType {
  switch (kind) {
    case 'string':
      return stringField();
    case 'nullable_string':
      return stringField().nullable();
    case 'number':
      return numberField(invalid);
    case 'nullable_number':
      return numberField(invalid).nullable();
    case 'integer':
      return integerField(invalid);
    case 'nullable_integer':
      return integerField(invalid).nullable();
    case 'boolean':
      return booleanField();
    case 'date':
      return dateField(invalid);
    case 'nullable_date':
      return dateField(invalid).nullable();
    case 'array':
      return listField();
    case 'nullable_object':
      return objectField().nullable();
    case 'any':
      return z.unknown();
  }
}

export const requiredString = () => z.string({ error: message('Not a valid string.') });
