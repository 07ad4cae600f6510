// The webhook editor's draft: the settings in people's terms (header rows rather
// than a JSON string), which fields the person changed, and how a draft follows
// the record when it changes elsewhere (the list's on/off switch, another window,
// sync) without losing what the person typed. Saving sends only the fields the
// person changed, so a change made elsewhere is never silently put back.
import type { WebhookJson } from '../../../shared/schemas/webhook.ts';
import { DEFAULT_PAYLOAD_FIELDS, DEFAULT_TRIGGER_FIELDS, webhookEndpointProblem, webhookHeaderProblem } from '../../../shared/webhook-fields.ts';

export interface HeaderRow {
  /** Stable across edits, for React. */
  key: number;
  name: string;
  value: string;
}

export interface WebhookDraft {
  endpoint: string;
  enabled: boolean;
  debug: boolean;
  trigger_fields: string[];
  payload_fields: string[];
  headers: HeaderRow[];
}

export type DraftField = keyof WebhookDraft;
export const DRAFT_FIELDS: readonly DraftField[] = ['endpoint', 'enabled', 'debug', 'trigger_fields', 'payload_fields', 'headers'];

/** What the API takes for each field. */
export interface WebhookWriteBody {
  endpoint: string;
  enabled: boolean;
  debug: boolean;
  trigger_fields: string[];
  payload_fields: string[];
  headers: string;
}

let nextKey = 1;
export const headerRow = (name = '', value = ''): HeaderRow => ({ key: nextKey++, name, value });

/** The stored JSON string as rows; a string that is not an object (never stored by SolarDesk) becomes no rows. */
export function headerRowsOf(headers: string | null): HeaderRow[] {
  if (!headers || headers.trim() === '') return [];
  try {
    const parsed: unknown = JSON.parse(headers);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return [];
    return Object.entries(parsed).map(([name, value]) => headerRow(name, typeof value === 'string' ? value : JSON.stringify(value)));
  } catch {
    return [];
  }
}

/** The rows as the API's JSON string ("" for none); blank rows are left out. */
export function headersText(rows: readonly HeaderRow[]): string {
  const filled = rows.filter((row) => row.name.trim() !== '' || row.value !== '');
  return filled.length === 0 ? '' : JSON.stringify(Object.fromEntries(filled.map((row) => [row.name.trim(), row.value])));
}

export function draftOf(webhook: WebhookJson | null): WebhookDraft {
  return {
    endpoint: webhook?.endpoint ?? '',
    enabled: webhook?.enabled ?? true,
    debug: webhook?.debug ?? false,
    // A new webhook starts from the documented defaults (service.md 6, rule 4).
    trigger_fields: webhook ? (webhook.trigger_fields ?? []) : [...DEFAULT_TRIGGER_FIELDS],
    payload_fields: webhook ? (webhook.payload_fields ?? []) : [...DEFAULT_PAYLOAD_FIELDS],
    headers: headerRowsOf(webhook?.headers ?? null),
  };
}

/** One field as the API takes it, comparable with JSON equality. */
function wireValue(draft: WebhookDraft, field: DraftField): unknown {
  return field === 'headers' ? headersText(draft.headers) : draft[field];
}

function sameField(a: WebhookDraft, b: WebhookDraft, field: DraftField): boolean {
  return JSON.stringify(wireValue(a, field)) === JSON.stringify(wireValue(b, field));
}

/** The fields of `draft` that differ from the record it started from. */
export function changedFields(draft: WebhookDraft, base: WebhookJson | null): DraftField[] {
  const original = draftOf(base);
  return DRAFT_FIELDS.filter((field) => !sameField(draft, original, field));
}

/** The body to send: every field for a new webhook, only the changed ones for an existing one. */
export function writeBody(draft: WebhookDraft, base: WebhookJson | null): Partial<WebhookWriteBody> {
  const fields = base ? changedFields(draft, base) : DRAFT_FIELDS;
  return Object.fromEntries(fields.map((field) => [field, wireValue(draft, field)]));
}

/**
 * The draft after the record changed from `oldBase` to `newBase` elsewhere: fields
 * the person has not changed follow the record; fields they changed keep their
 * value. Also says which of the person's changed fields the record changed too.
 */
export function rebase(draft: WebhookDraft, oldBase: WebhookJson | null, newBase: WebhookJson): { draft: WebhookDraft; clashes: DraftField[] } {
  const before = draftOf(oldBase);
  const after = draftOf(newBase);
  const next = { ...draft };
  const clashes: DraftField[] = [];
  for (const field of DRAFT_FIELDS) {
    const edited = !sameField(draft, before, field);
    if (!edited) (next as Record<DraftField, unknown>)[field] = after[field];
    else if (!sameField(before, after, field) && !sameField(draft, after, field)) clashes.push(field);
  }
  return { draft: next, clashes };
}

/**
 * Problems the form shows beside each field before anything is sent, and which stop
 * a save. Field paths are never among them: the API takes any path (an integration's
 * `event_type_id` included), so the path pickers mark unknown ones without blocking.
 */
export interface DraftProblems {
  endpoint: string | null;
  /** By row key. */
  headers: Map<number, string>;
}

export function draftProblems(draft: WebhookDraft): DraftProblems {
  const headers = new Map<number, string>();
  const seen = new Set<string>();
  for (const row of draft.headers) {
    if (row.name.trim() === '' && row.value === '') continue;
    const name = row.name.trim();
    const problem = webhookHeaderProblem(name, row.value) ?? (seen.has(name.toLowerCase()) ? `"${name}" is listed twice.` : null);
    seen.add(name.toLowerCase());
    if (problem) headers.set(row.key, problem);
  }
  return {
    endpoint: webhookEndpointProblem(draft.endpoint),
    headers,
  };
}

export function hasProblems(problems: DraftProblems): boolean {
  return problems.endpoint !== null || problems.headers.size > 0;
}
