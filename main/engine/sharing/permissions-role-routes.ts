// /api/orgs/<org>/permissions_role/ (hosted-docs-facts.md section 11): the roles
// that narrow what a connected org sees of the projects shared to it. Anyone in the
// org reads them; admins make them. docs/access.md "Teams".
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { idParam, pageOffset, pagingQuery, readOrdering } from '../http/list-query.ts';
import { fieldError, notFound } from '../http/errors.ts';
import { nowIso } from '../clock.ts';
import { requireOrgAdmin } from '../connected-orgs/connected-orgs.ts';
import type { PermissionsRoleRow } from '../store/tables.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import {
  parsePermissions,
  permissionsRoleCreateSchema,
  permissionsRoleJsonSchema,
  type PermissionsRoleJson,
} from '../../../shared/schemas/permissions-role.ts';

const tags = ['connected orgs'];

export function serializePermissionsRole(context: EngineContext, row: PermissionsRoleRow): PermissionsRoleJson {
  return {
    id: row.id,
    url: absoluteUrl(context, apiPaths.permissionsRole(row.org_id, row.id)),
    org: absoluteUrl(context, apiPaths.org(row.org_id)),
    role_type: row.role_type,
    title: row.title,
    permissions: row.permissions,
  };
}

export function registerPermissionsRoleRoutes(app: TypedApp, context: EngineContext): void {
  app.get(
    '/permissions_role/',
    {
      schema: {
        tags,
        summary: "This organisation's permissions roles (role_type 1: for connected orgs)",
        querystring: z.object({ ...pagingQuery, fieldset: z.string().optional() }),
        response: { 200: z.array(permissionsRoleJsonSchema) },
      },
    },
    async (request) => {
      const { org } = actorOf(request);
      const { page, limit, ordering } = request.query;
      const order = readOrdering(ordering, ['id', 'title'] as const, { field: 'id', direction: 'asc' });
      const rows = await context.db
        .selectFrom('permissions_roles')
        .selectAll()
        .where('org_id', '=', org.id)
        .orderBy(order.field, order.direction)
        .orderBy('id', order.direction)
        .limit(limit)
        .offset(pageOffset({ page, limit }))
        .execute();
      return rows.map((row) => serializePermissionsRole(context, row));
    },
  );

  app.post(
    '/permissions_role/',
    {
      schema: {
        tags,
        summary: 'Make a permissions role (admins): permissions is a JSON string {"project": {<area>: {view, create, edit, delete as 0/1}}}',
        body: permissionsRoleCreateSchema,
        response: { 201: permissionsRoleJsonSchema },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      requireOrgAdmin(actor);
      const parsed = parsePermissions(request.body.permissions);
      if ('error' in parsed) throw fieldError('permissions', parsed.error);
      const now = nowIso(context.clock);
      const row = await context.db
        .insertInto('permissions_roles')
        .values({
          org_id: actor.org.id,
          role_type: request.body.role_type,
          title: request.body.title.trim(),
          permissions: JSON.stringify({ project: parsed.permissions }),
          project_view: parsed.permissions.project?.view === 1 ? 1 : 0,
          created_date: now,
          modified_date: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return reply.code(201).send(serializePermissionsRole(context, row));
    },
  );

  app.get(
    '/permissions_role/:id/',
    { schema: { tags, summary: 'One permissions role', params: z.object({ org_id: z.string(), id: idParam }), response: { 200: permissionsRoleJsonSchema } } },
    async (request) => {
      const { org } = actorOf(request);
      const row = await context.db.selectFrom('permissions_roles').selectAll().where('org_id', '=', org.id).where('id', '=', request.params.id).executeTakeFirst();
      if (!row) throw notFound();
      return serializePermissionsRole(context, row);
    },
  );
}
