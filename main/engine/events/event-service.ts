// Writing events (service.md 6 model `event`): a client's note on a project, or a
// schedule entry (issue 27: a visit, an installation, a meeting). The engine's own
// activity events are written by change capture (events.ts). Every write is one
// writeTracked() transaction, so Event webhooks fire and the change feed hears of it
// as for projects and contacts. Whether the actor may see the event (through its
// project) is the routes' to check; the references a write names (project, contact,
// team members) are checked here.
import type { Transaction } from 'kysely';
import type { Database, EventRow } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import type { SnapshotSource } from '../changes/record-snapshots.ts';
import { type ChangeTracker, writeTracked } from '../changes/tracked-write.ts';
import { actorScope } from '../changes/change-feed.ts';
import { type EventView, insertEvent, selectEventViews, serializeEvent } from './events.ts';
import { eventTypeIdOf, eventTypeNameOf } from '../../../shared/event-types.ts';
import { eventTimeError, type FieldErrors } from '../../../shared/field-rules.ts';
import type { EventUpdate } from '../../../shared/schemas/event-write.ts';
import { apiPaths, parseOrgReference } from '../../../shared/api-paths.ts';
import { validationError } from '../http/errors.ts';
import { getVisibleProject } from '../projects/project-service.ts';
import { visibleContactIds } from '../contacts/contact-access.ts';
import { loadRoles } from '../roles/roles.ts';
import { nowIso } from '../clock.ts';
import { checkPrecondition, type IfMatch, nextVersion } from '../http/preconditions.ts';
import { toFlag } from '../store/portable-columns.ts';

/** What change capture compares: the event's API view. */
export const eventSnapshots: SnapshotSource = {
  model: 'event',
  async read(trx, context: EngineContext, orgId, id) {
    const row = await selectEventViews(trx).where('events.id', '=', id).where('events.org_id', '=', orgId).executeTakeFirst();
    return row ? serializeEvent(context, row) : null;
  },
  projectOf: (_id, event) => (typeof event.project_id === 'number' ? event.project_id : null),
};

/** Kept word for word: the hosted service's answer for a URL that names nothing, which clients already handle. */
const INVALID_HYPERLINK = 'Invalid hyperlink - Object does not exist.';

type EventColumns = Partial<Omit<EventRow, 'id' | 'org_id' | 'created_date' | 'modified_date' | 'user_id'>>;

/**
 * The columns a write sets, from the fields it carries: references resolved within
 * the actor's org (400 on the field when one names nothing there or nothing the actor
 * may see; 403 for a project the actor may not see, as everywhere). `current`: the
 * stored event, for an update; an end before the start is checked against it.
 */
async function columnsOf(context: EngineContext, actor: Actor, input: EventUpdate, current: EventRow | null): Promise<EventColumns> {
  const errors: FieldErrors = {};
  const columns: EventColumns = {};
  const orgId = actor.org.id;
  const inOrg = (reference: string | number, kind: 'projects' | 'contacts' | 'roles') => {
    const parsed = parseOrgReference(reference, kind);
    return parsed && (parsed.orgId === null || parsed.orgId === orgId) ? parsed.id : null;
  };

  if (input.project !== undefined) {
    if (input.project === null || input.project === '') columns.project_id = null;
    else {
      const id = inOrg(input.project, 'projects');
      if (id === null) errors.project = [INVALID_HYPERLINK];
      else columns.project_id = (await getVisibleProject(context, actor, id)).id;
    }
  }
  if (input.contact !== undefined) {
    if (input.contact === null || input.contact === '') columns.contact_id = null;
    else {
      const id = inOrg(input.contact, 'contacts');
      // A contact of another org, or one this user may not see, is one that does not exist for them.
      if (id === null || !(await visibleContactIds(context.db, actor, [id])).has(id)) errors.contact = [INVALID_HYPERLINK];
      else columns.contact_id = id;
    }
  }
  if (input.team_members !== undefined) {
    const ids = input.team_members.map((reference) => inOrg(reference, 'roles'));
    const roles = await loadRoles(context.db, orgId, ids.filter((id): id is number => id !== null));
    const unknown = input.team_members.filter((_reference, index) => ids[index] === null || !roles.has(ids[index]!));
    if (unknown.length > 0) {
      errors.team_members = unknown.map((reference) => `${String(reference)} is not a person of this organisation: choose from its roles (GET ${apiPaths.roles(orgId)}).`);
    } else columns.team_member_role_ids = JSON.stringify([...new Set(ids as number[])]);
  }

  if (input.title !== undefined) columns.title = input.title;
  if (input.notes !== undefined) columns.notes = input.notes;
  if (input.event_type !== undefined || input.event_type_id !== undefined) {
    columns.event_type = input.event_type || (input.event_type_id === undefined ? 'note' : eventTypeNameOf(input.event_type_id));
    columns.event_type_id = input.event_type_id ?? eventTypeIdOf(columns.event_type);
  }
  if (input.start !== undefined) columns.starts_at = input.start;
  if (input.end !== undefined) columns.ends_at = input.end;
  if (input.duration !== undefined) columns.duration_seconds = input.duration;
  if (input.task_status !== undefined) columns.task_status = input.task_status;
  if (input.location_override !== undefined) columns.location_override = input.location_override;
  if (input.repeat !== undefined) columns.repeat_json = input.repeat === null ? null : JSON.stringify(input.repeat);
  if (input.is_archived !== undefined) columns.is_archived = toFlag(input.is_archived);

  // Completing stamps the time it was done unless the client names it; reopening clears it.
  if (input.is_complete !== undefined) {
    columns.is_complete = toFlag(input.is_complete);
    if (!input.is_complete) columns.completion_date = input.completion_date ?? null;
    else if (input.completion_date !== undefined) columns.completion_date = input.completion_date;
    else if (current?.is_complete !== 1) columns.completion_date = nowIso(context.clock);
  } else if (input.completion_date !== undefined) columns.completion_date = input.completion_date;

  const timeError = eventTimeError(
    columns.starts_at !== undefined ? columns.starts_at : (current?.starts_at ?? null),
    columns.ends_at !== undefined ? columns.ends_at : (current?.ends_at ?? null),
  );
  if (timeError && !errors.end) errors.end = [timeError];
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return columns;
}

/** Adds a client's event (a note, or a schedule entry); its project, if any, changes too (its events list). */
export async function createEvent(context: EngineContext, actor: Actor, input: EventUpdate & { title: string }): Promise<EventView> {
  const columns = await columnsOf(context, actor, input, null);
  return writeTracked(context, actorScope(actor), async (trx, track) => {
    const projectId = columns.project_id ?? null;
    if (projectId !== null) await track.project(projectId);
    const created = await insertEvent(trx, context, {
      ...columns,
      org_id: actor.org.id,
      project_id: projectId,
      event_type: columns.event_type ?? 'note',
      title: input.title,
      user_id: actor.user.id,
    });
    await track.event(created.id, { created: true });
    return selectEventViews(trx).where('events.id', '=', created.id).executeTakeFirstOrThrow();
  });
}

/**
 * Sets the fields `input` carries (PATCH and PUT alike: no field but `title` is
 * required, and a PUT keeps the fields it leaves out, as for contacts). The project
 * it leaves and the one it joins change too. `ifMatch`: the client's precondition.
 */
export async function updateEvent(context: EngineContext, actor: Actor, event: EventRow, input: EventUpdate, ifMatch: IfMatch | null): Promise<EventView> {
  const columns = await columnsOf(context, actor, input, event);
  return writeTracked(context, actorScope(actor), async (trx, track) => {
    const version = await checkPrecondition(trx, 'events', event.id, ifMatch);
    await trackEventAndProjects(trx, track, event.id, columns.project_id);
    await trx
      .updateTable('events')
      .set({ ...columns, modified_date: nextVersion(context.clock, version) })
      .where('id', '=', event.id)
      .execute();
    return selectEventViews(trx).where('events.id', '=', event.id).executeTakeFirstOrThrow();
  });
}

/** Deletes the event; its project loses it from its events. */
export async function deleteEvent(context: EngineContext, actor: Actor, event: EventRow): Promise<void> {
  await writeTracked(context, actorScope(actor), async (trx, track) => {
    await trackEventAndProjects(trx, track, event.id, undefined);
    await trx.deleteFrom('events').where('id', '=', event.id).execute();
  });
}

/** Tracks the event, the project it is on now and `newProjectId` (the one it moves to), before the write. */
async function trackEventAndProjects(trx: Transaction<Database>, track: ChangeTracker, eventId: number, newProjectId: number | null | undefined): Promise<void> {
  const stored = await trx.selectFrom('events').select('project_id').where('id', '=', eventId).executeTakeFirstOrThrow();
  await track.event(eventId);
  for (const projectId of new Set([stored.project_id, newProjectId ?? null])) if (projectId !== null) await track.project(projectId);
}
