// The org's reference data: its plan, workflows (stages) and roles. Loaded once
// per session and shared by the list, the editor and the filters.
import { z } from 'zod';
import { create } from 'zustand';
import { apiPaths } from '../../../shared/api-paths.ts';
import { apiOk, messageOf } from '../api/api-client.ts';
import { orgJsonSchema, type OrgJson } from '../../../shared/schemas/org.ts';
import { workflowJsonSchema, type WorkflowJson, type WorkflowStageJson } from '../../../shared/schemas/workflow.ts';
import { roleJsonSchema, type RoleJson } from '../../../shared/schemas/role.ts';

interface OrgState {
  orgId: number | null;
  org: OrgJson | null;
  workflows: WorkflowJson[];
  roles: RoleJson[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  load(orgId: number): Promise<void>;
  /**
   * Reads the workflows again when a project is at a stage this window does not
   * know (a workflow made or changed elsewhere and pulled by sync): at most once
   * every WORKFLOW_REFRESH_MS, one request at a time.
   */
  refreshWorkflowsFor(stageId: number | null | undefined): void;
}

const WORKFLOW_REFRESH_MS = 10_000;
let lastWorkflowRefresh = 0;

export const useOrgStore = create<OrgState>((set, get) => ({
  orgId: null,
  org: null,
  workflows: [],
  roles: [],
  status: 'idle',
  error: null,
  async load(orgId) {
    set({ orgId, status: 'loading', error: null });
    try {
      const [org, workflows, roles] = await Promise.all([
        apiOk(orgJsonSchema, 'GET', apiPaths.org(orgId)),
        apiOk(z.array(workflowJsonSchema), 'GET', apiPaths.workflows(orgId), { query: { limit: 1000 } }),
        apiOk(z.array(roleJsonSchema), 'GET', apiPaths.roles(orgId), { query: { limit: 1000 } }),
      ]);
      set({ org, workflows, roles, status: 'ready' });
    } catch (error) {
      set({ status: 'error', error: messageOf(error) });
    }
  },
  refreshWorkflowsFor(stageId) {
    const { orgId, status, workflows } = get();
    if (stageId == null || orgId === null || status !== 'ready' || stageById(workflows, stageId)) return;
    const now = Date.now();
    if (now - lastWorkflowRefresh < WORKFLOW_REFRESH_MS) return;
    lastWorkflowRefresh = now;
    void apiOk(z.array(workflowJsonSchema), 'GET', apiPaths.workflows(orgId), { query: { limit: 1000 } })
      .then((fresh) => {
        if (get().orgId === orgId) set({ workflows: fresh });
      })
      .catch(() => undefined); // the next unknown stage asks again; the list keeps working meanwhile
  },
}));

export function stageById(workflows: readonly WorkflowJson[], stageId: number | null | undefined): WorkflowStageJson | undefined {
  if (stageId == null) return undefined;
  for (const workflow of workflows) {
    const stage = workflow.workflow_stages.find((candidate) => candidate.id === stageId);
    if (stage) return stage;
  }
  return undefined;
}

/**
 * What a stage picker offers: the workflows that are not archived, each with its
 * stages that are not archived, in order. The project's current workflow and stage
 * stay listed even when archived, so the picker still shows where it is.
 */
export function pickableWorkflows(workflows: readonly WorkflowJson[], currentStageId?: number | null): Array<{ workflow: WorkflowJson; stages: WorkflowStageJson[] }> {
  return workflows
    .map((workflow) => ({
      workflow,
      stages: workflow.workflow_stages.filter((stage) => !stage.is_archived || stage.id === currentStageId),
    }))
    .filter(({ workflow, stages }) => stages.length > 0 && (!workflow.is_archived || stages.some((stage) => stage.id === currentStageId)));
}
