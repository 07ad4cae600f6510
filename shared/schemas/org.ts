// The organisation (GET /api/orgs/<org>/, which clients also use to test a token)
// and its workflows, as the API answers them.
import { z } from 'zod';

export const orgJsonSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  name: z.string(),
  api_plan: z.string(),
  api_plan_title: z.string(),
  api_plan_starts_on: z.string().nullable(),
  api_plan_ends_on: z.string().nullable(),
  api_plan_is_trial: z.boolean(),
  includes_design_data: z.boolean(),
  role_id: z.number().int().describe("the caller's role in the organisation"),
});
export type OrgJson = z.infer<typeof orgJsonSchema>;

export const workflowStageJsonSchema = z.object({
  id: z.number().int(),
  title: z.string(),
  milestone: z.number().int(),
  position: z.number().int(),
});
export type WorkflowStageJson = z.infer<typeof workflowStageJsonSchema>;

export const workflowJsonSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  org_id: z.number().int(),
  title: z.string(),
  is_default: z.boolean(),
  stages: z.array(workflowStageJsonSchema),
});
export type WorkflowJson = z.infer<typeof workflowJsonSchema>;
