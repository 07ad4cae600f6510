// Events: notable activity on a project (service.md 6 model `event`), recorded by
// the engine itself as changes are captured, or added by a client.
import { sql, type Kysely, type Transaction } from 'kysely';
import { type Actor, canSeeAllProjects } from '../auth/actor.ts';
import { visibleProjectIds } from '../projects/project-access.ts';
import type { Database, EventRow } from '../store/tables.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { EventJson } from '../../../shared/schemas/event.ts';
import { nowIso } from '../clock.ts';
import type { ChangeTracker, RecordChange } from '../changes/tracked-write.ts';
import { projectOfSnapshot } from '../changes/record-snapshots.ts';
import { eventTypeIdOf } from '../../../shared/event-types.ts';
import { formatDuration } from '../../../shared/field-rules.ts';

export const ACTIVITY_EVENT_TYPES = ['project_created', 'stage_changed', 'file_added', 'contact_added', 'contact_removed', 'note'] as const;
export type EventType = (typeof ACTIVITY_EVENT_TYPES)[number];

/** An event's row with what its record shows of its project and of the person who made it. */
export type EventView = EventRow & {
  project_title: string | null;
  who_email: string | null;
  who_first_name: string | null;
  who_family_name: string | null;
};

/** Events with their project's title and their user's name (selectEventViews(db).where(...)). */
export function selectEventViews(db: Kysely<Database> | Transaction<Database>) {
  return db
    .selectFrom('events')
    .leftJoin('projects', 'projects.id', 'events.project_id')
    .leftJoin('users', 'users.id', 'events.user_id')
    .selectAll('events')
    .select([
      'projects.title as project_title',
      'users.email as who_email',
      'users.first_name as who_first_name',
      'users.family_name as who_family_name',
    ]);
}

type EventViewQuery = ReturnType<typeof selectEventViews>;

/** Only the events the actor may see: those of projects they may see, and every org-wide one. */
export function onlyEventsVisibleTo(query: EventViewQuery, actor: Actor): EventViewQuery {
  if (canSeeAllProjects(actor.role)) return query;
  return query.where((builder) => builder.or([builder('events.project_id', 'is', null), builder('events.project_id', 'in', visibleProjectIds(actor))]));
}

/** Only the events the role `roleId` is a team member of. */
export function onlyEventsWithTeamMember(query: EventViewQuery, roleId: number): EventViewQuery {
  // team_member_role_ids is a JSON array written by JSON.stringify ("[3,15]"): with its brackets
  // taken off and commas put round it, ",3,15," holds ",3," exactly when role 3 is in it.
  return query.where(sql<boolean>`',' || replace(replace(events.team_member_role_ids, '[', ''), ']', '') || ',' like ${`%,${roleId},%`}`);
}

/** One event as its record (hosted-docs-facts.md 9); `action` and `archive_for`, which SolarDesk does not keep, carry their empty value. */
export function serializeEvent(context: EngineContext, event: EventView): EventJson {
  const whoName = `${event.who_first_name ?? ''} ${event.who_family_name ?? ''}`.trim();
  return {
    id: event.id,
    url: absoluteUrl(context, apiPaths.event(event.org_id, event.id)),
    org_id: event.org_id,
    org: absoluteUrl(context, apiPaths.org(event.org_id)),
    project: event.project_id === null ? null : absoluteUrl(context, apiPaths.project(event.org_id, event.project_id)),
    project_id: event.project_id,
    project_name: event.project_id === null ? null : (event.project_title ?? ''),
    title: event.title,
    notes: event.notes,
    event_type_id: event.event_type_id,
    event_type: event.event_type,
    action: null,
    contact: event.contact_id === null ? null : absoluteUrl(context, apiPaths.contact(event.org_id, event.contact_id)),
    user: event.user_id === null ? null : absoluteUrl(context, apiPaths.user(event.user_id)),
    team_members: teamMemberRoleIds(event).map((roleId) => absoluteUrl(context, apiPaths.role(event.org_id, roleId))),
    created_date: event.created_date,
    modified_date: event.modified_date,
    completion_date: event.completion_date,
    start: event.starts_at,
    end: event.ends_at,
    duration: event.duration_seconds === null ? null : formatDuration(event.duration_seconds),
    repeat: event.repeat_json === null ? null : (JSON.parse(event.repeat_json) as unknown),
    is_complete: event.is_complete === 1,
    is_archived: event.is_archived === 1,
    archive_for: null,
    task_status: event.task_status,
    location_override: event.location_override,
    who:
      event.user_id === null || event.who_email === null
        ? null
        : { display: whoName || event.who_email, email: event.who_email, portrait_image_public_url: null },
  };
}

/** The ids of the roles on the event (its `team_members`), in the order they were given. */
export function teamMemberRoleIds(event: Pick<EventRow, 'team_member_role_ids'>): number[] {
  const ids: unknown = JSON.parse(event.team_member_role_ids);
  return Array.isArray(ids) ? ids.filter((id): id is number => typeof id === 'number') : [];
}

export interface NewEvent {
  org_id: number;
  project_id: number | null;
  event_type: string;
  /** Defaults to the id of `event_type` (shared/event-types.ts eventTypeIdOf). */
  event_type_id?: number;
  title: string;
  notes?: string;
  user_id?: number | null;
  contact_id?: number | null;
}

/** A client's event: an event with, optionally, its schedule (migration 0024). */
export type NewScheduledEvent = NewEvent &
  Partial<Pick<EventRow, 'starts_at' | 'ends_at' | 'duration_seconds' | 'is_complete' | 'completion_date' | 'is_archived' | 'task_status' | 'team_member_role_ids' | 'repeat_json' | 'location_override'>>;

export async function insertEvent(trx: Transaction<Database>, context: EngineContext, event: NewScheduledEvent): Promise<EventRow> {
  const now = nowIso(context.clock);
  return trx
    .insertInto('events')
    .values({
      notes: '',
      user_id: null,
      contact_id: null,
      ...event,
      event_type_id: event.event_type_id ?? eventTypeIdOf(event.event_type),
      created_date: now,
      modified_date: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Events of each project, oldest first. */
export async function loadProjectEvents(db: Kysely<Database>, projectIds: readonly number[]): Promise<Map<number, EventView[]>> {
  const byProject = new Map<number, EventView[]>(projectIds.map((id) => [id, []]));
  if (projectIds.length === 0) return byProject;
  const rows = await selectEventViews(db).where('events.project_id', 'in', projectIds).orderBy('events.id').execute();
  for (const row of rows) byProject.get(row.project_id!)?.push(row);
  return byProject;
}

type Snapshot = Record<string, unknown>;
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * Records the activity a project change amounts to: created, stage changed, files
 * added, and contacts added or removed. Runs inside the write's transaction, before webhooks look at
 * the change, so the project's events_data already carries these events.
 */
export async function recordProjectActivity(
  trx: Transaction<Database>,
  context: EngineContext,
  orgId: number,
  changes: readonly RecordChange[],
  track: ChangeTracker,
): Promise<void> {
  for (const change of changes) {
    if (change.model !== 'project' || !change.after) continue;
    const after = change.after as Snapshot;
    const before = change.before as Snapshot | null;
    const projectId = change.id;
    const add = async (event_type: EventType, title: string, contactId: number | null = null) => {
      const event = await insertEvent(trx, context, { org_id: orgId, project_id: projectId, event_type, title, contact_id: contactId });
      await track.event(event.id, { created: true });
    };
    if (!before) await add('project_created', `Project created: ${String(after.title)}`);
    else if (before.active_stage_id !== after.active_stage_id) {
      const stage = await trx.selectFrom('workflow_stages').select('title').where('id', '=', after.active_stage_id as number).executeTakeFirst();
      await add('stage_changed', `Stage changed to ${stage?.title ?? String(after.active_stage_id)}`);
    }
    // On create, the contacts and files it came with count as added. Files are read
    // from their own tracked changes: the project's snapshot may leave its file list out.
    for (const file of filesAddedTo(context, projectId, changes)) await add('file_added', `File added: ${String(file.title ?? '')}`);
    const addedContacts = difference(asList(after.contacts_data), asList(before?.contacts_data));
    for (const contact of addedContacts) await add('contact_added', `Contact added: ${String((contact as Snapshot).display ?? '')}`, await existingContactId(trx, contact));
    // Removals the same way: a contact taken off the project (the contact itself stays in the org).
    const removedContacts = before ? difference(asList(before.contacts_data), asList(after.contacts_data)) : [];
    for (const contact of removedContacts) await add('contact_removed', `Contact removed: ${String((contact as Snapshot).display ?? '')}`, await existingContactId(trx, contact));
  }
}

/** The files this write attached to the project (created in it or moved into it), by id. */
function filesAddedTo(context: EngineContext, projectId: number, changes: readonly RecordChange[]): Snapshot[] {
  const projectOf = (id: number, file: Snapshot | null) => (file ? projectOfSnapshot(context, 'private_file', id, file) : null);
  return changes
    .filter((change) => change.model === 'private_file' && projectOf(change.id, change.after) === projectId && projectOf(change.id, change.before) !== projectId)
    .sort((a, b) => a.id - b.id)
    .map((change) => change.after!);
}

/** Items of `after` whose id is not among `before`'s. */
function difference(after: unknown[], before: unknown[]): unknown[] {
  const known = new Set(before.map((item) => (item as Snapshot).id));
  return after.filter((item) => !known.has((item as Snapshot).id));
}

/** The id of a contact in a contacts_data entry, if that contact is still in the store (a contact deleted by this write is not). */
async function existingContactId(trx: Transaction<Database>, contact: unknown): Promise<number | null> {
  const id = (contact as Snapshot).id;
  if (typeof id !== 'number') return null;
  const row = await trx.selectFrom('contacts').select('id').where('id', '=', id).executeTakeFirst();
  return row ? id : null;
}
