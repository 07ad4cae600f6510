import './BookVisit.css';
import { useId, useState, type ReactNode } from 'react';
import { apiPaths } from '../../../../shared/api-paths.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { apiRequest, describeFailure, messageOf } from '../../api/api-client.ts';
import { BOOKING_KINDS, bookingBodyOf, bookingDraftFor, bookingErrorsBeforeSend, bookingErrorsOfResponse, type BookingDraft, type BookingKind, type BoxErrors, withKind } from '../../schedule/booking.ts';
import { useOrgStore } from '../../stores/org-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { contactName } from '../../project/contact-words.ts';
import { dayTitle } from './schedule-words.ts';

/**
 * "Book visit" on a project: a click opens the form already filled (a site visit
 * tomorrow at 09:00 for an hour, the project's contact, the person it is assigned
 * to), a second click on Book sends it. The rules of shared/field-rules.ts are shown
 * beside their boxes as the person types, and nothing is sent while one is broken.
 */
export function BookVisitButton({ project }: { project: ProjectDetailJson }) {
  const [isOpen, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="button" aria-haspopup="dialog" onClick={() => setOpen(true)}>
        Book visit
      </button>
      {isOpen && <BookVisitDialog project={project} onClose={() => setOpen(false)} />}
    </>
  );
}

function BoxField({ id, label, errors, isWide = false, children }: { id: string; label: string; errors: string[] | undefined; isWide?: boolean; children: ReactNode }) {
  return (
    <div className={`field${isWide ? ' field-wide' : ''}${errors ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {errors && (
        <span id={`${id}-error`} className="field-error" role="alert">
          {errors.join(' ')}
        </span>
      )}
    </div>
  );
}

function BookVisitDialog({ project, onClose }: { project: ProjectDetailJson; onClose(): void }) {
  const idPrefix = useId();
  const roles = useOrgStore((state) => state.roles);
  const toast = useUiStore((state) => state.toast);
  const [draft, setDraft] = useState<BookingDraft>(() => bookingDraftFor(project, 'site_visit', new Date()));
  const [refused, setRefused] = useState<BoxErrors>({});
  const [isBusy, setBusy] = useState(false);
  const typedErrors = bookingErrorsBeforeSend(draft, project);
  const errors: BoxErrors = { ...refused, ...typedErrors };
  const canSend = Object.keys(typedErrors).length === 0 && !isBusy;
  // The project's assigned person stays choosable even when the org's roles have not come yet.
  const contactChoice = project.contacts_data.find((contact) => contact.url === draft.contact);
  const chosenContact = contactChoice ? `${contactName(contactChoice)}${contactChoice.phone ? ` · ${contactChoice.phone}` : ''}` : 'No contact';
  const people = roles.filter((role) => !role.is_hidden || draft.teamMembers.includes(role.url));

  const edit = (patch: Partial<BookingDraft>, boxes: string[]) => {
    const rest = Object.fromEntries(Object.entries(refused).filter(([box]) => !boxes.includes(box) && box !== 'form'));
    setRefused(rest);
    setDraft({ ...draft, ...patch });
  };
  const inputProps = (box: string) => ({ id: `${idPrefix}-${box}`, 'aria-invalid': errors[box] ? true : undefined, 'aria-describedby': errors[box] ? `${idPrefix}-${box}-error` : undefined });

  const book = async () => {
    setBusy(true);
    try {
      const response = await apiRequest('POST', apiPaths.events(project.org_id), { body: bookingBodyOf(draft, project) });
      if (response.status >= 300) {
        const boxes = bookingErrorsOfResponse(response.body);
        setRefused(Object.keys(boxes).length > 0 ? boxes : { form: [describeFailure(response)] });
        return;
      }
      const kind = BOOKING_KINDS.find((item) => item.kind === draft.kind)!;
      toast(`${kind.label} booked for ${dayTitle(new Date(`${draft.day}T00:00`))} at ${draft.from}. It is on the Schedule.`);
      onClose();
    } catch (error) {
      setRefused({ form: [`The visit was not booked: ${messageOf(error)}. Try again.`] });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="dialog-backdrop" onClick={onClose}>
      <form
        className="dialog book-visit"
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${idPrefix}-heading`}
        data-testid="book-visit"
        onClick={(event) => event.stopPropagation()}
        onKeyDown={(event) => event.key === 'Escape' && onClose()}
        onSubmit={(event) => {
          event.preventDefault();
          if (canSend) void book();
        }}
      >
        <h2 id={`${idPrefix}-heading`}>Book a visit to {project.title || project.address || `project ${project.id}`}</h2>
        <div className="segmented" role="radiogroup" aria-label="Kind of visit">
          {BOOKING_KINDS.map((item) => (
            <button
              key={item.kind}
              type="button"
              role="radio"
              aria-checked={draft.kind === item.kind}
              className={draft.kind === item.kind ? 'is-active' : ''}
              onClick={() => edit(withKind(draft, item.kind as BookingKind, project), ['from', 'to', 'title'])}
            >
              {item.label}
            </button>
          ))}
        </div>
        <div className="field-grid book-visit-grid">
          <BoxField id={`${idPrefix}-title`} label="Title" errors={errors.title} isWide>
            <input {...inputProps('title')} value={draft.title} onChange={(event) => edit({ title: event.target.value }, ['title'])} />
          </BoxField>
          <BoxField id={`${idPrefix}-day`} label="Day" errors={errors.day}>
            <input {...inputProps('day')} type="date" value={draft.day} onChange={(event) => edit({ day: event.target.value }, ['day', 'from', 'to'])} />
          </BoxField>
          <BoxField id={`${idPrefix}-from`} label="From" errors={errors.from}>
            <input {...inputProps('from')} type="time" value={draft.from} onChange={(event) => edit({ from: event.target.value }, ['from', 'to'])} />
          </BoxField>
          <BoxField id={`${idPrefix}-to`} label="To" errors={errors.to}>
            <input {...inputProps('to')} type="time" value={draft.to} onChange={(event) => edit({ to: event.target.value }, ['from', 'to'])} />
          </BoxField>
          <BoxField id={`${idPrefix}-contact`} label="Contact" errors={errors.contact} isWide>
            <select {...inputProps('contact')} title={chosenContact} value={draft.contact} onChange={(event) => edit({ contact: event.target.value }, ['contact'])}>
              <option value="">No contact</option>
              {project.contacts_data.map((contact) => (
                <option key={contact.url} value={contact.url}>
                  {contactName(contact)}
                  {contact.phone ? ` · ${contact.phone}` : ''}
                </option>
              ))}
            </select>
          </BoxField>
        </div>
        <fieldset className={`book-visit-team${errors.team ? ' has-error' : ''}`} aria-describedby={errors.team ? `${idPrefix}-team-error` : undefined}>
          <legend>Who goes</legend>
          {people.length === 0 && <span className="muted small">The organisation’s people are loading…</span>}
          {people.map((role) => (
            <label key={role.url} className="check-row">
              <input
                type="checkbox"
                checked={draft.teamMembers.includes(role.url)}
                onChange={(event) =>
                  edit({ teamMembers: event.target.checked ? [...draft.teamMembers, role.url] : draft.teamMembers.filter((url) => url !== role.url) }, ['team'])
                }
              />
              {role.display || role.email}
              {role.job_title && <span className="muted small">{role.job_title}</span>}
            </label>
          ))}
          {errors.team && (
            <span id={`${idPrefix}-team-error`} className="field-error" role="alert">
              {errors.team.join(' ')}
            </span>
          )}
        </fieldset>
        <BoxField id={`${idPrefix}-notes`} label="Notes for the team" errors={errors.notes}>
          <textarea {...inputProps('notes')} rows={2} value={draft.notes} onChange={(event) => edit({ notes: event.target.value }, ['notes'])} />
        </BoxField>
        {errors.form && (
          <p className="field-error" role="alert">
            {errors.form.join(' ')}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={!canSend}>
            Book
          </button>
        </div>
      </form>
    </div>
  );
}
