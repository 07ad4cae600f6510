// Record fields as people name them: the editor's labels, the conflict inbox's and
// the Activity screen's ("a remote change: Stage, Postal code"), never snake_case.
// One place, so the renderer and the main process's activity log say the same words.
import { eventFieldLabel } from './event-fields.ts';

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

/** A field of a record of `model` as people name it: an event's by its own labels (shared/event-fields.ts), others from their name. */
export function fieldLabelOf(model: string, field: string): string {
  return (model === 'event' ? eventFieldLabel(field) : null) ?? labelOf(field);
}
