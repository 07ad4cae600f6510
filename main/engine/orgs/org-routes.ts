// GET /api/orgs/<org>/ (clients use it to test a token) and the org's workflows.
import type { TypedApp } from '../http/app.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { API_PLANS } from '../../../shared/plans.ts';
import { loadOrgWorkflows, serializeWorkflows } from '../workflows/workflows.ts';
import { orgJsonSchema, workflowJsonSchema, type OrgJson } from '../../../shared/schemas/org.ts';
import { z } from 'zod';

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

  app.get('/workflows/', { schema: { tags: ['workflows'], summary: 'List workflows and their stages', response: { 200: z.array(workflowJsonSchema) } } }, async (request) => {
    const { org } = actorOf(request);
    return serializeWorkflows(context, org.id, await loadOrgWorkflows(context.db, org.id));
  });
}
