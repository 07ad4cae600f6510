// /api/orgs/<org>/contacts/ (compatibility.md "Projects": contacts have their own endpoints).
import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { idParam, pageOffset, pagingQuery, readOrdering, searchParam } from '../http/list-query.ts';
import { searchTerms } from '../../../shared/search-terms.ts';
import { contactWriteSchema } from '../../../shared/schemas/contact-write.ts';
import { conditionalWriteSchema, readIfMatch, versionTag } from '../http/preconditions.ts';
import { likePattern } from '../projects/project-service.ts';
import { serializeContactRecords } from './contacts.ts';
import { createContact, deleteContact, updateContact } from './contact-service.ts';
import { contactRecordSchema } from '../../../shared/schemas/contact.ts';
import { contactVisibleTo, getVisibleContact } from './contact-access.ts';
import { sql } from 'kysely';

const CONTACT_ORDERING_FIELDS = ['id', 'first_name', 'family_name', 'email', 'created_date', 'modified_date'] as const;
const params = z.object({ org_id: z.string(), id: idParam });
const tags = ['contacts'];

export function registerContactRoutes(app: TypedApp, context: EngineContext): void {
  app.get(
    '/contacts/',
    { schema: { tags, summary: 'List contacts', querystring: z.object({ ...pagingQuery, search: searchParam() }), response: { 200: z.array(contactRecordSchema) } } },
    async (request) => {
      const actor = actorOf(request);
      const { page, limit, ordering, search } = request.query;
      const order = readOrdering(ordering, CONTACT_ORDERING_FIELDS, { field: 'id', direction: 'asc' });
      let query = context.db.selectFrom('contacts').selectAll().where(contactVisibleTo(actor));
      // Every word must be found, each in any of the name, email or phone, as the project search
      // and DRF's SearchFilter do (shared/search-terms.ts): "Wang Zara" finds Zara Wang.
      for (const term of searchTerms(search ?? '')) {
        query = query.where(sql<boolean>`lower(first_name || ' ' || family_name || ' ' || email || ' ' || phone) like ${likePattern(term)} escape '\\'`);
      }
      const rows = await query.orderBy(order.field, order.direction).orderBy('id').limit(limit).offset(pageOffset({ page, limit })).execute();
      return serializeContactRecords(context, context.db, rows, actor);
    },
  );

  app.post('/contacts/', { schema: { tags, summary: 'Create a contact', body: contactWriteSchema, response: { 201: contactRecordSchema } } }, async (request, reply) => {
    const actor = actorOf(request);
    const contact = await createContact(context, actor, request.body);
    return reply.code(201).send((await serializeContactRecords(context, context.db, [contact], actor))[0]!);
  });

  app.get('/contacts/:id/', { schema: { tags, summary: 'Get a contact', params, response: { 200: contactRecordSchema } } }, async (request, reply) => {
    const actor = actorOf(request);
    const contact = await getVisibleContact(context.db, actor, request.params.id);
    reply.header('etag', versionTag(contact.modified_date));
    return (await serializeContactRecords(context, context.db, [contact], actor))[0]!;
  });

  // PATCH and PUT (the hosted service's documented update, hosted-docs-facts.md 6) are one
  // update, as for projects: no contact field is required, so a PUT changes the fields it
  // carries and keeps the others, as DRF's full update of a serializer without required
  // fields does. Same access, If-Match (412), quota, change capture and webhooks.
  const update = async (
    request: { params: { id: number }; body: z.output<typeof contactWriteSchema>; headers: { 'if-match'?: string } } & Parameters<typeof actorOf>[0],
    reply: FastifyReply,
  ) => {
    const actor = actorOf(request);
    const contact = await getVisibleContact(context.db, actor, request.params.id);
    const updated = await updateContact(context, actor, contact, request.body, readIfMatch(request.headers['if-match']));
    reply.header('etag', versionTag(updated.modified_date));
    return (await serializeContactRecords(context, context.db, [updated], actor))[0]!;
  };
  const writeSchema = { tags, params, body: contactWriteSchema, ...conditionalWriteSchema, response: { 200: contactRecordSchema } };
  app.patch('/contacts/:id/', { schema: { ...writeSchema, summary: 'Update some fields of a contact' } }, update);
  app.put('/contacts/:id/', { schema: { ...writeSchema, summary: 'Update a contact' } }, update);

  app.delete('/contacts/:id/', { schema: { tags, summary: 'Delete a contact', params } }, async (request, reply) => {
    const actor = actorOf(request);
    const contact = await getVisibleContact(context.db, actor, request.params.id);
    await deleteContact(context, actor, contact);
    return reply.code(204).send();
  });
}
