import './StagePicker.css';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { pickableWorkflows, useOrgStore } from '../../stores/org-store.ts';
import { useProjectStore } from '../../stores/project-store.ts';

/**
 * Moves the project to a stage of any of the org's workflows (workflow.workflow_id
 * and workflow.active_stage_id, service.md 3), grouped by workflow; archived
 * workflows and stages are not offered.
 */
export function StagePicker({ project }: { project: ProjectDetailJson }) {
  const workflows = useOrgStore((state) => state.workflows);
  const activeStageId = project.workflow?.active_stage_id ?? project.active_stage_id ?? null;
  const groups = pickableWorkflows(workflows, activeStageId);
  if (groups.length === 0) return null;
  const current = groups.flatMap(({ workflow, stages }) => stages.map((stage) => ({ workflow, stage }))).find(({ stage }) => stage.id === activeStageId);
  const title = current ? `${current.workflow.title}: ${current.stage.title}` : undefined;
  return (
    <label className="stage-picker" title={title}>
      <span>
        Stage
        {/* With several workflows to choose from, the chosen stage's workflow is named beside it. */}
        {groups.length > 1 && current ? <span className="stage-picker-workflow"> · {current.workflow.title}</span> : null}
      </span>
      <select
        aria-label="Stage"
        title={title}
        value={activeStageId ?? ''}
        onChange={(event) => {
          const stageId = Number(event.target.value);
          const workflow = groups.find(({ stages }) => stages.some((stage) => stage.id === stageId))?.workflow;
          if (!workflow) return;
          void useProjectStore.getState().save({ workflow: { workflow_id: workflow.id, active_stage_id: stageId }, active_stage_id: stageId });
        }}
      >
        {groups.map(({ workflow, stages }) => (
          <optgroup key={workflow.id} label={workflow.title}>
            {stages.map((stage, index) => (
              <option key={stage.id} value={stage.id}>
                {index + 1}. {stage.title}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </label>
  );
}
