// GET /api/orgs/<org>/ (clients use it to test a token). Its workflows: workflows/workflow-routes.ts.
import type { TypedApp } from '../http/app.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { API_PLANS } from '../../../shared/plans.ts';
import { orgJsonSchema, type OrgJson } from '../../../shared/schemas/org.ts';

export function registerOrgRoutes(app: TypedApp, context: EngineContext): void {
  app.get('/', { prefixTrailingSlash: 'slash', schema: { tags: ['orgs'], summary: 'Get the organisation', response: { 200: orgJsonSchema } } }, async (request) => {
    const { org, plan, role } = actorOf(request);
    const json: OrgJson = {
      id: org.id,
      url: absoluteUrl(context, apiPaths.org(org.id)),
      name: org.name,
      api_plan: plan,
      api_plan_title: API_PLANS[plan].title,
      api_plan_starts_on: org.plan_starts_on,
      api_plan_ends_on: org.plan_ends_on,
      api_plan_is_trial: org.plan_is_trial === 1,
      includes_design_data: API_PLANS[plan].includesDesignData,
      role_id: role.id,
    };
    return json;
  });
}
