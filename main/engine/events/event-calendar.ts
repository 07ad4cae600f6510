// Events as iCalendar (RFC 5545), for phone and desktop calendars (issue 27 "Beyond
// the anchors"): one event as a `.ics` download, and each person's schedule as a
// feed (calendar-feed-routes.ts). ical-generator writes the text; what goes in it is
// decided here, once, for both.
//
// Times are written in UTC (`DTSTART:20261201T230000Z`): the store keeps every
// instant in UTC, and a UTC time is one instant in every calendar, which then shows
// it in the phone's own zone. A floating or zoned time would need the org's zone,
// which SolarDesk does not know.
import ical, { ICalEventStatus } from 'ical-generator';
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import { type EventView, teamMemberRoleIds } from './events.ts';
import { eventTypeTitle } from '../../../shared/event-types.ts';

/** What an event's calendar entry says beyond its own row: its project's place, its contact and its people, by id. */
export interface CalendarDetails {
  projects: Map<number, { title: string; address: string }>;
  contacts: Map<number, { name: string; phone: string }>;
  roles: Map<number, { name: string; email: string }>;
}

const personName = (first: string, family: string, fallback: string) => `${first} ${family}`.trim() || fallback;

/** Reads the projects, contacts and roles `events` name, in three queries whatever their number. */
export async function loadCalendarDetails(db: Kysely<Database>, events: readonly EventView[]): Promise<CalendarDetails> {
  const ids = (pick: (event: EventView) => Iterable<number | null>) => [...new Set(events.flatMap((event) => [...pick(event)]))].filter((id): id is number => id !== null);
  const projectIds = ids((event) => [event.project_id]);
  const contactIds = ids((event) => [event.contact_id]);
  const roleIds = ids((event) => teamMemberRoleIds(event));
  const [projects, contacts, roles] = await Promise.all([
    projectIds.length === 0 ? [] : db.selectFrom('projects').select(['id', 'title', 'address', 'locality', 'state', 'zip']).where('id', 'in', projectIds).execute(),
    contactIds.length === 0 ? [] : db.selectFrom('contacts').select(['id', 'first_name', 'family_name', 'email', 'phone']).where('id', 'in', contactIds).execute(),
    roleIds.length === 0 ? [] : db.selectFrom('roles').select(['id', 'first_name', 'family_name', 'email']).where('id', 'in', roleIds).execute(),
  ]);
  return {
    projects: new Map(projects.map((project) => [project.id, { title: project.title, address: [project.address, project.locality, project.state, project.zip].filter((part) => part.trim() !== '').join(', ') }])),
    contacts: new Map(contacts.map((contact) => [contact.id, { name: personName(contact.first_name, contact.family_name, contact.email), phone: contact.phone }])),
    roles: new Map(roles.map((role) => [role.id, { name: personName(role.first_name, role.family_name, role.email), email: role.email }])),
  };
}

/** The entry's end: the stored end, else start plus the duration, else none (the calendar shows the start alone). */
function endOf(event: EventView): Date | null {
  if (event.ends_at !== null) return new Date(event.ends_at);
  if (event.starts_at !== null && event.duration_seconds !== null) return new Date(new Date(event.starts_at).getTime() + event.duration_seconds * 1000);
  return null;
}

/**
 * A UID that stays the same for the event on this server however often it is
 * downloaded or the feed is fetched, so a calendar updates its entry instead of
 * adding another (RFC 5545 3.8.4.7).
 */
export function eventUid(context: EngineContext, event: Pick<EventView, 'id' | 'org_id'>): string {
  return `solardesk-org-${event.org_id}-event-${event.id}@${new URL(context.publicUrl).hostname}`;
}

/** The iCalendar text of `events` (those without a start have no place in a calendar and are left out). */
export function calendarText(
  context: EngineContext,
  name: string,
  events: readonly EventView[],
  details: CalendarDetails,
  options: { refreshSeconds?: number } = {},
): string {
  // `ttl`: how often a subscribed calendar should fetch again (a feed); none for a one-off file.
  const calendar = ical({ name, prodId: { company: 'SolarDesk', product: 'SolarDesk', language: 'EN' }, ttl: options.refreshSeconds ?? null });
  const completions: Array<{ uid: string; completed: string }> = [];
  for (const event of events) {
    if (event.starts_at === null) continue;
    const project = event.project_id === null ? undefined : details.projects.get(event.project_id);
    const contact = event.contact_id === null ? undefined : details.contacts.get(event.contact_id);
    const people = teamMemberRoleIds(event).flatMap((id) => details.roles.get(id) ?? []);
    const description = [
      event.notes.trim(),
      project ? `Project: ${project.title}${project.address ? ` (${project.address})` : ''}` : '',
      contact ? `Contact: ${contact.name}${contact.phone ? `, ${contact.phone}` : ''}` : '',
      people.length > 0 ? `Team: ${people.map((person) => person.name).join(', ')}` : '',
      `Kind: ${eventTypeTitle(event.event_type_id)}`,
    ].filter((line) => line !== '');
    const uid = eventUid(context, event);
    calendar.createEvent({
      id: uid,
      summary: event.title,
      start: new Date(event.starts_at),
      end: endOf(event),
      location: event.location_override?.trim() || project?.address || null,
      description: description.join('\n'),
      // A calendar needs an address to show a person; a role without one is named in the description only.
      attendees: people.filter((person) => person.email !== '').map((person) => ({ name: person.name, email: person.email })),
      status: event.is_archived === 1 ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
      created: new Date(event.created_date),
      lastModified: new Date(event.modified_date),
      stamp: new Date(event.modified_date),
    });
    if (event.is_complete === 1) completions.push({ uid, completed: event.completion_date ?? event.modified_date });
  }
  return withCompletions(calendar.toString(), completions);
}

/** `20261201T230000Z`: an instant in iCalendar's UTC form. */
const icalUtc = (iso: string) => new Date(iso).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/**
 * A done event carries COMPLETED (RFC 5545 3.8.2.1) with the time it was done.
 * RFC 5545 names it for to-dos, but an event may carry any IANA property and
 * calendars that know it show the entry as done. ical-generator writes only X-
 * names of its own accord, so the line is added to its text after the UID, which
 * is short enough never to be folded.
 */
function withCompletions(text: string, completions: ReadonlyArray<{ uid: string; completed: string }>): string {
  if (completions.length === 0) return text;
  const byUid = new Map(completions.map((entry) => [entry.uid, icalUtc(entry.completed)]));
  return text.replace(/^UID:(.*)\r\n/gm, (line, uid: string) => (byUid.has(uid) ? `${line}COMPLETED:${byUid.get(uid)}\r\n` : line));
}

/** `Site visit.ics`: a file name from the event's title, without the characters file systems refuse. */
export function calendarFileName(title: string): string {
  const cleaned = title.replace(/[\\/:*?"<>|\p{Cc}]+/gu, ' ').replace(/\s+/g, ' ').trim().slice(0, 100).trim();
  return `${cleaned || 'event'}.ics`;
}
