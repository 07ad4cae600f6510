// /api/orgs/<org>/events/: the activity the engine records, and notes clients add.
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorOf, canSeeAllProjects } from '../auth/actor.ts';
import { fieldError, notFound } from '../http/errors.ts';
import { idParam, pageOffset, pagingQuery } from '../http/list-query.ts';
import { parseOrgReference } from '../../../shared/api-paths.ts';
import { integerField, stringField } from '../../../shared/schemas/coercing-fields.ts';
import { isEventTypeId } from '../../../shared/event-types.ts';
import { getVisibleProject } from '../projects/project-service.ts';
import { visibleProjectIds } from '../projects/project-access.ts';
import { selectEventViews, serializeEvent } from './events.ts';
import { createEvent } from './event-service.ts';
import { eventJsonSchema } from '../../../shared/schemas/event.ts';

const eventWriteSchema = z.object({
  project: z.union([z.string(), z.number()]).nullable().optional(),
  title: stringField().refine((title) => title.trim() !== '', 'This field may not be blank.'),
  notes: stringField().optional(),
  event_type: stringField().optional(),
  event_type_id: integerField()
    .refine(isEventTypeId, 'Not a known event type id (hosted-docs-facts.md 9: the fixed table of event kinds).')
    .optional()
    .describe('the kind, from the fixed table of event types; default: that of event_type, else 31 (Note)'),
});
const tags = ['events'];

export function registerEventRoutes(app: TypedApp, context: EngineContext): void {
  app.get(
    '/events/',
    {
      schema: {
        tags,
        summary: 'List events (filter by project)',
        querystring: z.object({ ...pagingQuery, project: z.string().optional() }),
        response: { 200: z.array(eventJsonSchema) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { page, limit, project } = request.query;
      let query = selectEventViews(context.db).where('events.org_id', '=', actor.org.id);
      if (project !== undefined) {
        const reference = parseOrgReference(project, 'projects');
        if (!reference || (reference.orgId !== null && reference.orgId !== actor.org.id)) return [];
        query = query.where('events.project_id', '=', reference.id);
      }
      if (!canSeeAllProjects(actor.role)) {
        // Events of projects this user may not see stay hidden; org-wide events do not.
        query = query.where((builder) =>
          builder.or([
            builder('events.project_id', 'is', null),
            builder('events.project_id', 'in', visibleProjectIds(actor)),
          ]),
        );
      }
      const rows = await query.orderBy('events.id', 'desc').limit(limit).offset(pageOffset({ page, limit })).execute();
      return rows.map((event) => serializeEvent(context, event));
    },
  );

  app.get('/events/:id/', { schema: { tags, summary: 'Get an event', params: z.object({ org_id: z.string(), id: idParam }), response: { 200: eventJsonSchema } } }, async (request) => {
    const actor = actorOf(request);
    const event = await selectEventViews(context.db).where('events.org_id', '=', actor.org.id).where('events.id', '=', request.params.id).executeTakeFirst();
    if (!event) throw notFound();
    if (event.project_id !== null) await getVisibleProject(context, actor, event.project_id);
    return serializeEvent(context, event);
  });

  app.post('/events/', { schema: { tags, summary: 'Add an event (a note) to a project', body: eventWriteSchema, response: { 201: eventJsonSchema } } }, async (request, reply) => {
    const actor = actorOf(request);
    const { project, title, notes, event_type: eventType, event_type_id: eventTypeId } = request.body;
    let projectId: number | null = null;
    if (project !== undefined && project !== null && project !== '') {
      const reference = parseOrgReference(project, 'projects');
      if (!reference || (reference.orgId !== null && reference.orgId !== actor.org.id)) {
        throw fieldError('project', 'Invalid hyperlink - Object does not exist.');
      }
      projectId = (await getVisibleProject(context, actor, reference.id)).id;
    }
    const event = await createEvent(context, actor, { projectId, title, notes, eventType, eventTypeId });
    return reply.code(201).send(serializeEvent(context, event));
  });
}
