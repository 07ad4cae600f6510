// Events: notable activity on a project (service.md 6 model `event`), recorded by
// the engine itself as changes are captured, or added by a client.
import type { Kysely, Transaction } from 'kysely';
import type { Database, EventRow } from '../store/tables.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { EventJson } from '../../../shared/schemas/event.ts';
import { nowIso } from '../clock.ts';
import type { ChangeTracker, RecordChange } from '../changes/tracked-write.ts';
import { projectOfSnapshot } from '../changes/record-snapshots.ts';

export const ACTIVITY_EVENT_TYPES = ['project_created', 'stage_changed', 'file_added', 'contact_added', 'contact_removed', 'note'] as const;
export type EventType = (typeof ACTIVITY_EVENT_TYPES)[number];

export function serializeEvent(context: EngineContext, event: EventRow): EventJson {
  return {
    id: event.id,
    url: absoluteUrl(context, apiPaths.event(event.org_id, event.id)),
    org_id: event.org_id,
    org: absoluteUrl(context, apiPaths.org(event.org_id)),
    project: event.project_id === null ? null : absoluteUrl(context, apiPaths.project(event.org_id, event.project_id)),
    project_id: event.project_id,
    event_type: event.event_type,
    title: event.title,
    notes: event.notes,
    user: event.user_id === null ? null : absoluteUrl(context, apiPaths.user(event.user_id)),
    created_date: event.created_date,
    modified_date: event.modified_date,
  };
}

export async function insertEvent(
  trx: Transaction<Database>,
  context: EngineContext,
  event: { org_id: number; project_id: number | null; event_type: string; title: string; notes?: string; user_id?: number | null },
): Promise<EventRow> {
  const now = nowIso(context.clock);
  return trx
    .insertInto('events')
    .values({ notes: '', user_id: null, ...event, created_date: now, modified_date: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Events of each project, oldest first. */
export async function loadProjectEvents(db: Kysely<Database>, projectIds: readonly number[]): Promise<Map<number, EventRow[]>> {
  const byProject = new Map<number, EventRow[]>(projectIds.map((id) => [id, []]));
  if (projectIds.length === 0) return byProject;
  const rows = await db.selectFrom('events').selectAll().where('project_id', 'in', projectIds).orderBy('id').execute();
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
    const add = async (event_type: EventType, title: string) => {
      const event = await insertEvent(trx, context, { org_id: orgId, project_id: projectId, event_type, title });
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
    for (const contact of addedContacts) await add('contact_added', `Contact added: ${String((contact as Snapshot).display ?? '')}`);
    // Removals the same way: a contact taken off the project (the contact itself stays in the org).
    const removedContacts = before ? difference(asList(before.contacts_data), asList(after.contacts_data)) : [];
    for (const contact of removedContacts) await add('contact_removed', `Contact removed: ${String((contact as Snapshot).display ?? '')}`);
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
