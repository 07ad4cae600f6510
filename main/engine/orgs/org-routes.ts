// GET /api/orgs/<org>/ (clients use it to test a token) and PUT to rename it (hosted
// docs: Orgs; admins only). Its workflows: workflows/workflow-routes.ts.
import type { TypedApp } from '../http/app.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { type Actor, actorOf } from '../auth/actor.ts';
import { forbidden } from '../http/errors.ts';
import type { OrgRow } from '../store/tables.ts';
import { updateOrg } from './org-service.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { API_PLANS } from '../../../shared/plans.ts';
import { orgJsonSchema, orgWriteSchema, type OrgJson } from '../../../shared/schemas/org.ts';

function orgJson(context: EngineContext, org: OrgRow, plan: Actor['plan'], roleId: number): OrgJson {
  return {
    id: org.id,
    url: absoluteUrl(context, apiPaths.org(org.id)),
    name: org.name,
    projects: absoluteUrl(context, apiPaths.projects(org.id)),
    api_plan: plan,
    api_plan_title: API_PLANS[plan].title,
    api_plan_starts_on: org.plan_starts_on,
    api_plan_ends_on: org.plan_ends_on,
    api_plan_is_trial: org.plan_is_trial === 1,
    includes_design_data: API_PLANS[plan].includesDesignData,
    role_id: roleId,
  };
}

export function registerOrgRoutes(app: TypedApp, context: EngineContext): void {
  app.get('/', { prefixTrailingSlash: 'slash', schema: { tags: ['orgs'], summary: 'Get the organisation', response: { 200: orgJsonSchema } } }, async (request) => {
    const { org, plan, role } = actorOf(request);
    return orgJson(context, org, plan, role.id);
  });

  app.put(
    '/',
    {
      prefixTrailingSlash: 'slash',
      schema: {
        tags: ['orgs'],
        summary: 'Update the organisation (admins)',
        description: 'Sets `name`; the other fields are read-only and ignored.',
        body: orgWriteSchema,
        response: { 200: orgJsonSchema },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      if (actor.role.is_admin !== 1) throw forbidden('Only an admin of the organisation may change it.');
      const updated = await updateOrg(context, actor, request.body);
      return orgJson(context, updated, actor.plan, actor.role.id);
    },
  );
}
