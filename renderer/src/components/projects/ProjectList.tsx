import './ProjectList.css';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { useNewProjectStore } from '../../stores/new-project-store.ts';
import { useProjectStore } from '../../stores/project-store.ts';
import { useProjectsStore } from '../../stores/projects-store.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { EmptyState } from '../common/EmptyState.tsx';
import { ErrorState } from '../common/ErrorState.tsx';
import { LoadingState } from '../common/LoadingState.tsx';
import { ProjectRow, PROJECT_ROW_HEIGHT } from './ProjectRow.tsx';

/** Only the rows on screen exist in the DOM, so 10,000 projects scroll like 10. */
export function ProjectList({ orgId }: { orgId: number }) {
  const rows = useProjectsStore((state) => state.rows);
  const status = useProjectsStore((state) => state.status);
  const error = useProjectsStore((state) => state.error);
  const highlightedId = useProjectsStore((state) => state.highlightedId);
  const search = useProjectsStore((state) => state.query.search);
  const openProjectId = useProjectStore((state) => state.projectId);
  const unsynced = useSyncStore((state) => state.unsyncedProjectIds);
  const conflicted = useSyncStore((state) => state.conflictProjectIds);
  const scrollRef = useRef<HTMLDivElement>(null);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => PROJECT_ROW_HEIGHT,
    overscan: 8,
  });

  const highlightedIndex = rows.findIndex((row) => row.id === highlightedId);
  useEffect(() => {
    if (highlightedIndex >= 0) virtualizer.scrollToIndex(highlightedIndex, { align: 'auto' });
  }, [highlightedIndex, virtualizer]);

  const open = (id: number) => {
    useNewProjectStore.getState().hide();
    useProjectsStore.getState().highlight(id);
    void useProjectStore.getState().open(orgId, id);
  };

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (rows.length === 0) return;
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 600) / PROJECT_ROW_HEIGHT) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page, Home: -Infinity, End: Infinity };
    if (event.key in moves) {
      event.preventDefault();
      const from = highlightedIndex === -1 ? (moves[event.key]! > 0 ? -1 : rows.length) : highlightedIndex;
      const to = Math.min(rows.length - 1, Math.max(0, from + moves[event.key]!));
      useProjectsStore.getState().highlight(rows[to]!.id);
    } else if (event.key === 'Enter' && highlightedIndex >= 0) {
      event.preventDefault();
      open(rows[highlightedIndex]!.id);
    }
  };

  if (status === 'loading' && rows.length === 0) return <LoadingState label="Loading projects…" />;
  if (status === 'error' && rows.length === 0) return <ErrorState message={error ?? ''} onRetry={() => void useProjectsStore.getState().reload()} />;
  if (rows.length === 0) {
    // The empty list offers what the user most likely wants next: a project for what she searched for, or the first one.
    return (
      <EmptyState title={search ? `No project matches “${search}”` : 'No projects yet'} testId="project-list-empty">
        {search ? <p>Try fewer words, or another stage, or make it now.</p> : <p>Create the first one: a lead needs only an address.</p>}
        <button type="button" className="button button-primary" onClick={() => useNewProjectStore.getState().open(orgId)}>
          New project
        </button>
      </EmptyState>
    );
  }
  return (
    <div
      ref={scrollRef}
      className="project-list"
      role="listbox"
      tabIndex={0}
      aria-label="Projects"
      aria-activedescendant={highlightedId !== null ? `project-row-${highlightedId}` : undefined}
      onKeyDown={onKeyDown}
      data-testid="project-list"
    >
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((item) => {
          const project = rows[item.index]!;
          return (
            <ProjectRow
              key={project.id}
              project={project}
              top={item.start}
              isHighlighted={project.id === highlightedId}
              isOpen={project.id === openProjectId}
              isUnsynced={unsynced.has(project.id)}
              hasConflict={conflicted.has(project.id)}
              onOpen={open}
            />
          );
        })}
      </div>
    </div>
  );
}
