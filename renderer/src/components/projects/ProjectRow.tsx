import './ProjectRow.css';
import { memo, useEffect } from 'react';
import type { ProjectStudioJson } from '../../../../shared/schemas/project.ts';
import { stageById, useOrgStore } from '../../stores/org-store.ts';
import { formatDate } from '../../format.ts';
import { Badge } from '../common/Badge.tsx';
import { useSharingText } from '../project/SharingMarker.tsx';

export const PROJECT_ROW_HEIGHT = 76;

interface ProjectRowProps {
  project: ProjectStudioJson;
  top: number;
  isHighlighted: boolean;
  isOpen: boolean;
  isUnsynced: boolean;
  hasConflict: boolean;
  onOpen: (id: number) => void;
}

export const ProjectRow = memo(function ProjectRow({ project, top, isHighlighted, isOpen, isUnsynced, hasConflict, onOpen }: ProjectRowProps) {
  const stageId = project.workflow?.active_stage_id ?? project.active_stage_id;
  const stage = useOrgStore((state) => stageById(state.workflows, stageId));
  useEffect(() => {
    if (!stage) useOrgStore.getState().refreshWorkflowsFor(stageId);
  }, [stage, stageId]);
  const contacts = project.contacts_data.map((contact) => contact.display).join(', ');
  const title = project.title || project.address || `Project ${project.id}`;
  const sub = [[project.locality, project.state].filter(Boolean).join(', '), contacts].filter(Boolean).join(' · ');
  // "Shared with <partners>" / "Shared by <owner>" leads the second line, which the title of the row keeps whole.
  const sharing = useSharingText(project);
  return (
    <div
      id={`project-row-${project.id}`}
      role="option"
      aria-selected={isHighlighted}
      className={`project-row${isHighlighted ? ' is-highlighted' : ''}${isOpen ? ' is-open' : ''}`}
      style={{ transform: `translateY(${top}px)`, height: PROJECT_ROW_HEIGHT }}
      onClick={() => onOpen(project.id)}
      data-testid="project-row"
    >
      {/* Three lines, each the row's whole width (issue 28: beside a column of badges the title was cut to 14 characters at 800 wide). Cut in a narrow list: the tooltip has it whole. */}
      <span className="row-title" title={title}>
        {title}
      </span>
      <span className="row-sub" title={[sharing?.text, sub].filter(Boolean).join(' · ')}>
        {sharing && (
          <span className={`row-sharing${sharing.isPartners ? ' is-partners' : ''}`} data-testid="sharing-marker" title={sharing.text}>
            {sharing.text}
          </span>
        )}
        {sub}
      </span>
      <div className="row-meta">
        <span className="row-badges">
          {hasConflict && (
            <Badge tone="danger" title="A field was changed here and on the remote">
              Conflict
            </Badge>
          )}
          {isUnsynced && !hasConflict && (
            <Badge tone="warning" title="Changed here, not yet on the remote">
              Unsynced
            </Badge>
          )}
          {stage && <Badge tone="info">{stage.title}</Badge>}
        </span>
        <span className="row-date" title={[project.identifier, `changed ${formatDate(project.modified_date)}`].filter(Boolean).join(' · ')}>
          {project.identifier && <span className="row-identifier">{shortIdentifier(project.identifier)} · </span>}
          {formatDate(project.modified_date)}
        </span>
      </div>
    </div>
  );
});

/**
 * A project made without an identifier gets a generated UUID (the hosted service's
 * behaviour): in the row its first 8 characters say enough and leave the title room;
 * the whole identifier is in the row's title and the header.
 */
const GENERATED_IDENTIFIER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function shortIdentifier(identifier: string): string {
  return GENERATED_IDENTIFIER.test(identifier) ? `${identifier.slice(0, 8)}…` : identifier;
}
