import './ProjectsView.css';
import { useEffect } from 'react';
import { useConnectionsStore } from '../../stores/connections-store.ts';
import { useNewProjectStore } from '../../stores/new-project-store.ts';
import { useOrgStore } from '../../stores/org-store.ts';
import { useProjectStore } from '../../stores/project-store.ts';
import { useProjectsStore } from '../../stores/projects-store.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { EmptyState } from '../common/EmptyState.tsx';
import { ProjectPanel } from '../project/ProjectPanel.tsx';
import { ProjectList } from './ProjectList.tsx';
import { NEW_PROJECT_SHORTCUT, ProjectListToolbar } from './ProjectListToolbar.tsx';
import { NewProjectForm } from './NewProjectForm.tsx';

export function ProjectsView({ orgId }: { orgId: number }) {
  const openProjectId = useProjectStore((state) => state.projectId);
  const isCreating = useNewProjectStore((state) => state.isOpen);
  useEffect(() => {
    useProjectsStore.getState().start(orgId);
    void useOrgStore.getState().load(orgId);
    void useSyncStore.getState().load(orgId);
    // Partner names for the "Shared with" markers (once per org; Settings and sharing load them again).
    void useConnectionsStore.getState().ensureLoaded(orgId);
  }, [orgId]);

  // Ctrl+N (Cmd+N on a Mac) starts a new project from anywhere in the projects view, even from a text box.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() === 'n' && (event.ctrlKey || event.metaKey) && !event.shiftKey && !event.altKey) {
        event.preventDefault();
        useNewProjectStore.getState().open(orgId);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [orgId]);

  return (
    <div className={`projects-view${openProjectId === null && !isCreating ? ' has-nothing-open' : ''}`}>
      <section className="list-pane" aria-label="Projects">
        <ProjectListToolbar orgId={orgId} />
        <ProjectList orgId={orgId} />
      </section>
      <section className="detail-pane" aria-label="Project">
        {isCreating ? (
          <NewProjectForm orgId={orgId} />
        ) : openProjectId === null ? (
          <EmptyState title="No project open">
            Pick a project from the list. Use <kbd>/</kbd> to search, <kbd>↑</kbd> <kbd>↓</kbd> to move and <kbd>Enter</kbd> to open, or{' '}
            <kbd>{NEW_PROJECT_SHORTCUT}</kbd> for a new one.
          </EmptyState>
        ) : (
          <ProjectPanel />
        )}
      </section>
    </div>
  );
}
