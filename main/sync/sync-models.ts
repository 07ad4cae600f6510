// What sync moves for each kind of record, as "views": the writable fields of a
// record's API JSON, with references reduced to ids so a local and a remote copy
// compare equal whatever host they came from. Merge bases, outbox field lists and
// conflicts are all in terms of these views.
import { ROLE_REFERENCE_FIELDS, WRITABLE_PLAIN_FIELDS } from '../../shared/project-fields.ts';
import { type OrgRecordKind, parseFileTagReference, parseOrgReference, parseRoofTypeReference } from '../../shared/api-paths.ts';
import { sameJson } from '../../shared/webhook-fields.ts';
import { parseDateTime, parseDurationSeconds } from '../../shared/field-rules.ts';
import type { EventSyncField } from '../../shared/event-fields.ts';
import { TRACKED_MODEL_PATHS } from '../engine/changes/change-feed.ts';
import { PROVISIONAL_ID_FLOOR } from '../engine/store/table-ownership.ts';

export type SyncedModel = 'project' | 'contact' | 'event' | 'webhook' | 'private_file';
export const SYNCED_MODELS: readonly SyncedModel[] = ['project', 'contact', 'event', 'webhook', 'private_file'];
export type RecordView = Record<string, unknown>;
type Json = Record<string, unknown>;

const CONTACT_FIELDS = [
  'first_name', 'family_name', 'email', 'phone', 'passport_number', 'licence_number',
  'custom_contact_info_1', 'custom_contact_info_2', 'identifier', 'type', 'date_of_birth', 'gender',
] as const;
const WEBHOOK_FIELDS = ['endpoint', 'enabled', 'debug', 'trigger_fields', 'payload_fields', 'headers'] as const;
/** Ids at and above this were made offline and are not on the remote yet (remote-records.ts refuses them from a remote). */
export { PROVISIONAL_ID_FLOOR };
export const isProvisional = (id: number): boolean => id >= PROVISIONAL_ID_FLOOR;

/** Marks a create in the remote record so a create whose answer was lost can be found again. */
export const CLIENT_OP_KEY = '_solardesk_op';

const idOf = (reference: unknown, kind: 'roles' | 'contacts' | 'projects'): number | null =>
  reference === null || reference === undefined || reference === '' ? null : (parseOrgReference(reference, kind)?.id ?? null);

function withoutClientOp(customData: unknown): unknown {
  if (typeof customData !== 'object' || customData === null || !(CLIENT_OP_KEY in customData)) return customData;
  const { [CLIENT_OP_KEY]: _marker, ...rest } = customData as Json;
  return Object.keys(rest).length === 0 ? null : rest;
}

/** The client op id a create carried in its custom_data, if the record has one. */
export function clientOpOf(json: Json): string | undefined {
  const customData = json.custom_data;
  const marker = typeof customData === 'object' && customData !== null ? (customData as Json)[CLIENT_OP_KEY] : undefined;
  return typeof marker === 'string' ? marker : undefined;
}

export function viewOf(model: SyncedModel, json: Json): RecordView {
  switch (model) {
    case 'project': {
      const view: RecordView = {};
      for (const field of Object.keys(WRITABLE_PLAIN_FIELDS)) view[field] = json[field] ?? null;
      view.custom_data = withoutClientOp(json.custom_data ?? null);
      view.country_iso2 = json.country_iso2 ?? '';
      view.roof_type = json.roof_type ? parseRoofTypeReference(json.roof_type) : null;
      for (const field of ROLE_REFERENCE_FIELDS) view[field] = idOf(json[field], 'roles');
      view.contacts = Array.isArray(json.contacts) ? json.contacts.map((url) => idOf(url, 'contacts')) : [];
      view.active_stage_id = (json.workflow as Json | undefined)?.active_stage_id ?? json.active_stage_id ?? null;
      view.usage = json.usage ?? null;
      return view;
    }
    case 'contact':
      return Object.fromEntries(CONTACT_FIELDS.map((field) => [field, json[field] ?? null]));
    case 'webhook':
      return Object.fromEntries(WEBHOOK_FIELDS.map((field) => [field, json[field] ?? null]));
    case 'private_file':
      return {
        title: json.title ?? '',
        show_customer: json.show_customer ?? false,
        project: idOf(json.project, 'projects'),
        file_tags: Array.isArray(json.file_tags) ? json.file_tags.map((url) => parseFileTagReference(url)).sort() : [],
        // Contents are fixed at creation; the hash identifies them, it is never pushed as a change.
        file_hash: json.file_hash ?? null,
      };
    case 'event':
      return eventView(json);
  }
}

/** A date-time as the UTC instant it names, so "09:00:00Z" from one host and "09:00:00.000Z" from another agree. */
const instantOf = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? (parseDateTime(value) ?? value) : null);

/**
 * An event's view: references as ids (its project, its contact, its team's roles,
 * sorted: the order of a team is not a change), times as UTC instants, the duration
 * in seconds. A remote that names the project only by URL (the hosted service) gives its id too.
 */
function eventView(json: Json): RecordView {
  const duration = json.duration;
  return {
    title: json.title ?? null,
    notes: json.notes ?? null,
    event_type: json.event_type ?? null,
    event_type_id: json.event_type_id ?? null,
    project_id: typeof json.project_id === 'number' ? json.project_id : idOf(json.project, 'projects'),
    contact: idOf(json.contact, 'contacts'),
    start: instantOf(json.start),
    end: instantOf(json.end),
    duration: typeof duration === 'number' || (typeof duration === 'string' && duration !== '') ? (parseDurationSeconds(duration) ?? duration) : null,
    is_complete: json.is_complete === true,
    completion_date: instantOf(json.completion_date),
    is_archived: json.is_archived === true,
    task_status: json.task_status ?? null,
    team_members: Array.isArray(json.team_members)
      ? [...new Set(json.team_members.map((reference) => idOf(reference, 'roles')).filter((id): id is number => id !== null))].sort((a, b) => a - b)
      : [],
    repeat: json.repeat ?? null,
    location_override: json.location_override ?? null,
  } satisfies Record<EventSyncField, unknown>;
}

/** The fields whose view value differs. */
export function changedFields(before: RecordView, after: RecordView): string[] {
  const fields = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...fields].filter((field) => !sameJson(before[field], after[field]));
}

/** A model's path segment on the API. */
export const MODEL_PATHS: Record<SyncedModel, OrgRecordKind> = TRACKED_MODEL_PATHS;

/** Fields a PATCH may carry for each model (the file hash only ever comes down). */
export function pushableFields(model: SyncedModel, fields: readonly string[]): string[] {
  return model === 'private_file' ? fields.filter((field) => field !== 'file_hash') : [...fields];
}
