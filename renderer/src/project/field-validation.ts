// Validation as the user types, with the same zod schemas the engine validates
// writes with (shared/schemas/), so what the app refuses is what the engine's 400
// would refuse; the framework's generic number messages are reworded for people.
import { projectWriteSchema } from '../../../shared/schemas/project-write.ts';
import { WRITABLE_PLAIN_FIELDS, type FieldKind, type WritablePlainField } from '../../../shared/project-fields.ts';

/** What an input holds: text for most kinds, a flag for booleans. */
export type RawInput = string | boolean;

export type FieldCheck = { ok: true; value: unknown } | { ok: false; message: string };

const JSON_KINDS: readonly FieldKind[] = ['array', 'nullable_object', 'any'];

export function isJsonKind(kind: FieldKind): boolean {
  return JSON_KINDS.includes(kind);
}

/** The text an input shows for a stored value. */
export function inputTextOf(kind: FieldKind, value: unknown): RawInput {
  if (kind === 'boolean') return value === true;
  if (isJsonKind(kind)) return value === null || value === undefined ? '' : JSON.stringify(value, null, 2);
  return value === null || value === undefined ? '' : String(value);
}

/** Whether two inputs hold the same thing (a restored draft equal to the stored value is no draft). */
export function sameInput(a: RawInput, b: RawInput): boolean {
  return typeof a === 'boolean' || typeof b === 'boolean' ? a === b : a.trim() === b.trim();
}

/** Turns what was typed into what the API takes: blank is null where the field allows null. */
function candidateValue(kind: FieldKind, raw: RawInput): { value: unknown } | { message: string } {
  if (kind === 'boolean') return { value: raw === true };
  const text = String(raw);
  const isBlank = text.trim() === '';
  if (isJsonKind(kind)) {
    if (isBlank) return { value: kind === 'array' ? [] : null };
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { message: 'Not valid JSON.' };
    }
  }
  if (isBlank && kind.startsWith('nullable_')) return { value: null };
  return { value: text };
}

export function checkPlainField(field: WritablePlainField, raw: RawInput): FieldCheck {
  const spec = WRITABLE_PLAIN_FIELDS[field];
  // A number the project must have (priority, years to simulate) goes back to its usual value when
  // the box is cleared: clearing is how people say "the usual", not a mistake to flag (issue 28).
  if ((spec.kind === 'integer' || spec.kind === 'number') && String(raw).trim() === '') return { ok: true, value: spec.default };
  const candidate = candidateValue(spec.kind, raw);
  if ('message' in candidate) return { ok: false, message: candidate.message };
  const parsed = projectWriteSchema.shape[field].safeParse(candidate.value);
  if (!parsed.success) return { ok: false, message: peopleWordsFor(spec.kind, parsed.error.issues[0]?.message) };
  return { ok: true, value: parsed.data };
}

/** The engine answers integrations in the framework's words ("A valid integer is required."); a person reads what to type. */
function peopleWordsFor(kind: FieldKind, message: string | undefined): string {
  if (message && !/^A valid (integer|number) is required\.$/.test(message)) return message;
  if (kind.includes('integer')) return 'Type a whole number, such as 2.';
  if (kind.includes('number')) return 'Type a number, such as 2.5.';
  return message ?? 'This value cannot be saved.';
}

/** Any other writable key of the project schema (country_iso2...), given its value. */
export function checkProjectValue(field: keyof typeof projectWriteSchema.shape, value: unknown): FieldCheck {
  const parsed = projectWriteSchema.shape[field].safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: parsed.error.issues[0]?.message ?? 'Invalid value.' };
}
