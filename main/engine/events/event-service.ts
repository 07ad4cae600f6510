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
import { eventTimeError, type FieldErrors } from '../../../shared/field-rules.ts';
import type { EventUpdate } from '../../../shared/schemas/event-write.ts';
import { apiPaths, parseOrgReference } from '../../../shared/api-paths.ts';
import { validationError } from '../http/errors.ts';
import { getVisibleProject } from '../projects/project-service.ts';
import { visibleContactIds } from '../contacts/contact-access.ts';
import { loadRoles } from '../roles/roles.ts';
import { nowIso } from '../clock.ts';
import { checkPrecondition, type IfMatch, nextVersion } from '../http/preconditions.ts';
import { type EventColumns, type EventValues, eventColumnsOf } from './event-columns.ts';

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

/**
 * The columns a write sets, from the fields it carries: references resolved within
 * the actor's org (400 on the field when one names nothing there or nothing the actor
 * may see; 403 for a project the actor may not see, as everywhere). `current`: the
 * stored event, for an update; an end before the start is checked against it.
 */
async function columnsOf(context: EngineContext, actor: Actor, input: EventUpdate, current: EventRow | null): Promise<EventColumns> {
  const errors: FieldErrors = {};
  const orgId = actor.org.id;
  const inOrg = (reference: string | number, kind: 'projects' | 'contacts' | 'roles') => {
    const parsed = parseOrgReference(reference, kind);
    return parsed && (parsed.orgId === null || parsed.orgId === orgId) ? parsed.id : null;
  };
  const values: Partial<EventValues> = {
    title: input.title,
    notes: input.notes,
    event_type: input.event_type,
    event_type_id: input.event_type_id,
    start: input.start,
    end: input.end,
    duration: input.duration,
    task_status: input.task_status,
    location_override: input.location_override,
    repeat: input.repeat,
    is_archived: input.is_archived,
    is_complete: input.is_complete,
    completion_date: completionDateOf(context, input, current),
  };

  if (input.project !== undefined) {
    if (input.project === null || input.project === '') values.project_id = null;
    else {
      const id = inOrg(input.project, 'projects');
      if (id === null) errors.project = [INVALID_HYPERLINK];
      else values.project_id = (await getVisibleProject(context, actor, id)).id;
    }
  }
  if (input.contact !== undefined) {
    if (input.contact === null || input.contact === '') values.contact_id = null;
    else {
      const id = inOrg(input.contact, 'contacts');
      // A contact of another org, or one this user may not see, is one that does not exist for them.
      if (id === null || !(await visibleContactIds(context.db, actor, [id])).has(id)) errors.contact = [INVALID_HYPERLINK];
      else values.contact_id = id;
    }
  }
  if (input.team_members !== undefined) {
    const ids = input.team_members.map((reference) => inOrg(reference, 'roles'));
    const roles = await loadRoles(context.db, orgId, ids.filter((id): id is number => id !== null));
    const unknown = input.team_members.filter((_reference, index) => ids[index] === null || !roles.has(ids[index]!));
    if (unknown.length > 0) {
      errors.team_members = unknown.map((reference) => `${String(reference)} is not a person of this organisation: choose from its roles (GET ${apiPaths.roles(orgId)}).`);
    } else values.team_members = ids as number[];
  }

  const columns = eventColumnsOf(values);
  const timeError = eventTimeError(
    columns.starts_at !== undefined ? columns.starts_at : (current?.starts_at ?? null),
    columns.ends_at !== undefined ? columns.ends_at : (current?.ends_at ?? null),
  );
  if (timeError && !errors.end) errors.end = [timeError];
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return columns;
}

/** Completing stamps the time it was done unless the client names it; reopening clears it. Undefined: the write leaves it. */
function completionDateOf(context: EngineContext, input: EventUpdate, current: EventRow | null): string | null | undefined {
  if (input.is_complete === undefined) return input.completion_date;
  if (!input.is_complete) return input.completion_date ?? null;
  if (input.completion_date !== undefined) return input.completion_date;
  return current?.is_complete === 1 ? undefined : nowIso(context.clock);
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
