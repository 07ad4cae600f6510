import './WeekCalendar.css';
import { useMemo, useState } from 'react';
import { addDays, dayKey, isSameDay, startOfWeek, weekDays } from '../../schedule/schedule-days.ts';
import { ErrorState } from '../common/ErrorState.tsx';
import { LoadingState } from '../common/LoadingState.tsx';
import { dayTitle } from './schedule-words.ts';
import { ScheduleEntryCard } from './ScheduleEntryCard.tsx';
import { useSchedule } from './use-schedule.ts';

/** Seven days from Monday, each with its entries in start order; the previous and next weeks a click away. */
export function WeekCalendar({ orgId, today, initialWeek }: { orgId: number; today: Date; initialWeek: Date }) {
  const [weekStart, setWeekStart] = useState(initialWeek);
  const days = useMemo(() => weekDays(weekStart), [weekStart]);
  const weekEnd = useMemo(() => addDays(weekStart, 7), [weekStart]);
  const { entries, error, reload } = useSchedule(orgId, weekStart, weekEnd);
  const isThisWeek = isSameDay(weekStart, startOfWeek(today));
  const range = `${dayTitle(days[0]!)} – ${dayTitle(days[6]!)}`;

  return (
    <div className="week-calendar">
      <div className="week-nav">
        <button type="button" className="button" onClick={() => setWeekStart(addDays(weekStart, -7))} aria-label="Previous week">
          ‹ Previous
        </button>
        <button type="button" className="button" onClick={() => setWeekStart(startOfWeek(today))} disabled={isThisWeek}>
          This week
        </button>
        <button type="button" className="button" onClick={() => setWeekStart(addDays(weekStart, 7))} aria-label="Next week">
          Next ›
        </button>
        <strong className="week-range" data-testid="week-range">
          {range}
        </strong>
      </div>
      {error && <ErrorState message={`The week could not be read: ${error}`} onRetry={reload} />}
      {!error && entries === null && <LoadingState label="Loading the week…" />}
      {!error && entries !== null && (
        <>
          {entries.length === 0 && (
            <p className="muted week-empty" role="status">
              Nothing booked this week. Open a project and choose Book visit to add a site visit or an installation.
            </p>
          )}
          <ol className="week-days" aria-label={`Week of ${range}`}>
            {days.map((day) => {
              const ofDay = entries.filter((entry) => entry.event.start !== null && isSameDay(new Date(entry.event.start), day));
              return (
                <li key={day.getTime()} className={`week-day${isSameDay(day, today) ? ' is-today' : ''}`} data-testid="week-day" data-day={dayKey(day)} aria-label={dayTitle(day)}>
                  <h3 className="week-day-title">{dayTitle(day)}</h3>
                  {ofDay.length === 0 ? (
                    <span className="muted small week-day-free">Free</span>
                  ) : (
                    ofDay.map((entry) => <ScheduleEntryCard key={entry.event.id} entry={entry} orgId={orgId} compact />)
                  )}
                </li>
              );
            })}
          </ol>
        </>
      )}
    </div>
  );
}
