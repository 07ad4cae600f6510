import './NotesTab.css';
import { z } from 'zod';
import { useEffect, useState } from 'react';
import { apiPaths } from '../../../../shared/api-paths.ts';
import { eventJsonSchema, type EventJson } from '../../../../shared/schemas/event.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { apiDone, apiOk, messageOf } from '../../api/api-client.ts';
import { formatDateTime } from '../../format.ts';
import { useProjectStore } from '../../stores/project-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { EmptyState } from '../common/EmptyState.tsx';
import { ErrorState } from '../common/ErrorState.tsx';
import { LoadingState } from '../common/LoadingState.tsx';
import { FieldInput } from './FieldInput.tsx';
import { inActivityOrder } from '../../schedule/activity.ts';
import { useOrgStore } from '../../stores/org-store.ts';
import { doneText, entryKind, entryTime, teamNames } from '../schedule/schedule-words.ts';

/**
 * The project's notes fields, and its activity: notes people add, events the engine
 * records and the project's schedule (visits, installations) in one list, in time
 * order (activity.ts); a schedule entry shows its time, kind, who goes and whether it is done.
 */
export function NotesTab({ project }: { project: ProjectDetailJson }) {
  const [events, setEvents] = useState<EventJson[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The note being written is a draft of the project: it survives leaving the project.
  const note = (useProjectStore((state) => state.drafts.note) as string | undefined) ?? '';
  const editDraft = useProjectStore((state) => state.editDraft);
  const clearDraft = useProjectStore((state) => state.clearDraft);
  const setNote = (text: string) => (text === '' ? clearDraft('note') : editDraft('note', text, { ok: 'form' }, 'New activity note'));
  const toast = useUiStore((state) => state.toast);
  const roles = useOrgStore((state) => state.roles);
  const eventsPath = apiPaths.events(project.org_id);

  const [loadCount, setLoadCount] = useState(0);
  const load = () => setLoadCount((count) => count + 1);

  // Again whenever the project changes: an edit may have added activity.
  useEffect(() => {
    let isCurrent = true;
    apiOk(z.array(eventJsonSchema), 'GET', eventsPath, { query: { project: project.id, limit: 100 } }).then(
      (rows) => {
        if (!isCurrent) return;
        setEvents(inActivityOrder(rows));
        setError(null);
      },
      (failure: unknown) => isCurrent && setError(messageOf(failure)),
    );
    return () => {
      isCurrent = false;
    };
  }, [eventsPath, project.id, project.modified_date, loadCount]);

  const addNote = async () => {
    try {
      await apiDone('POST', eventsPath, { body: { project: apiPaths.project(project.org_id, project.id), title: note.split('\n')[0]!.slice(0, 120), notes: note, event_type: 'note' } });
      setNote('');
      load();
    } catch (failure) {
      toast(messageOf(failure), 'error');
    }
  };

  return (
    <div className="notes-tab">
      <div className="field-grid">
        <FieldInput field="notes" project={project} />
        <FieldInput field="site_notes" project={project} />
      </div>
      {/* "History", not "Activity": the Activity tab beside it is this computer's sync timeline (docs/activity.md). */}
      <h2>History</h2>
      <form
        className="note-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (note.trim()) void addNote();
        }}
      >
        <textarea aria-label="New note" placeholder="Add a note to the project's history…" rows={2} value={note} onChange={(event) => setNote(event.target.value)} />
        <button type="submit" className="button button-primary" disabled={!note.trim()}>
          Add note
        </button>
      </form>
      {error && <ErrorState message={error} onRetry={load} />}
      {!error && events === null && <LoadingState />}
      {events && events.length === 0 && <EmptyState title="No history yet" />}
      {events && events.length > 0 && (
        <ol className="timeline">
          {events.map((event) =>
            event.start === null ? (
              <li key={event.id}>
                <span className="timeline-date">{formatDateTime(event.created_date)}</span>
                <strong>{event.title}</strong>
                {event.notes && event.notes !== event.title && <p>{event.notes}</p>}
              </li>
            ) : (
              <li key={event.id} className={`timeline-entry${event.is_complete ? ' is-done' : ''}`} data-testid="activity-entry">
                <span className="timeline-date">
                  {entryTime(event, { withDay: true })} · {entryKind(event)}
                </span>
                <strong>{event.title}</strong>
                <span className="timeline-who">{teamNames(event, roles).join(', ') || 'Nobody assigned'}</span>
                <span className={`timeline-status${event.is_complete ? ' is-done' : ''}`}>{event.is_complete ? doneText(event) : 'Not done yet'}</span>
                {event.notes && event.notes !== event.title && <p>{event.notes}</p>}
              </li>
            ),
          )}
        </ol>
      )}
    </div>
  );
}
