// How a schedule entry reads: its kind, its time, who goes. Shared by the Schedule
// screen and a project's activity.
import { parseOrgReference } from '../../../../shared/api-paths.ts';
import { eventTypeTitle } from '../../../../shared/event-types.ts';
import type { EventJson } from '../../../../shared/schemas/event.ts';
import type { RoleJson } from '../../../../shared/schemas/role.ts';
import { isSameDay } from '../../schedule/schedule-days.ts';

/** The kind's name: "On-site sales visit". */
export function entryKind(event: EventJson): string {
  return eventTypeTitle(event.event_type_id);
}

// 'numeric' hours: "9:00 AM" where the locale uses a 12-hour clock, "09:00" where it uses 24 (2-digit read "09:00 AM").
const timeFormat = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short' });

/** "09:00–10:00"; with its day in front when `withDay` ("Sun 29 Nov, 09:00–10:00"); an end on another day names that day. */
export function entryTime(event: EventJson, { withDay }: { withDay: boolean }): string {
  if (!event.start) return '';
  const start = new Date(event.start);
  const end = event.end ? new Date(event.end) : null;
  const from = timeFormat.format(start);
  const until = end === null ? '' : isSameDay(start, end) ? `–${timeFormat.format(end)}` : ` – ${dayFormat.format(end)}, ${timeFormat.format(end)}`;
  return `${withDay ? `${dayFormat.format(start)}, ` : ''}${from}${until}`;
}

/** "Sun 29 Nov" */
export function dayTitle(day: Date): string {
  return dayFormat.format(day);
}

/** The names of the people who go, in the event's order; a role this computer does not know is named by number. */
export function teamNames(event: EventJson, roles: readonly RoleJson[]): string[] {
  const byId = new Map(roles.map((role) => [role.id, role]));
  return event.team_members.flatMap((member) => {
    const reference = typeof member === 'string' || typeof member === 'number' ? parseOrgReference(member, 'roles') : null;
    if (!reference) return [];
    const role = byId.get(reference.id);
    return [role ? role.display || role.email : `Person ${reference.id}`];
  });
}

/** "Done 29 Nov, 10:02" for a completed entry; '' for an open one. */
export function doneText(event: EventJson): string {
  if (!event.is_complete) return '';
  return event.completion_date ? `Done ${dayFormat.format(new Date(event.completion_date))}, ${timeFormat.format(new Date(event.completion_date))}` : 'Done';
}
