// Workflows and their stages (service.md 3, hosted-docs-facts.md 3): the stage a
// project is at decides its legacy `stage` milestone. Reading and the record's
// shape; the writes are in workflow-service.ts.
import type { Kysely, Transaction } from 'kysely';
import type { Database, StageRow, WorkflowActionRow, WorkflowRow } from '../store/tables.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { WorkflowJson } from '../../../shared/schemas/workflow.ts';
import { entitySharedWith } from '../sharing/entity-shares.ts';

type Reader = Kysely<Database> | Transaction<Database>;

export interface OrgWorkflows {
  readonly workflows: WorkflowRow[];
  /** Every stage of the org's workflows, each workflow's in its order (`position`, then id). */
  readonly stagesById: Map<number, StageRow>;
  readonly defaultWorkflow: WorkflowRow | undefined;
}

/** The stages of these workflows, each workflow's in its order (ties by id). */
async function loadStagesOf(db: Reader, workflows: readonly WorkflowRow[]): Promise<StageRow[]> {
  if (workflows.length === 0) return [];
  return db
    .selectFrom('workflow_stages')
    .selectAll()
    .where('workflow_id', 'in', workflows.map((workflow) => workflow.id))
    .orderBy('workflow_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
}

export async function loadOrgWorkflows(db: Reader, orgId: number): Promise<OrgWorkflows> {
  const workflows = await db.selectFrom('workflows').selectAll().where('org_id', '=', orgId).orderBy('id').execute();
  const stages = await loadStagesOf(db, workflows);
  return {
    workflows,
    stagesById: new Map(stages.map((stage) => [stage.id, stage])),
    defaultWorkflow: workflows.find((workflow) => workflow.is_default === 1) ?? workflows[0],
  };
}

/** Where a project moved to `workflowId` without a stage starts: its first stage that is not archived. */
export function firstStageOf(orgWorkflows: OrgWorkflows, workflowId: number): StageRow | undefined {
  for (const stage of orgWorkflows.stagesById.values()) if (stage.workflow_id === workflowId && stage.is_archived !== 1) return stage;
  return undefined;
}

/** The actions of the given stages, each stage's in order. */
export async function loadStageActions(db: Reader, stageIds: readonly number[]): Promise<Map<number, WorkflowActionRow[]>> {
  const byStage = new Map<number, WorkflowActionRow[]>();
  if (stageIds.length === 0) return byStage;
  const rows = await db.selectFrom('workflow_actions').selectAll().where('stage_id', 'in', [...stageIds]).orderBy('stage_id').orderBy('position').orderBy('id').execute();
  for (const row of rows) {
    const list = byStage.get(row.stage_id) ?? [];
    list.push(row);
    byStage.set(row.stage_id, list);
  }
  return byStage;
}

export interface WorkflowFilters {
  is_default?: boolean | undefined;
  is_archived?: boolean | undefined;
}

/** One page of the org's workflows, by id, with their stages and actions. */
export async function listWorkflows(
  context: EngineContext,
  db: Reader,
  orgId: number,
  filters: WorkflowFilters,
  page: { limit: number; offset: number },
): Promise<WorkflowJson[]> {
  let query = db.selectFrom('workflows').selectAll().where('org_id', '=', orgId);
  if (filters.is_default !== undefined) query = query.where('is_default', '=', filters.is_default ? 1 : 0);
  if (filters.is_archived !== undefined) query = query.where('is_archived', '=', filters.is_archived ? 1 : 0);
  const workflows = await query.orderBy('id').limit(page.limit).offset(page.offset).execute();
  return serializeWorkflowRows(context, db, workflows);
}

export async function findWorkflow(db: Reader, orgId: number, id: number): Promise<WorkflowRow | undefined> {
  return db.selectFrom('workflows').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

export async function serializeWorkflowRows(context: EngineContext, db: Reader, workflows: readonly WorkflowRow[]): Promise<WorkflowJson[]> {
  if (workflows.length === 0) return [];
  const stages = await loadStagesOf(db, workflows);
  const actions = await loadStageActions(db, stages.map((stage) => stage.id));
  // Actions shared with connected orgs by the bulk route (facts section 11), as org URLs; the rows are one org's.
  const actionIds = [...actions.values()].flat().map((action) => action.id);
  const actionShares = await entitySharedWith(db, workflows[0]!.org_id, 'actions', actionIds);
  return workflows.map((workflow) => ({
    url: absoluteUrl(context, apiPaths.workflow(workflow.org_id, workflow.id)),
    org: absoluteUrl(context, apiPaths.org(workflow.org_id)),
    org_id: workflow.org_id,
    id: workflow.id,
    title: workflow.title,
    description: workflow.description,
    is_default: workflow.is_default === 1,
    is_archived: workflow.is_archived === 1,
    created_date: workflow.created_date,
    modified_date: workflow.modified_date,
    share_with_orgs: [],
    org_shared_time: [],
    workflow_stages: stages
      .filter((stage) => stage.workflow_id === workflow.id)
      .map((stage) => ({
        id: stage.id,
        title: stage.title,
        milestone: stage.milestone,
        order: stage.position,
        is_archived: stage.is_archived === 1,
        actions: (actions.get(stage.id) ?? []).map((action) => ({
          id: action.id,
          title: action.title,
          url: absoluteUrl(context, apiPaths.workflowAction(workflow.org_id, action.id)),
          share_with_orgs: (actionShares.get(action.id) ?? []).map((orgId) => absoluteUrl(context, apiPaths.org(orgId))),
        })),
      })),
  }));
}
