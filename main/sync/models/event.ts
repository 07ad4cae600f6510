// Events: every writable field both ways (docs/sync.md "Events and contacts",
// issue 27). The view holds references as ids (its project, its contact, its team's
// roles, sorted: the order of a team is not a change), times as the UTC instants
// they name, the duration in seconds; a push sends them as the API takes them.
import type { Transaction } from 'kysely';
import type { Database, EventRow } from '../../engine/store/tables.ts';
import { type EventColumns, eventColumnsOf } from '../../engine/events/event-columns.ts';
import { parseOrgReference } from '../../../shared/api-paths.ts';
import { EVENT_FIELD_RULES, formatDuration, parseDateTime, parseDurationSeconds } from '../../../shared/field-rules.ts';
import { EVENT_SYNC_FIELDS, type EventSyncField } from '../../../shared/event-fields.ts';
import { eventTypeIdOf } from '../../../shared/event-types.ts';
import { sameJson } from '../../../shared/webhook-fields.ts';
import { fieldError } from '../../engine/http/errors.ts';
import { MODEL_PATHS, type RecordView, idOf, isProvisional } from '../sync-models.ts';
import type { SyncContext } from '../sync-context.ts';
import { groupOfRecord } from '../outbox.ts';
import type { RemoteEvent, RemoteRecord } from '../remote-records.ts';
import { ownOrgVerdict } from '../record-orgs.ts';
import { EPOCH, replicaUserId } from '../replica-rows.ts';
import { contactUrl, projectUrl, roleUrl } from '../push-bodies.ts';
import { DEFAULT_QUOTA, type RequestBody, type SyncModel, everyField } from './sync-model.ts';
import { allButId } from '../upsert-set.ts';

type Trx = Transaction<Database>;
type Json = Record<string, unknown>;

/** A date-time as the UTC instant it names, so "09:00:00Z" from one host and "09:00:00.000Z" from another agree. */
const instantOf = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? (parseDateTime(value) ?? value) : null);

/**
 * An event's view: references as ids (its project, its contact, its team's roles,
 * sorted: the order of a team is not a change), times as UTC instants, the duration
 * in seconds. A remote that names the project only by URL (the hosted service) gives its id too.
 */
export function eventView(json: Json): RecordView {
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

/**
 * An event's fields as the API takes them: references as remote URLs (`project`,
 * `contact`, `team_members` as the org's roles), the duration as DRF writes one.
 * The hosted service reads the kind from `event_type_id` (hosted-docs-facts.md 9).
 */
function eventFieldsBody(sync: SyncContext, view: RecordView, fields: readonly string[]): RequestBody {
  const body: RequestBody = {};
  for (const field of fields) {
    const value = view[field];
    if (field === 'project_id') body.project = projectUrl(sync, value as number | null);
    else if (field === 'contact') body.contact = value === null ? null : contactUrl(sync, value as number);
    else if (field === 'team_members') body.team_members = (value as number[]).map((id) => roleUrl(sync, id));
    else if (field === 'duration') body.duration = typeof value === 'number' ? formatDuration(value) : value;
    else body[field] = value;
  }
  return body;
}

/** Whether an event's `fields` name a project or contact made offline that has no remote id yet. */
function eventWaitsFor(view: RecordView, fields: readonly string[]): boolean {
  return (['project_id', 'contact'] as const).some((field) => fields.includes(field) && typeof view[field] === 'number' && isProvisional(view[field]));
}

/** The fields a lost event create is recognised by: what it sent that the remote keeps as sent. */
const LOST_EVENT_MATCH_FIELDS = ['title', 'notes', 'event_type', 'start', 'end', 'contact', 'team_members', 'location_override'] as const;

/**
 * A typed value of an event field, under the rules of a write (shared/field-rules.ts),
 * in the form the sync view holds it: a time as its UTC instant, a duration in seconds,
 * the team as role ids (a role's URL names its id too).
 */
function checkEventValue(field: string, value: unknown): unknown {
  const rule = Object.hasOwn(EVENT_FIELD_RULES, field) ? EVENT_FIELD_RULES[field as keyof typeof EVENT_FIELD_RULES] : null;
  if (!rule) return value;
  const parsed = rule.safeParse(value);
  if (!parsed.success) throw fieldError('value', parsed.error.issues[0]?.message ?? 'Invalid value for this field.');
  if (field !== 'team_members') return parsed.data;
  const ids = (parsed.data as Array<string | number>).map((reference) => parseOrgReference(reference, 'roles')!.id);
  return [...new Set(ids)].sort((a, b) => a - b);
}

/**
 * An event's columns from its sync view: a pulled event, local values that must
 * survive a pull, or a settled conflict. Only the fields `view` names are set. A
 * contact the replica does not hold is left out. The remote's spellings are read
 * here; the columns come from the engine's one mapper (eventColumnsOf).
 */
async function eventColumnsOfView(trx: Trx, view: RecordView): Promise<EventColumns> {
  const has = (field: string) => Object.hasOwn(view, field);
  const text = (value: unknown) => (typeof value === 'string' ? value : value === null || value === undefined ? null : String(value));
  const taskStatus = view.task_status;
  const hasKind = has('event_type') || has('event_type_id');
  return eventColumnsOf({
    title: has('title') ? (text(view.title) ?? '') : undefined,
    notes: has('notes') ? (text(view.notes) ?? '') : undefined,
    // A hosted event names its kind by id only (hosted-docs-facts.md 9); a SolarDesk remote sends both.
    event_type: hasKind ? text(view.event_type) : undefined,
    event_type_id: hasKind ? (typeof view.event_type_id === 'number' ? view.event_type_id : null) : undefined,
    project_id: has('project_id') ? (typeof view.project_id === 'number' ? view.project_id : null) : undefined,
    contact_id: has('contact') ? await replicaContactId(trx, view.contact) : undefined,
    start: has('start') ? text(view.start) : undefined,
    end: has('end') ? text(view.end) : undefined,
    duration: has('duration') ? (typeof view.duration === 'number' ? view.duration : null) : undefined,
    is_complete: has('is_complete') ? view.is_complete === true : undefined,
    completion_date: has('completion_date') ? text(view.completion_date) : undefined,
    is_archived: has('is_archived') ? view.is_archived === true : undefined,
    task_status: has('task_status') ? (taskStatus !== null && taskStatus !== '' && Number.isSafeInteger(Number(taskStatus)) ? Number(taskStatus) : null) : undefined,
    team_members: has('team_members') ? (Array.isArray(view.team_members) ? (view.team_members as number[]) : []) : undefined,
    repeat: has('repeat') ? (view.repeat ?? null) : undefined,
    location_override: has('location_override') ? text(view.location_override) : undefined,
  });
}

/** The contact an event names (its id), when the replica holds it (a reference to one it lacks is left out). */
async function replicaContactId(trx: Trx, id: unknown): Promise<number | null> {
  if (typeof id !== 'number') return null;
  return (await trx.selectFrom('contacts').select('id').where('id', '=', id).executeTakeFirst()) ? id : null;
}

/** A remote event with every field (issue 27); `keep`: view values of fields with local changes still waiting. */
export async function upsertEvent(trx: Trx, orgId: number, event: RemoteEvent, keep: RecordView = {}): Promise<void> {
  const row = {
    id: event.id,
    org_id: orgId,
    // Only people the replica holds (its own user) can be the event's author here; others show as the remote has none.
    user_id: await replicaUserId(trx, event.user),
    ...(await eventColumnsOfView(trx, { ...eventView(event), ...keep })),
    created_date: event.created_date ?? EPOCH,
    modified_date: event.modified_date ?? EPOCH,
  } satisfies Partial<EventRow>;
  const values = { title: '', notes: '', event_type: 'note', event_type_id: eventTypeIdOf('note'), project_id: null, contact_id: null, ...row };
  await trx.insertInto('events').values(values).onConflict((conflict) => conflict.column('id').doUpdateSet(allButId(values))).execute();
}

export async function removeEvent(trx: Trx, id: number): Promise<void> {
  await trx.deleteFrom('events').where('id', '=', id).execute();
}

export const eventModel: SyncModel = {
  model: 'event',
  path: MODEL_PATHS.event,
  quota: DEFAULT_QUOTA,
  view: eventView,
  pushableFields: everyField,
  updateBody: async (sync, json, fields) => eventFieldsBody(sync, eventView(json), fields),
  async createBody(sync, _group, json) {
    const view = eventView(json);
    // Its project or contact made offline has not reached the remote yet.
    if (eventWaitsFor(view, EVENT_SYNC_FIELDS)) return 'waiting';
    const fields = EVENT_SYNC_FIELDS.filter((field) => field !== 'event_type_id' || typeof view.event_type_id === 'number');
    return eventFieldsBody(sync, view, fields);
  },
  async findLostCreate({ json, view, list }) {
    if (!view || json?.project_id == null) return null;
    const events = await list({ project: String(json.project_id), limit: 100 });
    // Two visits of one project may share a title: the schedule tells them apart too.
    const sameAs = (event: RemoteRecord) => LOST_EVENT_MATCH_FIELDS.every((field) => sameJson(eventView(event)[field], view[field]));
    return events.find(sameAs) ?? null;
  },
  checkValue: checkEventValue,
  async applyView(trx, id, view) {
    const columns = await eventColumnsOfView(trx, view);
    if (Object.keys(columns).length) await trx.updateTable('events').set(columns).where('id', '=', id).execute();
  },
  orgVerdict: async (sync, record) => ownOrgVerdict(sync, record),
  store: ({ trx, sync, keep }, record) => upsertEvent(trx, sync.orgId, record as RemoteEvent, keep),
  remove: removeEvent,
  /** An event's project or contact made offline goes up first, so the event can name it (its create, or an update that names it). */
  async pushReferencesFirst({ sync, done, pushGroup }, json, changed) {
    const fields: readonly string[] = changed === 'create' ? EVENT_SYNC_FIELDS : changed;
    const view = eventView(json);
    let requests = 0;
    for (const [field, model] of [['project_id', 'project'], ['contact', 'contact']] as const) {
      const id = view[field];
      if (!fields.includes(field) || typeof id !== 'number' || !isProvisional(id) || done.has(`${model}:${id}`)) continue;
      const group = await groupOfRecord(sync.db, model, id, { pushableOnly: true });
      if (group) requests += await pushGroup(group);
    }
    return requests;
  },
  waitsFor: (json, fields) => eventWaitsFor(eventView(json), fields),
  // An event of a project the replica lacks comes with that project's detail (its events_data).
  projectPart: { field: 'project_id', feed: 'detail' },
};
