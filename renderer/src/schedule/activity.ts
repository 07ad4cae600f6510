// A project's activity: its notes, the engine's own events and its schedule entries
// in one list. A schedule entry stands at the time it happens (its start), anything
// else at the time it was written; the latest first, so what is coming next and what
// was just noted are at the top.

interface ActivityEvent {
  id: number;
  start: string | null;
  created_date: string;
}

/** When an event stands in the activity: a schedule entry's start, else when it was made. */
export function activityTime(event: ActivityEvent): string {
  return event.start ?? event.created_date;
}

/** The events, latest first; events of the same instant, the newest record first. */
export function inActivityOrder<Event extends ActivityEvent>(events: readonly Event[]): Event[] {
  return [...events].sort((first, second) => {
    const byTime = Date.parse(activityTime(second)) - Date.parse(activityTime(first));
    return byTime !== 0 ? byTime : second.id - first.id;
  });
}
