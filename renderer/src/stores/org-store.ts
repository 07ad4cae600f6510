// The org's reference data: its plan, workflows (stages) and roles. Loaded once
// per session and shared by the list, the editor and the filters.
import { z } from 'zod';
import { create } from 'zustand';
import { apiPaths } from '../../../shared/api-paths.ts';
import { apiOk, messageOf } from '../api/api-client.ts';
import { orgJsonSchema, workflowJsonSchema, type OrgJson, type WorkflowJson, type WorkflowStageJson } from '../../../shared/schemas/org.ts';
import { roleJsonSchema, type RoleJson } from '../../../shared/schemas/role.ts';

interface OrgState {
  orgId: number | null;
  org: OrgJson | null;
  workflows: WorkflowJson[];
  roles: RoleJson[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  load(orgId: number): Promise<void>;
}

export const useOrgStore = create<OrgState>((set) => ({
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
        apiOk(z.array(workflowJsonSchema), 'GET', apiPaths.workflows(orgId)),
        apiOk(z.array(roleJsonSchema), 'GET', apiPaths.roles(orgId), { query: { limit: 1000 } }),
      ]);
      set({ org, workflows, roles, status: 'ready' });
    } catch (error) {
      set({ status: 'error', error: messageOf(error) });
    }
  },
}));

export function stageById(workflows: readonly WorkflowJson[], stageId: number | null | undefined): WorkflowStageJson | undefined {
  if (stageId == null) return undefined;
  for (const workflow of workflows) {
    const stage = workflow.stages.find((candidate) => candidate.id === stageId);
    if (stage) return stage;
  }
  return undefined;
}
