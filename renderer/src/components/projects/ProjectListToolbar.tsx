import './ProjectListToolbar.css';
import { useEffect, useRef } from 'react';
import { MILESTONES } from '../../../../shared/project-fields.ts';
import { useNewProjectStore } from '../../stores/new-project-store.ts';
import { pickableWorkflows, useOrgStore } from '../../stores/org-store.ts';
import { PROJECT_ORDERINGS, type StageFilter, useProjectsStore } from '../../stores/projects-store.ts';

/** What the New project shortcut is called on this computer. */
export const NEW_PROJECT_SHORTCUT = /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘N' : 'Ctrl+N';

export function ProjectListToolbar({ orgId }: { orgId: number }) {
  const query = useProjectsStore((state) => state.query);
  const rowCount = useProjectsStore((state) => state.rows.length);
  const isComplete = useProjectsStore((state) => state.isComplete);
  const { setSearch, setStageFilter, setOrdering } = useProjectsStore.getState();
  const workflows = useOrgStore((state) => state.workflows);
  const searchRef = useRef<HTMLInputElement>(null);

  // "/" anywhere outside a text field jumps to search, as in most list apps.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      const isTyping = target?.closest('input, textarea, select, [contenteditable="true"]');
      if (event.key === '/' && !isTyping) {
        event.preventDefault();
        searchRef.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div className="list-toolbar">
      <div className="toolbar-row">
        <button type="button" className="button button-primary new-project-button" onClick={() => useNewProjectStore.getState().open(orgId)} title={`New project (${NEW_PROJECT_SHORTCUT})`}>
          New project
        </button>
      </div>
      <input
        ref={searchRef}
        type="search"
        className="search"
        // Short enough for the list's 240px beside an open project at 800x600; the tooltip says what it searches.
        placeholder="Search projects  ( / )"
        aria-label="Search projects"
        title="Search title, address, identifier, contacts ( / )"
        value={query.search}
        onChange={(event) => setSearch(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') setSearch('');
          if (event.key === 'ArrowDown') {
            event.preventDefault();
            // Into the list with a row highlighted, so the next Enter opens it (/, type, ↓, Enter).
            useProjectsStore.getState().highlightFirstUnlessShown();
            document.querySelector<HTMLElement>('[data-testid="project-list"]')?.focus();
          }
        }}
      />
      <div className="toolbar-row">
        <select aria-label="Filter by stage" value={query.stageFilter} onChange={(event) => setStageFilter(event.target.value as StageFilter)}>
          <option value="">All stages</option>
          <optgroup label="Milestones">
            {MILESTONES.map((milestone) => (
              <option key={milestone.id} value={`milestone:${milestone.id}`}>
                {milestone.title}
              </option>
            ))}
          </optgroup>
          {pickableWorkflows(workflows).map(({ workflow, stages }) => (
            <optgroup key={workflow.id} label={workflow.title}>
              {stages.map((stage) => (
                <option key={stage.id} value={`stage:${stage.id}`}>
                  {stage.title}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
        <select aria-label="Sort projects" value={query.ordering} onChange={(event) => setOrdering(event.target.value)}>
          {PROJECT_ORDERINGS.map((ordering) => (
            <option key={ordering.value} value={ordering.value}>
              {ordering.label}
            </option>
          ))}
        </select>
        <span className="list-count" data-testid="project-count">
          {rowCount.toLocaleString()}
          {isComplete ? '' : '+'} {rowCount === 1 && isComplete ? 'project' : 'projects'}
        </span>
      </div>
    </div>
  );
}
