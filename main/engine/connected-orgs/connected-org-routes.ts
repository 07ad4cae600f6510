// /api/orgs/<org>/connected_orgs/ (hosted-docs-facts.md section 4): ask, see
// requests, accept, list, enable/disable, remove. The rules: connected-orgs.ts,
// docs/access.md "Teams".
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { idParam, pageOffset, pagingQuery, readOrdering } from '../http/list-query.ts';
import {
  acceptConnectionJsonSchema,
  acceptConnectionSchema,
  connectedOrgCreateSchema,
  connectedOrgJsonSchema,
  connectedOrgPatchSchema,
  pendingConnectionJsonSchema,
} from '../../../shared/schemas/connected-org.ts';
import {
  acceptConnection,
  connectionsOf,
  deleteConnection,
  getConnection,
  pendingRequests,
  requestConnection,
  requireOrgAdmin,
  serializeConnection,
  updateConnection,
} from './connected-orgs.ts';

const tags = ['connected orgs'];
const ORDERING_FIELDS = ['id', 'created_date', 'modified_date'] as const;
const params = z.object({ org_id: z.string(), id: idParam });

export function registerConnectedOrgRoutes(app: TypedApp, context: EngineContext): void {
  app.get(
    '/connected_orgs/',
    {
      config: { throttle: 'connected_org_list' },
      schema: {
        tags,
        summary: "This organisation's connections, seen from its side (its own requests too, until the partner accepts)",
        querystring: z.object({ ...pagingQuery, fieldset: z.string().optional() }),
        response: { 200: z.array(connectedOrgJsonSchema) },
      },
    },
    async (request) => {
      const { org } = actorOf(request);
      const { page, limit, ordering } = request.query;
      const order = readOrdering(ordering, ORDERING_FIELDS, { field: 'id', direction: 'asc' });
      const rows = await connectionsOf(context.db, org.id)
        .orderBy(`mine.${order.field}`, order.direction)
        .orderBy('mine.id', order.direction)
        .limit(limit)
        .offset(pageOffset({ page, limit }))
        .execute();
      return rows.map((row) => serializeConnection(context, row));
    },
  );

  app.post(
    '/connected_orgs/',
    {
      config: { throttle: 'connected_org_create' },
      schema: { tags, summary: 'Ask another organisation, named exactly, to connect (admins)', body: connectedOrgCreateSchema, response: { 201: connectedOrgJsonSchema } },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      requireOrgAdmin(actor);
      const id = await requestConnection(context, actor, request.body);
      return reply.code(201).send(serializeConnection(context, await getConnection(context.db, actor.org.id, id)));
    },
  );

  app.get(
    '/connected_orgs/pending/',
    {
      config: { throttle: 'connected_org_list' },
      schema: { tags, summary: 'Connection requests waiting for this organisation to accept them', response: { 200: z.array(pendingConnectionJsonSchema) } },
    },
    async (request) => pendingRequests(context.db, actorOf(request).org.id),
  );

  app.post(
    '/connected_orgs/accept_connection/',
    {
      config: { throttle: 'connected_org_partial_update' },
      schema: {
        tags,
        summary: 'Accept a pending request: send the org_to_id of its pending item (admins)',
        body: acceptConnectionSchema,
        response: { 200: acceptConnectionJsonSchema },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      requireOrgAdmin(actor);
      const id = await acceptConnection(context, actor, request.body.org_to_id);
      const connection = serializeConnection(context, await getConnection(context.db, actor.org.id, id));
      return { detail: `Connected to ${connection.org_name}.`, connected_org: connection };
    },
  );

  app.get(
    '/connected_orgs/:id/',
    { schema: { tags, summary: 'One connection, seen from this side', params, response: { 200: connectedOrgJsonSchema } } },
    async (request) => serializeConnection(context, await getConnection(context.db, actorOf(request).org.id, request.params.id)),
  );

  app.patch(
    '/connected_orgs/:id/',
    {
      config: { throttle: 'connected_org_partial_update' },
      schema: {
        tags,
        summary: "Enable or disable this side (is_active; sharing pauses both ways while either is off), or change this side's settings (admins)",
        params,
        body: connectedOrgPatchSchema,
        response: { 200: connectedOrgJsonSchema },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const row = await getConnection(context.db, actor.org.id, request.params.id);
      requireOrgAdmin(actor);
      await updateConnection(context, actor, row, request.body);
      return serializeConnection(context, await getConnection(context.db, actor.org.id, row.id));
    },
  );

  app.delete(
    '/connected_orgs/:id/',
    { schema: { tags, summary: 'Remove the connection, both sides, and all its sharing settings; on a pending item_id, decline the request (admins)', params } },
    async (request, reply) => {
      const actor = actorOf(request);
      const row = await getConnection(context.db, actor.org.id, request.params.id, true);
      requireOrgAdmin(actor);
      await deleteConnection(context, actor, row);
      return reply.code(204).send();
    },
  );
}
