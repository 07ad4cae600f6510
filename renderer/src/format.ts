// Numbers, sizes and dates as people read them.
import { formatBytes as formatByteCount } from '../../shared/format-bytes.ts';

export function formatBytes(bytes: number | null | undefined): string {
  return bytes === null || bytes === undefined ? '—' : formatByteCount(bytes);
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** "1 change", "3 changes": a count with its noun, singular or plural. */
export const plural = (count: number, one: string, many: string): string => `${count} ${count === 1 ? one : many}`;

/** A pending change's operation (`create`, `update`, `delete`) as a person says it. */
export function changeWord(operation: string): string {
  return ({ create: 'New', update: 'Changed', delete: 'Deleted' } as Record<string, string>)[operation] ?? operation;
}

// Money, numbers and percentages are formatted by shared/design-figures.ts, so the
// Design tab and the generated documents print a figure the same way.
export { formatMoney, formatNumber, formatPercent } from '../../shared/design-figures.ts';

/** Field names whose words alone would not say what they hold. */
const FIELD_WORDS: Record<string, string> = {
  lat: 'Latitude',
  lon: 'Longitude',
  zip: 'Postal code',
  country_iso2: 'Country',
  is_residential: 'Residential',
  contacts_data: 'Contacts',
  contacts_new: 'Contacts',
  roof_type: 'Roof type',
  custom_data: 'Custom values',
  usage: 'Energy usage',
  event_type_id: 'Kind',
};

/** snake_case field name -> "Sentence case" label, as the editor labels it. */
export function labelOf(field: string): string {
  const known = FIELD_WORDS[field];
  if (known) return known;
  const text = field.replace(/_(data|id)$/, '').replace(/_/g, ' ').replace(/\biso2\b/, 'ISO code').replace(/\bkwh\b/g, 'kWh');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Several fields in people's words, each once ("contacts" and "contacts_data" are one thing to a person). */
export function labelsOf(fields: readonly string[]): string[] {
  return [...new Set(fields.map(labelOf))];
}
