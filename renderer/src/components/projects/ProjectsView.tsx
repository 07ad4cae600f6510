import { useEffect } from 'react';
import { useConnectionsStore } from '../../stores/connections-store.ts';
import { useOrgStore } from '../../stores/org-store.ts';
import { useProjectStore } from '../../stores/project-store.ts';
import { useProjectsStore } from '../../stores/projects-store.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { EmptyState } from '../common/EmptyState.tsx';
import { ProjectPanel } from '../project/ProjectPanel.tsx';
import { ProjectList } from './ProjectList.tsx';
import { ProjectListToolbar } from './ProjectListToolbar.tsx';

export function ProjectsView({ orgId }: { orgId: number }) {
  const openProjectId = useProjectStore((state) => state.projectId);
  useEffect(() => {
    useProjectsStore.getState().start(orgId);
    void useOrgStore.getState().load(orgId);
    void useSyncStore.getState().load(orgId);
    // Partner names for the "Shared with" markers (once per org; Settings and sharing load them again).
    void useConnectionsStore.getState().ensureLoaded(orgId);
  }, [orgId]);

  return (
    <div className="projects-view">
      <section className="list-pane" aria-label="Projects">
        <ProjectListToolbar />
        <ProjectList orgId={orgId} />
      </section>
      <section className="detail-pane" aria-label="Project">
        {openProjectId === null ? (
          <EmptyState title="No project open">
            Pick a project from the list. Use <kbd>/</kbd> to search, <kbd>↑</kbd> <kbd>↓</kbd> to move and <kbd>Enter</kbd> to open.
          </EmptyState>
        ) : (
          <ProjectPanel />
        )}
      </section>
    </div>
  );
}
