// /api/orgs/<org>/events/: the activity the engine records, notes clients add, and
// the schedule (issue 27: visits, installations, meetings, with their time, people
// and completion). An event on a project is seen and changed by those who may see
// that project (404 when there is no such event, 403 when its project is not theirs,
// as for projects); an org-wide event by every member.
import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { type Actor, actorOf } from '../auth/actor.ts';
import { ApiError, notFound } from '../http/errors.ts';
import { SOLARDESK_EXTENSION_TAG, extensionDescription } from '../http/extensions.ts';
import { contentDisposition } from '../files/file-types.ts';
import { calendarFileName, calendarText, loadCalendarDetails } from './event-calendar.ts';
import { idParam, pageOffset, pagingQuery, readOrdering } from '../http/list-query.ts';
import { conditionalWriteSchema, readIfMatch, versionTag } from '../http/preconditions.ts';
import { parseOrgReference } from '../../../shared/api-paths.ts';
import { booleanQueryParam, integerField } from '../../../shared/schemas/coercing-fields.ts';
import { parseDateTime } from '../../../shared/field-rules.ts';
import { getVisibleProject } from '../projects/project-service.ts';
import { type EventView, onlyEventsVisibleTo, onlyEventsWithTeamMember, selectEventViews, serializeEvent } from './events.ts';
import { createEvent, deleteEvent, updateEvent } from './event-service.ts';
import { eventJsonSchema } from '../../../shared/schemas/event.ts';
import { eventCreateSchema, eventUpdateSchema } from '../../../shared/schemas/event-write.ts';

const tags = ['events'];
const params = z.object({ org_id: z.string(), id: idParam });

/** SolarDesk's own list filters are marked so in the OpenAPI document: the hosted service does not document them. */
const extension = (text: string) => `SolarDesk extension (the hosted service documents no such filter): ${text}`;

/** A time bound of the list: a date-time, or a date (its midnight, UTC). */
const timeBound = (name: string) =>
  z
    .string()
    .optional()
    .transform((text, context) => {
      if (text === undefined || text.trim() === '') return undefined;
      const instant = parseDateTime(/^\d{4}-\d{2}-\d{2}$/.test(text.trim()) ? `${text.trim()}T00:00:00Z` : text);
      if (instant === null) context.addIssue({ code: 'custom', message: `${name} must be a date or a date and time, such as 2026-03-31 or 2026-03-31T09:00:00Z.` });
      return instant ?? undefined;
    });

const EVENT_ORDERING_FIELDS = { id: 'events.id', start: 'events.starts_at', created_date: 'events.created_date', modified_date: 'events.modified_date' } as const;

const listQuery = z.object({
  ...pagingQuery,
  ordering: z.string().optional().describe(extension('id, start, created_date or modified_date; "-" first for descending. Default: -id.')),
  project: z.string().optional().describe('a project id, absolute project URL or /api/orgs/<org>/projects/<id>/ path'),
  start_after: timeBound('start_after').describe(extension('events starting at or after this date-time (or date, from its midnight UTC)')),
  start_before: timeBound('start_before').describe(extension('events starting before this date-time (or date, before its midnight UTC)')),
  event_type_id: integerField().optional().describe(extension('events of this kind (shared/event-types.ts)')),
  is_complete: booleanQueryParam().describe(extension('true: completed events only; false: open ones only')),
  is_archived: booleanQueryParam().describe(extension('true: archived events only; false: the others only')),
  team_member: z.string().optional().describe(extension('events this role (its URL or id) is a team member of')),
});

/** The event, when the actor may see it: 404 when the org has no such event, 403 when its project is not theirs. */
async function getVisibleEvent(context: EngineContext, actor: Actor, id: number): Promise<EventView> {
  const event = await selectEventViews(context.db).where('events.org_id', '=', actor.org.id).where('events.id', '=', id).executeTakeFirst();
  if (!event) throw notFound();
  if (event.project_id !== null) await getVisibleProject(context, actor, event.project_id);
  return event;
}

export function registerEventRoutes(app: TypedApp, context: EngineContext): void {
  app.get(
    '/events/',
    {
      schema: {
        tags,
        summary: 'List events (filter by project, time, kind, completion and team member)',
        querystring: listQuery,
        response: { 200: z.array(eventJsonSchema) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { page, limit, ordering, project, start_after: startAfter, start_before: startBefore, event_type_id: eventTypeId, is_complete: isComplete, is_archived: isArchived, team_member: teamMember } = request.query;
      let query = selectEventViews(context.db).where('events.org_id', '=', actor.org.id);
      // A reference to another org's record names nothing here: an empty list, as for projects.
      if (project !== undefined) {
        const reference = parseOrgReference(project, 'projects');
        if (!reference || (reference.orgId !== null && reference.orgId !== actor.org.id)) return [];
        query = query.where('events.project_id', '=', reference.id);
      }
      if (teamMember !== undefined) {
        const reference = parseOrgReference(teamMember, 'roles');
        if (!reference || (reference.orgId !== null && reference.orgId !== actor.org.id)) return [];
        query = onlyEventsWithTeamMember(query, reference.id);
      }
      if (startAfter !== undefined) query = query.where('events.starts_at', '>=', startAfter);
      if (startBefore !== undefined) query = query.where('events.starts_at', '<', startBefore);
      if (eventTypeId !== undefined) query = query.where('events.event_type_id', '=', eventTypeId);
      if (isComplete !== undefined) query = query.where('events.is_complete', '=', isComplete ? 1 : 0);
      if (isArchived !== undefined) query = query.where('events.is_archived', '=', isArchived ? 1 : 0);
      // Events of projects this user may not see stay hidden; org-wide events do not.
      query = onlyEventsVisibleTo(query, actor);
      const order = readOrdering(ordering, Object.keys(EVENT_ORDERING_FIELDS) as (keyof typeof EVENT_ORDERING_FIELDS)[], { field: 'id', direction: 'desc' });
      const rows = await query
        .orderBy(EVENT_ORDERING_FIELDS[order.field], order.direction)
        .orderBy('events.id', order.direction)
        .limit(limit)
        .offset(pageOffset({ page, limit }))
        .execute();
      return rows.map((event) => serializeEvent(context, event));
    },
  );

  app.get('/events/:id/', { schema: { tags, summary: 'Get an event', params, response: { 200: eventJsonSchema } } }, async (request, reply) => {
    const event = await getVisibleEvent(context, actorOf(request), request.params.id);
    reply.header('etag', versionTag(event.modified_date));
    return serializeEvent(context, event);
  });

  app.get(
    '/events/:id/ics/',
    {
      schema: {
        tags: [...tags, SOLARDESK_EXTENSION_TAG],
        summary: 'Download an event as an iCalendar (.ics) file',
        description: extensionDescription(
          'The event as one VEVENT (RFC 5545) for a phone or desktop calendar: its title, start and end (in UTC), place (location_override, else the project\'s address), notes, project, contact and team. Seen by whoever may see the event. 409 for an event with no start (a note): a calendar has nowhere to put it.',
        ),
        params,
      },
    },
    async (request, reply) => {
      const event = await getVisibleEvent(context, actorOf(request), request.params.id);
      if (event.starts_at === null) throw new ApiError(409, { detail: 'This event has no start time, so no calendar can show it. Give it a start, then download it again.' });
      const text = calendarText(context, event.title, [event], await loadCalendarDetails(context.db, [event]));
      return reply
        .type('text/calendar; charset=utf-8')
        .header('content-disposition', contentDisposition(calendarFileName(event.title), 'text/calendar'))
        .send(text);
    },
  );

  app.post('/events/', { schema: { tags, summary: 'Add an event: a note, or a schedule entry', body: eventCreateSchema, response: { 201: eventJsonSchema } } }, async (request, reply) => {
    const event = await createEvent(context, actorOf(request), request.body);
    reply.header('etag', versionTag(event.modified_date));
    return reply.code(201).send(serializeEvent(context, event));
  });

  // PATCH and PUT are one update, as for projects and contacts: no field is required,
  // so a PUT changes the fields it carries and keeps the others.
  const update = async (
    request: { params: { id: number }; body: z.output<typeof eventUpdateSchema>; headers: { 'if-match'?: string } } & Parameters<typeof actorOf>[0],
    reply: FastifyReply,
  ) => {
    const actor = actorOf(request);
    const event = await getVisibleEvent(context, actor, request.params.id);
    const updated = await updateEvent(context, actor, event, request.body, readIfMatch(request.headers['if-match']));
    reply.header('etag', versionTag(updated.modified_date));
    return serializeEvent(context, updated);
  };
  const writeSchema = { tags, params, body: eventUpdateSchema, ...conditionalWriteSchema, response: { 200: eventJsonSchema } };
  app.patch('/events/:id/', { schema: { ...writeSchema, summary: 'Update some fields of an event (complete it, archive it, move it)' } }, update);
  app.put('/events/:id/', { schema: { ...writeSchema, summary: 'Update an event' } }, update);

  app.delete('/events/:id/', { schema: { tags, summary: 'Delete an event', params } }, async (request, reply) => {
    const actor = actorOf(request);
    const event = await getVisibleEvent(context, actor, request.params.id);
    await deleteEvent(context, actor, event);
    return reply.code(204).send();
  });
}
