// Validation as the user types, with the same zod schemas the engine validates
// writes with (shared/schemas/), so the message under a field is the message the
// engine's 400 would give.
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
  const kind = WRITABLE_PLAIN_FIELDS[field].kind;
  const candidate = candidateValue(kind, raw);
  if ('message' in candidate) return { ok: false, message: candidate.message };
  const parsed = projectWriteSchema.shape[field].safeParse(candidate.value);
  if (!parsed.success) return { ok: false, message: parsed.error.issues[0]?.message ?? 'Invalid value.' };
  return { ok: true, value: parsed.data };
}

/** Any other writable key of the project schema (country_iso2...), given its value. */
export function checkProjectValue(field: keyof typeof projectWriteSchema.shape, value: unknown): FieldCheck {
  const parsed = projectWriteSchema.shape[field].safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: parsed.error.issues[0]?.message ?? 'Invalid value.' };
}
