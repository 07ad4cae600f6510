// The organisation (GET /api/orgs/<org>/, which clients also use to test a token),
// as the API answers it. Its workflows: shared/schemas/workflow.ts.
import { z } from 'zod';

export const orgJsonSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  name: z.string(),
  projects: z.string().describe('URL of the organisation’s project list (hosted docs: Orgs)'),
  api_plan: z.string(),
  api_plan_title: z.string(),
  api_plan_starts_on: z.string().nullable(),
  api_plan_ends_on: z.string().nullable(),
  api_plan_is_trial: z.boolean(),
  includes_design_data: z.boolean(),
  role_id: z.number().int().describe("the caller's role in the organisation"),
});
export type OrgJson = z.infer<typeof orgJsonSchema>;

/** The longest organisation name a PUT may set. */
export const ORG_NAME_MAX_LENGTH = 200;

/**
 * PUT /api/orgs/<org>/ (hosted docs: Orgs): `name` is the field an org's admin may
 * change here. The rest of the record (id, url, projects, the API plan, role_id)
 * is read-only: sent back unchanged or not, it is ignored, as other writes ignore
 * read-only and unknown keys (compatibility.md). The plan is set by `solardesk admin`.
 */
export const orgWriteSchema = z.object({
  name: z
    .string({
      error: (issue) => (issue.input === undefined ? 'This field is required.' : issue.input === null ? 'This field may not be null.' : 'Not a valid string.'),
    })
    .transform((name) => name.trim())
    .refine((name) => name !== '', 'This field may not be blank.')
    .refine((name) => name.length <= ORG_NAME_MAX_LENGTH, `Ensure this field has no more than ${ORG_NAME_MAX_LENGTH} characters.`)
    .refine((name) => !name.includes('\u0000'), 'Null characters are not allowed.'),
});
export type OrgWrite = z.infer<typeof orgWriteSchema>;
