// /api/orgs/<org>/roles/: the org's people. A role's own data is changed here
// (service.md 2.1: "use the role's own update endpoint").
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { forbidden, notFound } from '../http/errors.ts';
import { idParam, pageOffset, pagingQuery, readOrdering } from '../http/list-query.ts';
import { findRole, roleWriteSchema, selectRoles, serializeRole } from './roles.ts';
import { updateRole } from './role-service.ts';
import { roleJsonSchema } from '../../../shared/schemas/role.ts';

const params = z.object({ org_id: z.string(), id: idParam });
const tags = ['roles'];

/** The roles list's orderings (hosted docs: Roles): `id` or `is_admin`, `-` for descending; ties by id. */
const ROLE_ORDERING_FIELDS = ['id', 'is_admin'] as const;
const listQuery = z.object({
  ...pagingQuery,
  fieldset: z.enum(['list']).optional().catch(undefined).describe('The list fieldset: the roles list has one shape, so it changes nothing.'),
});

export function registerRoleRoutes(app: TypedApp, context: EngineContext): void {
  const findOrgRole = async (orgId: number, id: number) => {
    const role = await findRole(context.db, orgId, id);
    if (!role) throw notFound();
    return role;
  };

  app.get('/roles/', { schema: { tags, summary: 'List the org’s roles', querystring: listQuery, response: { 200: z.array(roleJsonSchema) } } }, async (request) => {
    const actor = actorOf(request);
    const { page, limit, ordering } = request.query;
    const order = readOrdering(ordering, ROLE_ORDERING_FIELDS, { field: 'id', direction: 'asc' });
    let query = selectRoles(context.db, actor.org.id).orderBy(`roles.${order.field}`, order.direction);
    if (order.field !== 'id') query = query.orderBy('roles.id', order.direction);
    const rows = await query.limit(limit).offset(pageOffset({ page, limit })).execute();
    return rows.map((role) => serializeRole(context, role, actor.org.name));
  });

  app.get('/roles/:id/', { schema: { tags, summary: 'Get a role', params, response: { 200: roleJsonSchema } } }, async (request) => {
    const actor = actorOf(request);
    return serializeRole(context, await findOrgRole(actor.org.id, request.params.id), actor.org.name);
  });

  app.patch('/roles/:id/', { schema: { tags, summary: 'Update a role', params, body: roleWriteSchema, response: { 200: roleJsonSchema } } }, async (request) => {
    const actor = actorOf(request);
    const role = await findOrgRole(actor.org.id, request.params.id);
    if (actor.role.is_admin !== 1 && actor.role.id !== role.id) {
      throw forbidden('Only an admin of the organisation, or the person themselves, may change a role.');
    }
    return serializeRole(context, await updateRole(context, actor, role, request.body), actor.org.name);
  });
}
