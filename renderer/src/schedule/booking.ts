// Booking a visit from a project (issue 27): the small form's draft, already filled
// (tomorrow at 09:00 for an hour, an installation the whole working day, the
// project's contact and the person it is assigned to), what it sends (the Event
// create of main/engine/events/, exactly as an integration sends it), and its
// messages: the rules of shared/field-rules.ts, placed beside the boxes before
// anything is sent, and the engine's own 400 body placed the same way.
import { apiPaths } from '../../../shared/api-paths.ts';
import { eventFieldErrors, type FieldErrors } from '../../../shared/field-rules.ts';
import { boxErrorsOfResponse } from '../project/new-project.ts';
import { addDays, dayKey, instantOf } from './schedule-days.ts';

/** The kinds a project books, each with its hosted event type (shared/event-types.ts) and its usual hours. */
export const BOOKING_KINDS = [
  { kind: 'site_visit', label: 'Site visit', eventTypeId: 42, from: '09:00', to: '10:00' },
  { kind: 'installation', label: 'Installation', eventTypeId: 40, from: '09:00', to: '17:00' },
  { kind: 'maintenance', label: 'Maintenance visit', eventTypeId: 41, from: '09:00', to: '10:00' },
] as const;
export type BookingKind = (typeof BOOKING_KINDS)[number]['kind'];

export interface BookingDraft {
  kind: BookingKind;
  title: string;
  /** Local day and times, as the boxes hold them ("2026-11-29", "09:00"). */
  day: string;
  from: string;
  to: string;
  /** A contact's URL, or '' for none. */
  contact: string;
  /** Role URLs. */
  teamMembers: string[];
  notes: string;
}

export type BoxErrors = Record<string, string[]>;

/** The project fields a booking starts from. */
export interface BookingProject {
  org_id: number;
  id: number;
  title: string;
  address: string;
  assigned_role: string | null;
  contacts_data: readonly { url: string }[];
}

export function bookingKindOf(kind: BookingKind): (typeof BOOKING_KINDS)[number] {
  return BOOKING_KINDS.find((candidate) => candidate.kind === kind)!;
}

function titleOf(kind: BookingKind, project: BookingProject): string {
  const place = project.title || project.address;
  return place ? `${bookingKindOf(kind).label}: ${place}` : bookingKindOf(kind).label;
}

/** The form as it opens: tomorrow (local), the kind's hours, the project's first contact and its assigned person. */
export function bookingDraftFor(project: BookingProject, kind: BookingKind, now: Date): BookingDraft {
  const hours = bookingKindOf(kind);
  return {
    kind,
    title: titleOf(kind, project),
    day: dayKey(addDays(now, 1)),
    from: hours.from,
    to: hours.to,
    contact: project.contacts_data[0]?.url ?? '',
    teamMembers: project.assigned_role ? [project.assigned_role] : [],
    notes: '',
  };
}

/** Another kind chosen: its hours and its title, unless the person already changed them. */
export function withKind(draft: BookingDraft, kind: BookingKind, project: BookingProject): BookingDraft {
  const before = bookingKindOf(draft.kind);
  const after = bookingKindOf(kind);
  const keepsHours = draft.from !== before.from || draft.to !== before.to;
  return {
    ...draft,
    kind,
    title: draft.title === titleOf(draft.kind, project) ? titleOf(kind, project) : draft.title,
    from: keepsHours ? draft.from : after.from,
    to: keepsHours ? draft.to : after.to,
  };
}

/** The Event create the form sends: every schedule field the booking knows, none it does not. */
export function bookingBodyOf(draft: BookingDraft, project: BookingProject): Record<string, unknown> {
  const start = instantOf(draft.day, draft.from);
  const end = instantOf(draft.day, draft.to);
  const duration = start && end ? Math.round((Date.parse(end) - Date.parse(start)) / 1000) : null;
  return {
    project: apiPaths.project(project.org_id, project.id),
    title: draft.title.trim(),
    notes: draft.notes,
    event_type_id: bookingKindOf(draft.kind).eventTypeId,
    start: start ?? draft.day,
    end: end ?? draft.day,
    ...(duration !== null && duration >= 0 ? { duration } : {}),
    is_complete: false,
    contact: draft.contact === '' ? null : draft.contact,
    team_members: draft.teamMembers,
  };
}

/** Each API field's box in the form. */
const BOX_OF_FIELD: Readonly<Record<string, string>> = { start: 'from', end: 'to', duration: 'to', team_members: 'team', contact: 'contact', title: 'title', notes: 'notes' };
export const BOOKING_BOXES: ReadonlySet<string> = new Set(['title', 'day', 'from', 'to', 'contact', 'team', 'notes']);

function toBoxes(errors: FieldErrors): BoxErrors {
  const boxes: BoxErrors = {};
  for (const [field, messages] of Object.entries(errors)) (boxes[BOX_OF_FIELD[field] ?? 'form'] ??= []).push(...messages);
  return boxes;
}

/** What is wrong before sending, by box: the boxes the form needs filled, then the engine's own rules (shared/field-rules.ts). */
export function bookingErrorsBeforeSend(draft: BookingDraft, project: BookingProject): BoxErrors {
  const errors: BoxErrors = {};
  if (draft.title.trim() === '') errors.title = ['Give the booking a title, such as “Site visit”.'];
  if (!/^\d{4}-\d{2}-\d{2}$/.test(draft.day) || instantOf(draft.day, '00:00') === null) errors.day = ['Choose the day of the visit.'];
  if (!/^\d{2}:\d{2}$/.test(draft.from)) errors.from = ['Enter the time it starts, such as 09:00.'];
  if (!/^\d{2}:\d{2}$/.test(draft.to)) errors.to = ['Enter the time it ends, such as 10:00.'];
  if (Object.keys(errors).length > 0) return errors;
  return toBoxes(eventFieldErrors(bookingBodyOf(draft, project)));
}

/** The engine's refusal (DRF field errors, or a detail) as messages by box. */
export function bookingErrorsOfResponse(body: unknown): BoxErrors {
  const byField = boxErrorsOfResponse(body, new Set([...BOOKING_BOXES, ...Object.keys(BOX_OF_FIELD)]));
  const errors: BoxErrors = {};
  for (const [field, messages] of Object.entries(byField)) (errors[BOX_OF_FIELD[field] ?? (BOOKING_BOXES.has(field) ? field : 'form')] ??= []).push(...messages);
  return errors;
}
