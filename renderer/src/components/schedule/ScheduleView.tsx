import './ScheduleView.css';
import { useEffect, useMemo, useState } from 'react';
import { useOrgStore } from '../../stores/org-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { AGENDA_DAYS, AGENDA_GROUPS, addDays, agendaGroupOf, startOfDay, startOfWeek } from '../../schedule/schedule-days.ts';
import { EmptyState } from '../common/EmptyState.tsx';
import { ErrorState } from '../common/ErrorState.tsx';
import { LoadingState } from '../common/LoadingState.tsx';
import { dayTitle } from './schedule-words.ts';
import { ScheduleEntryCard } from './ScheduleEntryCard.tsx';
import { SCHEDULE_LIMIT, useSchedule } from './use-schedule.ts';
import { WeekCalendar } from './WeekCalendar.tsx';

type ScheduleMode = 'agenda' | 'week';

/** What to do when there is nothing to show: visits are booked from a project. */
function BookFromProjectHint() {
  return (
    <>
      Open a project and choose <strong>Book visit</strong> to add a site visit or an installation.{' '}
      <button type="button" className="link-button" onClick={() => useUiStore.getState().show('projects')}>
        Go to projects
      </button>
    </>
  );
}

/**
 * Who goes where: the agenda (Today, This week, Later: the next two months) and a
 * week calendar with the previous and next weeks. Only the local engine is asked, so
 * it works offline; what sync brings shows as it comes.
 */
export function ScheduleView({ orgId }: { orgId: number }) {
  const [mode, setMode] = useState<ScheduleMode>('agenda');
  // "Today" is the day the screen was opened on; coming back to the screen reads it again.
  const [today] = useState(() => startOfDay(new Date()));
  useEffect(() => {
    if (useOrgStore.getState().status === 'idle') void useOrgStore.getState().load(orgId);
  }, [orgId]);

  return (
    <div className="schedule-view">
      <div className="schedule-head">
        <h2>Schedule</h2>
        <div className="segmented" role="group" aria-label="Show the schedule as">
          {(['agenda', 'week'] as const).map((choice) => (
            <button key={choice} type="button" className={mode === choice ? 'is-active' : ''} aria-pressed={mode === choice} onClick={() => setMode(choice)}>
              {choice === 'agenda' ? 'Agenda' : 'Week'}
            </button>
          ))}
        </div>
      </div>
      {mode === 'agenda' ? <Agenda orgId={orgId} today={today} /> : <WeekCalendar orgId={orgId} today={today} initialWeek={startOfWeek(today)} />}
    </div>
  );
}

function Agenda({ orgId, today }: { orgId: number; today: Date }) {
  const until = useMemo(() => addDays(today, AGENDA_DAYS), [today]);
  const { entries, error, reload } = useSchedule(orgId, today, until);
  if (error) return <ErrorState message={`The schedule could not be read: ${error}`} onRetry={reload} />;
  if (entries === null) return <LoadingState label="Loading the schedule…" />;
  if (entries.length === 0) {
    return (
      <EmptyState title="Nothing booked in the next two months" testId="schedule-empty">
        <BookFromProjectHint />
      </EmptyState>
    );
  }
  const now = new Date();
  return (
    <div className="schedule-agenda" data-testid="schedule-agenda">
      {entries.length === SCHEDULE_LIMIT && <p className="field-hint">The first {SCHEDULE_LIMIT} entries are shown: the week view shows any week in full.</p>}
      {AGENDA_GROUPS.map(({ group, title, emptyText }) => {
        const inGroup = entries.filter((entry) => entry.event.start !== null && agendaGroupOf(new Date(entry.event.start), now) === group);
        return (
          <section key={group} className="schedule-group" aria-label={title} data-testid={`agenda-${group}`}>
            <h3>
              {title} {group === 'today' && <span className="muted small">{dayTitle(today)}</span>}
            </h3>
            {inGroup.length === 0 ? (
              <p className="muted small">{emptyText}</p>
            ) : (
              <ol className="schedule-list">
                {inGroup.map((entry, index) => {
                  const day = dayTitle(new Date(entry.event.start!));
                  const isFirstOfDay = group !== 'today' && (index === 0 || dayTitle(new Date(inGroup[index - 1]!.event.start!)) !== day);
                  return (
                    <li key={entry.event.id}>
                      {isFirstOfDay && <h4 className="schedule-day">{day}</h4>}
                      <ScheduleEntryCard entry={entry} orgId={orgId} />
                    </li>
                  );
                })}
              </ol>
            )}
          </section>
        );
      })}
    </div>
  );
}
