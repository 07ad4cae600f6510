import './NewProjectForm.css';
import { useEffect, useId, useMemo, useRef, type ReactNode } from 'react';
import { COUNTRY_CODES } from '../../../../shared/countries.ts';
import { postalCodeWarning } from '../../../../shared/field-rules.ts';
import type { RoleJson } from '../../../../shared/schemas/role.ts';
import { NEW_CONTACT_FIELDS, emptyNewContact, type CustomerDraft, type NewProjectDraft } from '../../project/new-project.ts';
import { useNewProjectStore } from '../../stores/new-project-store.ts';
import { useOrgStore } from '../../stores/org-store.ts';
import { RoofTypeOptions } from '../project/CountryAndRoofFields.tsx';
import { DuplicateOffer } from '../contacts/DuplicateOffer.tsx';
import { CustomerSearch } from './CustomerSearch.tsx';

/** Countries by their name in the user's language, for the picker. */
function countryChoices(): Array<{ code: string; name: string }> {
  const names = new Intl.DisplayNames(undefined, { type: 'region' });
  return COUNTRY_CODES.map((code) => ({ code, name: names.of(code) ?? code })).sort((a, b) => a.name.localeCompare(b.name));
}

function roleName(role: RoleJson): string {
  return role.display || [role.first_name, role.family_name].filter(Boolean).join(' ') || role.email || `Role ${role.id}`;
}

/** One labelled box with its messages under it; `box` is the key its messages come under (new-project.ts). */
function Box({
  box,
  label,
  className,
  warning = null,
  children,
}: {
  box: string;
  label: string;
  className?: string;
  /** Said beside the box when there is no error; the value is sent all the same. */
  warning?: string | null;
  children: (props: { id: string; 'aria-invalid'?: true; 'aria-describedby'?: string }) => ReactNode;
}) {
  const id = useId();
  const messages = useNewProjectStore((state) => state.errors[box]);
  const hasError = messages !== undefined && messages.length > 0;
  const shownWarning = hasError ? null : warning;
  return (
    <div className={`field${className ? ` ${className}` : ''}${hasError ? ' has-error' : ''}${shownWarning ? ' has-warning' : ''}`} data-box={box}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': hasError ? true : undefined, 'aria-describedby': hasError ? `${id}-error` : shownWarning ? `${id}-warning` : undefined })}
      {hasError && (
        <span id={`${id}-error`} className="field-error" role="alert">
          {messages.join(' ')}
        </span>
      )}
      {shownWarning && (
        <span id={`${id}-warning`} className="field-warning">
          {shownWarning}
        </span>
      )}
    </div>
  );
}

/**
 * The "New project" form, in people's terms: the address, the country by name,
 * residential or commercial, lead source, roof type and the assigned person by
 * name, notes, and the customer (new, existing, or none yet). Enter submits, Esc
 * cancels; the engine's messages show beside the boxes they name.
 */
export function NewProjectForm({ orgId }: { orgId: number }) {
  const draft = useNewProjectStore((state) => state.draft);
  const isSaving = useNewProjectStore((state) => state.isSaving);
  const formErrors = useNewProjectStore((state) => state.errors.form);
  const customerErrors = useNewProjectStore((state) => state.errors.customer);
  const { edit, submit, cancel } = useNewProjectStore.getState();
  const roles = useOrgStore((state) => state.roles);
  const countries = useMemo(() => countryChoices(), []);
  const formRef = useRef<HTMLFormElement>(null);
  const customerHeadingId = useId();

  // The first box takes the focus, so typing starts at once (Ctrl/Cmd+N, then the address).
  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>('input, select, textarea')?.focus();
  }, []);

  // After a refused submit, the first box with a message takes the focus.
  const errorCount = useNewProjectStore((state) => Object.keys(state.errors).length);
  useEffect(() => {
    if (errorCount === 0) return;
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [errorCount]);

  const text = (field: keyof NewProjectDraft) => ({
    value: draft[field] as string,
    onChange: (event: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) => edit({ [field]: event.target.value }, field),
  });
  const setCustomer = (customer: CustomerDraft) => edit({ customer }, 'customer');

  return (
    <form
      ref={formRef}
      className="new-project-form"
      aria-label="New project"
      data-testid="new-project-form"
      aria-busy={isSaving}
      // The messages are ours, beside each box, in the engine's words; the browser's own bubbles would stop the submit first.
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void submit(orgId);
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && !event.defaultPrevented) {
          event.preventDefault();
          cancel();
        }
        // Enter in a one-line box submits (the browser does that for inputs, not for pickers); in notes it is a new line.
        if (event.key === 'Enter' && !event.defaultPrevented && (event.target as HTMLElement).tagName === 'SELECT') {
          event.preventDefault();
          formRef.current?.requestSubmit();
        }
      }}
    >
      <header className="pane-head">
        <h2>New project</h2>
        <span className="field-hint">
          <kbd>Enter</kbd> creates it, <kbd>Esc</kbd> cancels
        </span>
      </header>
      <fieldset className="field-section new-project-part" disabled={isSaving}>
        <legend>Where</legend>
        <div className="field-grid">
          <Box box="address" label="Street address" className="field-wide">
            {(props) => <input {...props} {...text('address')} autoComplete="off" placeholder="12 Example Street" />}
          </Box>
          <Box box="locality" label="Suburb or town">
            {(props) => <input {...props} {...text('locality')} autoComplete="off" />}
          </Box>
          <Box box="state" label="State">
            {(props) => <input {...props} {...text('state')} autoComplete="off" />}
          </Box>
          <Box box="zip" label="Postcode" warning={postalCodeWarning(draft.country_iso2 || null, draft.zip.trim())}>
            {(props) => <input {...props} {...text('zip')} autoComplete="off" inputMode="text" />}
          </Box>
          <Box box="country_iso2" label="Country">
            {(props) => (
              <select {...props} {...text('country_iso2')}>
                <option value="">Not set</option>
                {countries.map((country) => (
                  <option key={country.code} value={country.code}>
                    {country.name}
                  </option>
                ))}
              </select>
            )}
          </Box>
        </div>
        <details className="new-project-location" open={draft.lat !== '' || draft.lon !== '' || undefined}>
          <summary>Exact location (optional)</summary>
          <div className="field-grid">
            <Box box="lat" label="Latitude">
              {(props) => <input {...props} {...text('lat')} inputMode="decimal" placeholder="-33.8688" autoComplete="off" />}
            </Box>
            <Box box="lon" label="Longitude">
              {(props) => <input {...props} {...text('lon')} inputMode="decimal" placeholder="151.2093" autoComplete="off" />}
            </Box>
          </div>
        </details>
      </fieldset>

      <fieldset className="field-section new-project-part" disabled={isSaving}>
        <legend>The job</legend>
        <div className="field-grid">
          <Box box="is_residential" label="Kind of site">
            {(props) => (
              <select {...props} value={draft.is_residential ? 'residential' : 'commercial'} onChange={(event) => edit({ is_residential: event.target.value === 'residential' }, 'is_residential')}>
                <option value="residential">Residential</option>
                <option value="commercial">Commercial</option>
              </select>
            )}
          </Box>
          <Box box="lead_source" label="Lead source">
            {(props) => <input {...props} {...text('lead_source')} placeholder="Website, referral…" autoComplete="off" />}
          </Box>
          <Box box="roof_type_id" label="Roof type">
            {(props) => (
              <select {...props} {...text('roof_type_id')}>
                <RoofTypeOptions noneLabel="Not known yet" />
              </select>
            )}
          </Box>
          <Box box="assigned_role" label="Assigned to">
            {(props) => (
              <select {...props} {...text('assigned_role')}>
                <option value="">Nobody yet</option>
                {roles
                  .filter((role) => !role.is_hidden || role.url === draft.assigned_role)
                  .map((role) => (
                    <option key={role.id} value={role.url}>
                      {roleName(role)}
                    </option>
                  ))}
              </select>
            )}
          </Box>
          <Box box="notes" label="Notes" className="field-wide">
            {(props) => <textarea {...props} {...text('notes')} rows={3} />}
          </Box>
        </div>
      </fieldset>

      <fieldset className="field-section new-project-part" disabled={isSaving} aria-labelledby={customerHeadingId}>
        <legend id={customerHeadingId}>Customer</legend>
        <div className="segmented new-project-customer-kind" role="radiogroup" aria-label="Customer">
          {(
            [
              ['new', 'New customer'],
              ['existing', 'Existing contact'],
              ['none', 'Not yet'],
            ] as const
          ).map(([kind, label]) => (
            <button
              key={kind}
              type="button"
              role="radio"
              aria-checked={draft.customer.kind === kind}
              className={draft.customer.kind === kind ? 'is-active' : undefined}
              onClick={() => {
                if (draft.customer.kind === kind) return;
                setCustomer(kind === 'new' ? { kind, contact: emptyNewContact() } : kind === 'existing' ? { kind, contact: null } : { kind });
              }}
            >
              {label}
            </button>
          ))}
        </div>
        {draft.customer.kind === 'new' && (
          <div className="field-grid new-project-contact">
            {NEW_CONTACT_FIELDS.map(({ field, label, ...rest }) => {
              const customer = draft.customer as Extract<CustomerDraft, { kind: 'new' }>;
              return (
                <Box key={field} box={`contact.${field}`} label={label}>
                  {(props) => (
                    <input
                      {...props}
                      type={'type' in rest ? rest.type : 'text'}
                      autoComplete="off"
                      value={customer.contact[field]}
                      onChange={(event) => {
                        edit({ customer: { kind: 'new', contact: { ...customer.contact, [field]: event.target.value } } }, `contact.${field}`);
                      }}
                    />
                  )}
                </Box>
              );
            })}
          </div>
        )}
        {draft.customer.kind === 'new' && (
          <DuplicateOffer
            orgId={orgId}
            email={draft.customer.contact.email}
            phone={draft.customer.contact.phone}
            onUse={(contact) => setCustomer({ kind: 'existing', contact })}
          />
        )}
        {draft.customer.kind === 'existing' && <CustomerSearch orgId={orgId} chosen={draft.customer.contact} onChoose={(contact) => setCustomer({ kind: 'existing', contact })} />}
        {customerErrors && (
          <p className="field-error" role="alert" data-testid="customer-error">
            {customerErrors.join(' ')}
          </p>
        )}
      </fieldset>

      {formErrors && (
        <p className="field-error new-project-form-error" role="alert">
          {formErrors.join(' ')}
        </p>
      )}
      <div className="form-actions new-project-actions">
        <button type="submit" className="button button-primary" disabled={isSaving}>
          {isSaving ? 'Creating…' : 'Create project'}
        </button>
        <button type="button" className="button" onClick={cancel} disabled={isSaving}>
          Cancel
        </button>
        {isSaving && (
          <span className="field-hint" role="status">
            Saving the project on this computer…
          </span>
        )}
      </div>
    </form>
  );
}
