import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { useOrgStore } from '../../stores/org-store.ts';
import { useProjectStore } from '../../stores/project-store.ts';

/** Moves the project through its workflow's stages (workflow.active_stage_id, service.md 3). */
export function StagePicker({ project }: { project: ProjectDetailJson }) {
  const workflows = useOrgStore((state) => state.workflows);
  const workflowId = project.workflow?.workflow_id;
  const workflow = workflows.find((candidate) => candidate.id === workflowId) ?? workflows[0];
  const activeStageId = project.workflow?.active_stage_id ?? project.active_stage_id ?? '';
  if (!workflow) return null;
  return (
    <label className="stage-picker">
      <span>Stage</span>
      <select
        aria-label="Stage"
        value={activeStageId}
        onChange={(event) => {
          const stageId = Number(event.target.value);
          void useProjectStore.getState().save({ workflow: { workflow_id: workflow.id, active_stage_id: stageId }, active_stage_id: stageId });
        }}
      >
        {workflow.stages.map((stage) => (
          <option key={stage.id} value={stage.id}>
            {stage.position + 1}. {stage.title}
          </option>
        ))}
      </select>
    </label>
  );
}
