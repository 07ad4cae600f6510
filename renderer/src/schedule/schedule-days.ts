// The schedule's days as the person at this computer lives them: the agenda's
// groups and the week calendar are in local time (an installer's "tomorrow at 9"),
// while the API keeps UTC instants (shared/field-rules.ts parseDateTime). Pure
// functions of a `now`, so they are tested without a clock.

export type AgendaGroup = 'today' | 'week' | 'later';

export const AGENDA_GROUPS: readonly { group: AgendaGroup; title: string; emptyText: string }[] = [
  { group: 'today', title: 'Today', emptyText: 'Nothing booked for today.' },
  { group: 'week', title: 'This week', emptyText: 'Nothing booked for the next six days.' },
  { group: 'later', title: 'Later', emptyText: 'Nothing booked further ahead.' },
];

/** How far ahead the agenda looks: its "Later" ends here, so one request fetches it. */
export const AGENDA_DAYS = 60;

/** Local midnight of the day of `date`. */
export function startOfDay(date: Date): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate());
}

/** The same local time `days` later (a day with a clock change is still one day). */
export function addDays(date: Date, days: number): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days, date.getHours(), date.getMinutes());
}

/** Local midnight of the Monday of the week of `date`. */
export function startOfWeek(date: Date): Date {
  const day = startOfDay(date);
  return addDays(day, -((day.getDay() + 6) % 7));
}

/** The seven local days from `weekStart`. */
export function weekDays(weekStart: Date): Date[] {
  return Array.from({ length: 7 }, (_unused, index) => addDays(weekStart, index));
}

/** "2026-11-29" for a local day: what a date box holds, and a key for a day's column. */
export function dayKey(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** "09:00" for the local time of `date`: what a time box holds. */
export function timeOfDay(date: Date): string {
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}

/**
 * Which part of the agenda an event starting at `start` goes in: Today (the rest of
 * today, and what started earlier today), This week (tomorrow and the five days
 * after, so tomorrow is always here, whatever day the week starts on), Later.
 * null for a start before today.
 */
export function agendaGroupOf(start: Date, now: Date): AgendaGroup | null {
  const today = startOfDay(now);
  if (start < today) return null;
  if (start < addDays(today, 1)) return 'today';
  if (start < addDays(today, 7)) return 'week';
  return 'later';
}

/** Whether two instants are on the same local day. */
export function isSameDay(first: Date, second: Date): boolean {
  return dayKey(first) === dayKey(second);
}

/** A local date box and time box ("2026-11-29", "09:00") as the UTC instant the API takes, or null when either is empty or not real. */
export function instantOf(day: string, time: string): string | null {
  const dayMatch = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  const timeMatch = /^(\d{2}):(\d{2})$/.exec(time);
  if (!dayMatch || !timeMatch) return null;
  const [year, month, date] = [Number(dayMatch[1]), Number(dayMatch[2]), Number(dayMatch[3])];
  const local = new Date(year, month - 1, date, Number(timeMatch[1]), Number(timeMatch[2]));
  if (local.getFullYear() !== year || local.getMonth() !== month - 1 || local.getDate() !== date) return null;
  return Number.isNaN(local.getTime()) ? null : local.toISOString();
}
