// GET/POST /api/orgs/<org>/connected_orgs/ and PATCH .../connected_orgs/<id>/
// (service.md 4.4, 8). The record and its rules: connected-orgs.ts, docs/files.md.
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { idParam, pageOffset, pagingQuery, readOrdering } from '../http/list-query.ts';
import {
  connectedOrgCreateSchema,
  connectedOrgJsonSchema,
  connectedOrgPatchSchema,
} from '../../../shared/schemas/connected-org.ts';
import { answerConnection, connectionsOf, getConnection, requestConnection, requireOrgAdmin, serializeConnection } from './connected-orgs.ts';

const tags = ['connected orgs'];
const ORDERING_FIELDS = ['id', 'created_date', 'modified_date', 'status'] as const;

export function registerConnectedOrgRoutes(app: TypedApp, context: EngineContext): void {
  app.get(
    '/connected_orgs/',
    {
      config: { throttle: 'connected_org_list' },
      schema: { tags, summary: 'Connections and requests this organisation is part of, either side', querystring: z.object(pagingQuery), response: { 200: z.array(connectedOrgJsonSchema) } },
    },
    async (request) => {
      const { org } = actorOf(request);
      const { page, limit, ordering } = request.query;
      const order = readOrdering(ordering, ORDERING_FIELDS, { field: 'id', direction: 'asc' });
      const rows = await connectionsOf(context.db, org.id)
        .orderBy(`connected_orgs.${order.field}`, order.direction)
        .orderBy('connected_orgs.id', order.direction)
        .limit(limit)
        .offset(pageOffset({ page, limit }))
        .execute();
      return rows.map((row) => serializeConnection(context, org.id, row));
    },
  );

  app.post(
    '/connected_orgs/',
    {
      config: { throttle: 'connected_org_create' },
      schema: { tags, summary: 'Ask another organisation, named exactly, to connect', body: connectedOrgCreateSchema, response: { 201: connectedOrgJsonSchema } },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      requireOrgAdmin(actor);
      const id = await requestConnection(context, actor, request.body);
      return reply.code(201).send(serializeConnection(context, actor.org.id, await getConnection(context.db, actor.org.id, id)));
    },
  );

  app.patch(
    '/connected_orgs/:id/',
    {
      config: { throttle: 'connected_org_partial_update' },
      schema: {
        tags,
        summary: 'Accept (the asked organisation) or decline (either) a connection',
        params: z.object({ org_id: z.string(), id: idParam }),
        body: connectedOrgPatchSchema,
        response: { 200: connectedOrgJsonSchema },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      requireOrgAdmin(actor);
      const row = await getConnection(context.db, actor.org.id, request.params.id);
      await answerConnection(context, actor, row, request.body.status);
      return serializeConnection(context, actor.org.id, await getConnection(context.db, actor.org.id, row.id));
    },
  );
}
