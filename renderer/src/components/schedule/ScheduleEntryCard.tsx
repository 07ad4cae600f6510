import './ScheduleEntryCard.css';
import { useState } from 'react';
import { apiPaths } from '../../../../shared/api-paths.ts';
import { apiDone, apiRequest, describeFailure, messageOf } from '../../api/api-client.ts';
import { fileNameOf, saveText } from '../../save-text.ts';
import { useOrgStore } from '../../stores/org-store.ts';
import { useProjectStore } from '../../stores/project-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { doneText, entryKind, entryTime, teamNames } from './schedule-words.ts';
import type { ScheduleEntry } from './use-schedule.ts';

/**
 * One visit as the person who goes needs it: kind and title, time, the project (a
 * click opens it) and its address, the contact's phone (a tel: link, so a phone or a
 * softphone rings it), who goes, and the Done switch (is_complete; the engine stamps
 * completion_date). `compact`: the week calendar's narrow column.
 */
export function ScheduleEntryCard({ entry, orgId, compact = false }: { entry: ScheduleEntry; orgId: number; compact?: boolean }) {
  const { event, project, contact } = entry;
  const roles = useOrgStore((state) => state.roles);
  const toast = useUiStore((state) => state.toast);
  const [isSaving, setSaving] = useState(false);
  // What the switch was set to, shown while the event is the version it was set on: the
  // engine's answer comes back as a new version (modified_date), and a refusal puts it back.
  const [wish, setWish] = useState<{ isDone: boolean; version: string } | null>(null);
  const isDone = wish !== null && wish.version === event.modified_date ? wish.isDone : event.is_complete;
  const team = teamNames(event, roles);
  const address = event.location_override ? String(event.location_override) : (project?.address ?? '');
  const time = entryTime(event, { withDay: false });
  const label = `${entryKind(event)}: ${event.title}`;

  const setDone = async (shouldBeDone: boolean) => {
    setSaving(true);
    setWish({ isDone: shouldBeDone, version: event.modified_date });
    try {
      // Reopening clears the completion date; completing lets the engine stamp it.
      await apiDone('PATCH', apiPaths.event(orgId, event.id), { body: shouldBeDone ? { is_complete: true } : { is_complete: false, completion_date: null } });
    } catch (error) {
      setWish(null);
      toast(`“${event.title}” was not ${shouldBeDone ? 'marked done' : 'reopened'}: ${messageOf(error)}. Try again.`, 'error');
    } finally {
      setSaving(false);
    }
  };
  // The engine writes the .ics (GET events/<id>/ics/); the page only saves it.
  const downloadCalendarFile = async () => {
    try {
      const response = await apiRequest<string>('GET', apiPaths.eventCalendarFile(orgId, event.id));
      if (response.status >= 300) throw new Error(describeFailure(response));
      saveText(fileNameOf(response.headers['content-disposition'], 'event.ics'), String(response.body), 'text/calendar');
    } catch (error) {
      toast(`“${event.title}” could not be downloaded for a calendar: ${messageOf(error)}`, 'error');
    }
  };
  const openProject = (projectId: number) => {
    useUiStore.getState().show('projects');
    useUiStore.getState().showTab('notes');
    void useProjectStore.getState().open(orgId, projectId);
  };

  return (
    <article className={`schedule-entry${compact ? ' is-compact' : ''}${event.is_complete ? ' is-done' : ''}`} data-testid="schedule-entry" aria-label={label}>
      <div className="schedule-entry-head">
        <span className="schedule-entry-time">{time}</span>
        <span className="schedule-entry-kind">{entryKind(event)}</span>
      </div>
      <strong className="schedule-entry-title">{event.title}</strong>
      {project && (
        <button type="button" className="link-button schedule-entry-project" title={`Open “${project.title}”`} onClick={() => openProject(project.id)}>
          {project.title}
        </button>
      )}
      {address && <span className="schedule-entry-line muted">{address}</span>}
      {contact && (
        <span className="schedule-entry-line">
          {contact.display}
          {contact.phone && (
            <>
              {' · '}
              <a href={`tel:${contact.phone.replace(/[^\d+]/g, '')}`} title={`Call ${contact.display}`}>
                {contact.phone}
              </a>
            </>
          )}
        </span>
      )}
      <span className="schedule-entry-line schedule-entry-team" data-testid="schedule-entry-team">
        <span className="muted">Who goes: </span>
        {team.length > 0 ? team.join(', ') : 'nobody yet'}
      </span>
      <div className="schedule-entry-actions">
        <label className="switch schedule-entry-done">
          <input type="checkbox" role="switch" className="switch" checked={isDone} disabled={isSaving} onChange={(change) => void setDone(change.target.checked)} aria-label={`Done: ${event.title}`} />
          <span>{isDone ? doneText(event) || 'Done' : 'Done'}</span>
        </label>
        <button type="button" className="link-button schedule-entry-ics" title={`Download “${event.title}” as an .ics file for a phone or desktop calendar`} onClick={() => void downloadCalendarFile()}>
          Download .ics
        </button>
      </div>
    </article>
  );
}
