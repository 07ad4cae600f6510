import './ActivityList.css';
import { useEffect, useRef, useState } from 'react';
import { ACTIVITY_ACTION_WORDS, ACTIVITY_KINDS, ACTIVITY_KIND_WORDS, type ActivityEntry, type ActivityKind, actionsOf, headlineOf, stateLineOf } from '../../../../shared/activity.ts';
import { useActivityStore } from '../../stores/activity-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { formatBytes, formatDateTime } from '../../format.ts';
import { EmptyState } from '../common/EmptyState.tsx';
import { ErrorState } from '../common/ErrorState.tsx';
import { LoadingState } from '../common/LoadingState.tsx';

/** How long typing waits before the list is asked again: one query per pause, not per key. */
const SEARCH_PAUSE_MS = 250;

/**
 * The activity log as a list (issue 32): the Activity screen's (every project) and a
 * project's Activity tab (`projectId`). Search and a kind filter on top; each entry
 * says what happened, when, where it is (its progress, why it waits) and its actions.
 */
export function ActivityList({ orgId, projectId = null }: { orgId: number; projectId?: number | null }) {
  const entries = useActivityStore((state) => state.entries);
  const loadState = useActivityStore((state) => state.loadState);
  const error = useActivityStore((state) => state.error);
  const hasMore = useActivityStore((state) => state.hasMore);
  const [search, setSearch] = useState('');
  const [kind, setKind] = useState<ActivityKind | ''>('');

  useEffect(() => {
    const timer = setTimeout(() => void useActivityStore.getState().load(orgId, { search, kinds: kind ? [kind] : [], projectId }), search ? SEARCH_PAUSE_MS : 0);
    return () => clearTimeout(timer);
  }, [orgId, projectId, search, kind]);

  return (
    <div className="activity-list" data-testid="activity-list">
      <div className="activity-filters" role="search">
        <input
          type="search"
          className="search"
          placeholder="Search activity: a file, a project, a field…"
          aria-label="Search activity"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
        <select aria-label="Show" value={kind} onChange={(event) => setKind(event.target.value as ActivityKind | '')} title={kind ? ACTIVITY_KIND_WORDS[kind].filter : 'Everything'}>
          <option value="">Everything</option>
          {ACTIVITY_KINDS.map((choice) => (
            <option key={choice} value={choice}>
              {ACTIVITY_KIND_WORDS[choice].filter}
            </option>
          ))}
        </select>
      </div>
      {loadState === 'loading' && <LoadingState label="Reading the activity log…" />}
      {loadState === 'error' && <ErrorState message={error ?? ''} onRetry={() => void useActivityStore.getState().load(orgId, { search, kinds: kind ? [kind] : [], projectId })} />}
      {loadState === 'ready' && entries.length === 0 && (
        <EmptyState title={search || kind ? 'Nothing matches' : 'Nothing has happened yet'}>
          {search || kind
            ? 'Try other words, or show everything.'
            : 'Files dropped into project folders, uploads and downloads, edits and changes from the server appear here as they happen. They are kept for 90 days.'}
        </EmptyState>
      )}
      {loadState === 'ready' && entries.length > 0 && (
        <ol className="card-list activity-entries">
          {entries.map((entry) => (
            <ActivityRow key={entry.id} entry={entry} isInProject={projectId !== null} />
          ))}
        </ol>
      )}
      {loadState === 'ready' && hasMore && (
        <button type="button" className="button activity-more" onClick={() => void useActivityStore.getState().loadMore()}>
          Show older entries
        </button>
      )}
    </div>
  );
}

/** `isInProject`: shown in the project's own tab, where Open the project would open what is open. */
function ActivityRow({ entry, isInProject }: { entry: ActivityEntry; isInProject: boolean }) {
  const isBusy = useActivityStore((state) => state.busyIds.has(entry.id));
  const isFocused = useUiStore((state) => state.focusedActivityId === entry.id);
  const row = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (isFocused) row.current?.scrollIntoView({ block: 'center' });
  }, [isFocused]);
  const actions = actionsOf(entry).filter((action) => !(isInProject && action === 'open_project'));
  const headline = headlineOf(entry);
  const stateLine = stateLineOf(entry, formatBytes);
  const percent = entry.state === 'running' && entry.progress && entry.progress.total > 0 ? Math.floor((entry.progress.done / entry.progress.total) * 100) : null;
  return (
    <li
      ref={row}
      className={`activity-entry is-${entry.state}${isFocused ? ' is-focused' : ''}`}
      data-testid="activity-entry"
      data-kind={entry.kind}
      data-state={entry.state}
      data-entry-id={entry.id}
    >
      <div className="activity-head">
        <span className="activity-kind">{ACTIVITY_KIND_WORDS[entry.kind].verb}</span>
        <time className="muted small" dateTime={entry.at}>
          {formatDateTime(entry.at)}
        </time>
      </div>
      <p className="activity-headline" title={headline}>
        {entry.subject || headline}
        {entry.fields.length > 0 && <span className="activity-fields"> · {entry.fields.join(', ')}</span>}
      </p>
      {stateLine && (
        <p className={`small activity-state${entry.state === 'failed' ? ' danger' : entry.state === 'waiting' ? ' warning-text' : ' muted'}`} data-testid="activity-state">
          {stateLine}
        </p>
      )}
      {percent !== null && <progress className="activity-progress" max={100} value={percent} aria-label={`${headline}: ${percent}%`} />}
      {actions.length > 0 && (
        <div className="card-actions">
          {actions.map((action, index) => (
            <button key={action} type="button" className={index === 0 ? 'button' : 'link-button'} disabled={isBusy} onClick={() => void useActivityStore.getState().act(entry, action)}>
              {ACTIVITY_ACTION_WORDS[action]}
            </button>
          ))}
        </div>
      )}
    </li>
  );
}
