import { useState, type ReactNode } from 'react';
import { contactFieldErrors, type FieldErrors } from '../../../../shared/field-rules.ts';
import type { ContactJson } from '../../../../shared/schemas/contact.ts';
import { ApiFailure, messageOf } from '../../api/api-client.ts';
import { useProjectStore } from '../../stores/project-store.ts';

const FIELDS = [
  { field: 'first_name', label: 'First name' },
  { field: 'family_name', label: 'Family name' },
  { field: 'email', label: 'Email' },
  { field: 'phone', label: 'Phone' },
  { field: 'date_of_birth', label: 'Date of birth', type: 'date' },
] as const;

export type ContactDraft = Partial<Record<(typeof FIELDS)[number]['field'], string | null>> & { gender?: number };

function draftOf(initial: ContactJson | undefined): ContactDraft {
  return Object.fromEntries(FIELDS.map(({ field }) => [field, (initial?.[field] as string | null | undefined) ?? (field === 'date_of_birth' ? null : '')]));
}

/**
 * What is typed: a draft of the open project when `draftKey` is given (leaving the
 * project before submitting loses nothing: the form comes back open with it), else
 * the form's own state (the Contacts screen, which has no open project).
 */
function useContactDraft(initial: ContactJson | undefined, draftKey: string | undefined): [ContactDraft, (next: ContactDraft) => void] {
  const stored = useProjectStore((state) => (draftKey ? state.drafts[draftKey] : undefined)) as ContactDraft | undefined;
  const editDraft = useProjectStore((state) => state.editDraft);
  const [local, setLocal] = useState<ContactDraft>(() => draftOf(initial));
  if (!draftKey) return [local, setLocal];
  const label = initial ? `Contact ${initial.display || `${initial.first_name} ${initial.family_name}`}` : 'New contact';
  return [stored ?? draftOf(initial), (next) => editDraft(draftKey, next, { ok: 'form' }, label)];
}

/**
 * A contact's main fields, checked with the engine's own contact rules
 * (shared/field-rules.ts) as the user types: the message shows beside its box and
 * nothing is sent while one does. What the engine still refuses (a 400 naming
 * fields) shows beside the boxes it names. `below` is shown under the boxes and is
 * given what is typed (the duplicate offer).
 */
export function ContactForm({
  initial,
  draftKey,
  submitLabel,
  onSubmit,
  onCancel,
  below,
}: {
  initial?: ContactJson;
  draftKey?: string;
  submitLabel: string;
  /** Throws an ApiFailure to have the engine's messages shown beside the boxes. */
  onSubmit: (draft: ContactDraft) => Promise<void>;
  onCancel: () => void;
  below?: (draft: ContactDraft) => ReactNode;
}) {
  const [draft, setDraft] = useContactDraft(initial, draftKey);
  const [isBusy, setBusy] = useState(false);
  /** The engine's refusal of the last send, by field, until that box is changed. */
  const [refused, setRefused] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const typedErrors = contactFieldErrors(draft);
  const errors: FieldErrors = { ...refused, ...typedErrors };
  const canSend = Object.keys(typedErrors).length === 0;
  const idPrefix = `contact-${initial?.id ?? 'new'}`;

  return (
    <form
      className="contact-form"
      onSubmit={async (event) => {
        event.preventDefault();
        if (!canSend) return;
        setBusy(true);
        setFailure(null);
        try {
          await onSubmit(draft);
        } catch (error) {
          const named = error instanceof ApiFailure ? Object.fromEntries(Object.entries(error.fieldErrors).filter(([field]) => FIELDS.some((item) => item.field === field))) : {};
          setRefused(named);
          if (Object.keys(named).length === 0) setFailure(`The contact was not saved: ${messageOf(error)}`);
        } finally {
          setBusy(false);
        }
      }}
    >
      <div className="field-grid">
        {FIELDS.map((item) => {
          const messages = errors[item.field];
          const inputId = `${idPrefix}-${item.field}`;
          return (
            <div key={item.field} className={`field${messages ? ' has-error' : ''}`}>
              <label htmlFor={inputId}>{item.label}</label>
              <input
                id={inputId}
                type={'type' in item ? item.type : 'text'}
                value={draft[item.field] ?? ''}
                aria-invalid={messages ? true : undefined}
                aria-describedby={messages ? `${inputId}-error` : undefined}
                onChange={(event) => {
                  const { [item.field]: _answered, ...otherRefusals } = refused;
                  setRefused(otherRefusals);
                  setDraft({ ...draft, [item.field]: item.field === 'date_of_birth' && event.target.value === '' ? null : event.target.value });
                }}
              />
              {messages && (
                <span id={`${inputId}-error`} className="field-error" role="alert">
                  {messages.join(' ')}
                </span>
              )}
            </div>
          );
        })}
      </div>
      {below?.(draft)}
      {failure && (
        <p className="field-error" role="alert">
          {failure}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={!canSend || isBusy}>
          {submitLabel}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
