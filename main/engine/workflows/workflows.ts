// Workflows and their stages (service.md 3): the stage a project is at decides its
// legacy `stage` milestone.
import type { Kysely } from 'kysely';
import type { Database, StageRow, WorkflowRow } from '../store/tables.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { WorkflowJson } from '../../../shared/schemas/org.ts';

export interface OrgWorkflows {
  readonly workflows: WorkflowRow[];
  readonly stagesById: Map<number, StageRow>;
  readonly defaultWorkflow: WorkflowRow | undefined;
}

export async function loadOrgWorkflows(db: Kysely<Database>, orgId: number): Promise<OrgWorkflows> {
  const workflows = await db.selectFrom('workflows').selectAll().where('org_id', '=', orgId).orderBy('id').execute();
  const stages = workflows.length
    ? await db
        .selectFrom('workflow_stages')
        .selectAll()
        .where('workflow_id', 'in', workflows.map((workflow) => workflow.id))
        .orderBy('workflow_id')
        .orderBy('position')
        .execute()
    : [];
  return {
    workflows,
    stagesById: new Map(stages.map((stage) => [stage.id, stage])),
    defaultWorkflow: workflows.find((workflow) => workflow.is_default === 1) ?? workflows[0],
  };
}

export function firstStageOf(orgWorkflows: OrgWorkflows, workflowId: number): StageRow | undefined {
  for (const stage of orgWorkflows.stagesById.values()) if (stage.workflow_id === workflowId) return stage;
  return undefined;
}

export function serializeWorkflows(context: EngineContext, orgId: number, orgWorkflows: OrgWorkflows): WorkflowJson[] {
  const stages = [...orgWorkflows.stagesById.values()];
  return orgWorkflows.workflows.map((workflow) => ({
    id: workflow.id,
    url: `${absoluteUrl(context, apiPaths.workflows(orgId))}${workflow.id}/`,
    org_id: workflow.org_id,
    title: workflow.title,
    is_default: workflow.is_default === 1,
    stages: stages
      .filter((stage) => stage.workflow_id === workflow.id)
      .map((stage) => ({ id: stage.id, title: stage.title, milestone: stage.milestone, position: stage.position })),
  }));
}
