// The organisation (GET /api/orgs/<org>/, which clients also use to test a token),
// as the API answers it. Its workflows: shared/schemas/workflow.ts.
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
