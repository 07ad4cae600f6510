// /api/orgs/<org>/contacts/ (compatibility.md "Projects": contacts have their own endpoints).
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { idParam, pageOffset, pagingQuery, readOrdering, searchParam } from '../http/list-query.ts';
import { contactWriteSchema } from '../../../shared/schemas/contact-write.ts';
import { conditionalWriteSchema, readIfMatch, versionTag } from '../http/preconditions.ts';
import { likePattern } from '../projects/project-service.ts';
import { serializeContact } from './contacts.ts';
import { createContact, deleteContact, updateContact } from './contact-service.ts';
import { contactJsonSchema } from '../../../shared/schemas/contact.ts';
import { contactVisibleTo, getVisibleContact } from './contact-access.ts';
import { sql } from 'kysely';

const CONTACT_ORDERING_FIELDS = ['id', 'first_name', 'family_name', 'email', 'created_date', 'modified_date'] as const;
const params = z.object({ org_id: z.string(), id: idParam });
const tags = ['contacts'];

export function registerContactRoutes(app: TypedApp, context: EngineContext): void {
  app.get(
    '/contacts/',
    { schema: { tags, summary: 'List contacts', querystring: z.object({ ...pagingQuery, search: searchParam() }), response: { 200: z.array(contactJsonSchema) } } },
    async (request) => {
      const actor = actorOf(request);
      const { page, limit, ordering, search } = request.query;
      const order = readOrdering(ordering, CONTACT_ORDERING_FIELDS, { field: 'id', direction: 'asc' });
      let query = context.db.selectFrom('contacts').selectAll().where(contactVisibleTo(actor));
      if (search) {
        const pattern = likePattern(search);
        query = query.where(
          sql<boolean>`lower(first_name || ' ' || family_name || ' ' || email || ' ' || phone) like ${pattern} escape '\\'`,
        );
      }
      const rows = await query.orderBy(order.field, order.direction).orderBy('id').limit(limit).offset(pageOffset({ page, limit })).execute();
      return rows.map((contact) => serializeContact(context, contact));
    },
  );

  app.post('/contacts/', { schema: { tags, summary: 'Create a contact', body: contactWriteSchema, response: { 201: contactJsonSchema } } }, async (request, reply) => {
    const actor = actorOf(request);
    const contact = await createContact(context, actor, request.body);
    return reply.code(201).send(serializeContact(context, contact));
  });

  app.get('/contacts/:id/', { schema: { tags, summary: 'Get a contact', params, response: { 200: contactJsonSchema } } }, async (request, reply) => {
    const contact = await getVisibleContact(context.db, actorOf(request), request.params.id);
    reply.header('etag', versionTag(contact.modified_date));
    return serializeContact(context, contact);
  });

  app.patch('/contacts/:id/', { schema: { tags, summary: 'Update a contact', params, body: contactWriteSchema, ...conditionalWriteSchema, response: { 200: contactJsonSchema } } }, async (request, reply) => {
    const actor = actorOf(request);
    const contact = await getVisibleContact(context.db, actor, request.params.id);
    const updated = await updateContact(context, actor, contact, request.body, readIfMatch(request.headers['if-match']));
    reply.header('etag', versionTag(updated.modified_date));
    return serializeContact(context, updated);
  });

  app.delete('/contacts/:id/', { schema: { tags, summary: 'Delete a contact', params } }, async (request, reply) => {
    const actor = actorOf(request);
    const contact = await getVisibleContact(context.db, actor, request.params.id);
    await deleteContact(context, actor, contact);
    return reply.code(204).send();
  });
}
