// /api/orgs/<org>/roles/: the org's people. A role's own data is changed here
// (service.md 2.1: "use the role's own update endpoint").
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { forbidden, notFound } from '../http/errors.ts';
import { idParam, pageOffset, pagingQuery } from '../http/list-query.ts';
import { booleanField, stringField } from '../../../shared/schemas/coercing-fields.ts';
import { nowIso } from '../clock.ts';
import { selectRoles, serializeRole } from './roles.ts';
import { roleJsonSchema } from '../../../shared/schemas/role.ts';

const params = z.object({ org_id: z.string(), id: idParam });
const roleWriteSchema = z.object({
  first_name: stringField().optional(),
  family_name: stringField().optional(),
  email: stringField().optional(),
  phone: stringField().optional(),
  job_title: stringField().optional(),
  accreditation: stringField().optional(),
  is_hidden: booleanField().optional(),
  allow_email_notifications: booleanField().optional(),
  external_calendar_id: stringField().nullable().optional(),
  schedule_meeting_url: stringField().optional(),
  schedule_meeting_label: stringField().optional(),
});
const tags = ['roles'];

export function registerRoleRoutes(app: TypedApp, context: EngineContext): void {
  const findRole = async (orgId: number, id: number) => {
    const role = await selectRoles(context.db, orgId).where('roles.id', '=', id).executeTakeFirst();
    if (!role) throw notFound();
    return role;
  };

  app.get('/roles/', { schema: { tags, summary: 'List the org’s roles', querystring: z.object(pagingQuery), response: { 200: z.array(roleJsonSchema) } } }, async (request) => {
    const actor = actorOf(request);
    const { page, limit } = request.query;
    const rows = await selectRoles(context.db, actor.org.id).orderBy('roles.id').limit(limit).offset(pageOffset({ page, limit })).execute();
    return rows.map((role) => serializeRole(context, role, actor.org.name));
  });

  app.get('/roles/:id/', { schema: { tags, summary: 'Get a role', params, response: { 200: roleJsonSchema } } }, async (request) => {
    const actor = actorOf(request);
    return serializeRole(context, await findRole(actor.org.id, request.params.id), actor.org.name);
  });

  app.patch('/roles/:id/', { schema: { tags, summary: 'Update a role', params, body: roleWriteSchema, response: { 200: roleJsonSchema } } }, async (request) => {
    const actor = actorOf(request);
    const role = await findRole(actor.org.id, request.params.id);
    if (actor.role.is_admin !== 1 && actor.role.id !== role.id) {
      throw forbidden('Only an admin of the organisation, or the person themselves, may change a role.');
    }
    const flag = (value: boolean | undefined) => (value === undefined ? undefined : ((value ? 1 : 0) as 0 | 1));
    const { is_hidden: isHidden, allow_email_notifications: allowEmail, ...text } = request.body;
    const changes = Object.fromEntries(
      Object.entries({ ...text, is_hidden: flag(isHidden), allow_email_notifications: flag(allowEmail) }).filter(([, value]) => value !== undefined),
    );
    await context.db.updateTable('roles').set({ ...changes, modified_date: nowIso(context.clock) }).where('id', '=', role.id).execute();
    return serializeRole(context, await findRole(actor.org.id, role.id), actor.org.name);
  });
}
