// The synced models and what every model's view shares. A view is the writable
// fields of a record's API JSON, with references reduced to ids so a local and a
// remote copy compare equal whatever host they came from; merge bases, outbox field
// lists and conflicts are all in terms of views. Each model's own view, fields and
// behaviour live in models/ (its registry: models/index.ts).
import { type OrgRecordKind, parseOrgReference } from '../../shared/api-paths.ts';
import { sameJson } from '../../shared/webhook-fields.ts';
import { TRACKED_MODEL_PATHS } from '../engine/changes/change-feed.ts';
import { PROVISIONAL_ID_FLOOR } from '../engine/store/table-ownership.ts';

export type SyncedModel = 'project' | 'contact' | 'event' | 'webhook' | 'private_file';
export const SYNCED_MODELS: readonly SyncedModel[] = ['project', 'contact', 'event', 'webhook', 'private_file'];
export type RecordView = Record<string, unknown>;
type Json = Record<string, unknown>;

/** Ids at and above this were made offline and are not on the remote yet (remote-records.ts refuses them from a remote). */
export { PROVISIONAL_ID_FLOOR };
export const isProvisional = (id: number): boolean => id >= PROVISIONAL_ID_FLOOR;

/** Marks a create in the remote record so a create whose answer was lost can be found again. */
export const CLIENT_OP_KEY = '_solardesk_op';

/** The id a reference (a URL or an id) names, or null. */
export const idOf = (reference: unknown, kind: 'roles' | 'contacts' | 'projects'): number | null =>
  reference === null || reference === undefined || reference === '' ? null : (parseOrgReference(reference, kind)?.id ?? null);

/** A project's custom_data without its create mark (the local copy never shows it). */
export function withoutClientOp(customData: unknown): unknown {
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

/** The fields whose view value differs. */
export function changedFields(before: RecordView, after: RecordView): string[] {
  const fields = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...fields].filter((field) => !sameJson(before[field], after[field]));
}

/** A model's path segment on the API: the engine's (its change feed names records by them too). */
export const MODEL_PATHS: Record<SyncedModel, OrgRecordKind> = TRACKED_MODEL_PATHS;
