// Workflows and their stages and actions (hosted-docs-facts.md 3, service.md 3), as
// the API answers them and as a POST or PUT sends them. The engine answers with
// these schemas, the sync agent and the renderer read with them.
import { z } from 'zod';

/** The project `stage` scale a workflow stage belongs to (service.md 3). */
export const MILESTONES = [
  { value: 0, title: 'Presale' },
  { value: 1, title: 'Lock Pricing' },
  { value: 2, title: 'Sold' },
  { value: 3, title: 'Installed' },
  { value: 4, title: 'Others' },
] as const;

export const workflowActionJsonSchema = z.object({
  id: z.number().int(),
  title: z.string(),
  url: z.string(),
  share_with_orgs: z.array(z.string()),
});
export type WorkflowActionJson = z.infer<typeof workflowActionJsonSchema>;

export const workflowStageJsonSchema = z.object({
  id: z.number().int(),
  title: z.string(),
  milestone: z.number().int().min(0).max(4).describe('the project `stage` (milestone 0..4) of a project at this stage'),
  order: z.number().int(),
  is_archived: z.boolean(),
  actions: z.array(workflowActionJsonSchema),
});
export type WorkflowStageJson = z.infer<typeof workflowStageJsonSchema>;

export const workflowJsonSchema = z.object({
  url: z.string(),
  org: z.string(),
  org_id: z.number().int(),
  id: z.number().int(),
  title: z.string(),
  description: z.string(),
  is_default: z.boolean(),
  is_archived: z.boolean(),
  created_date: z.string(),
  modified_date: z.string(),
  share_with_orgs: z.array(z.string()),
  org_shared_time: z.array(z.string()),
  workflow_stages: z.array(workflowStageJsonSchema).describe('ordered by `order`, then id'),
});
export type WorkflowJson = z.infer<typeof workflowJsonSchema>;

const title = (what: string) => z.string({ error: `A ${what} needs a title.` }).trim().min(1, `A ${what} needs a title.`).max(200);
const booleanField = z.boolean({ error: 'Must be true or false.' });

/** POST: the new workflow comes with the starter stages (docs/http-api.md "Workflows"). */
export const workflowCreateSchema = z.object({
  title: title('workflow'),
  description: z.string().max(2000).optional(),
  is_default: booleanField.optional(),
});
export type WorkflowCreate = z.infer<typeof workflowCreateSchema>;

/** An existing action by its id, or a new one: `newAction-N` (N: the number of actions the stage has). */
export const NEW_ACTION_ID = /^newAction-\d{1,6}$/;
/** A new stage: no id, or `newStage-N` (N: the number of stages the workflow has). */
export const NEW_STAGE_ID = /^newStage-\d{1,6}$/;

const actionWriteSchema = z.object({
  id: z.union([z.number().int().positive(), z.string().regex(NEW_ACTION_ID, 'A new action\'s id is "newAction-N" (N = the number of actions its stage has).')]),
  title: title('action'),
});

const stageWriteSchema = z.object({
  id: z
    .union([z.number().int().positive(), z.string().regex(NEW_STAGE_ID, 'A new stage has no id, or the id "newStage-N" (N = the number of stages).')])
    .optional(),
  title: title('stage'),
  milestone: z.number({ error: 'A stage needs its milestone: 0 Presale, 1 Lock Pricing, 2 Sold, 3 Installed or 4 Others.' }).int().min(0).max(4),
  order: z.number().int().min(0).max(1_000_000).optional(),
  is_archived: booleanField.optional(),
  actions: z.array(actionWriteSchema).max(200).optional(),
});
export type WorkflowStageWrite = z.infer<typeof stageWriteSchema>;

/** PUT: the whole workflow. Stages and actions not sent are removed; fields not sent keep their values. */
export const workflowReplaceSchema = z.object({
  title: title('workflow'),
  description: z.string().max(2000).optional(),
  is_default: booleanField.optional(),
  is_archived: booleanField.optional(),
  workflow_stages: z
    .array(stageWriteSchema, { error: 'Send workflow_stages: every stage to keep (a PUT replaces the whole workflow).' })
    .min(1, 'A workflow needs at least one stage.')
    .max(100),
});
export type WorkflowReplace = z.infer<typeof workflowReplaceSchema>;

/** `true`/`false` (also `1`/`0`, any case) of the list's filters; anything else is a 400. */
export const booleanFilterSchema = z
  .string()
  .optional()
  .transform((text, context) => {
    if (text === undefined || text === '') return undefined;
    const lower = text.toLowerCase();
    if (lower === 'true' || lower === '1') return true;
    if (lower === 'false' || lower === '0') return false;
    context.addIssue({ code: 'custom', message: `Must be true or false, not "${text.slice(0, 40)}".` });
    return z.NEVER;
  });

export const workflowListQuerySchema = {
  is_default: booleanFilterSchema,
  is_archived: booleanFilterSchema,
};
