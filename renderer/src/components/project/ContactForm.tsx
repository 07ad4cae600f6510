import { useState } from 'react';
import { useProjectStore } from '../../stores/project-store.ts';
import { contactWriteSchema } from '../../../../shared/schemas/contact-write.ts';
import type { ContactJson } from '../../../../shared/schemas/contact.ts';

const FIELDS = [
  { field: 'first_name', label: 'First name' },
  { field: 'family_name', label: 'Family name' },
  { field: 'email', label: 'Email' },
  { field: 'phone', label: 'Phone' },
  { field: 'date_of_birth', label: 'Date of birth', type: 'date' },
] as const;

export type ContactDraft = Partial<Record<(typeof FIELDS)[number]['field'], string | null>> & { gender?: number };

/**
 * A contact's main fields, checked with the engine's contact schema as the user types.
 * What is typed is a draft of the project (`draftKey`), so leaving the project before
 * submitting loses nothing: the form comes back open with it.
 */
export function ContactForm({
  initial,
  draftKey,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial?: ContactJson;
  draftKey: string;
  submitLabel: string;
  onSubmit: (draft: ContactDraft) => Promise<void>;
  onCancel: () => void;
}) {
  const stored = useProjectStore((state) => state.drafts[draftKey]) as ContactDraft | undefined;
  const editDraft = useProjectStore((state) => state.editDraft);
  const draft: ContactDraft =
    stored ?? Object.fromEntries(FIELDS.map(({ field }) => [field, (initial?.[field] as string | null | undefined) ?? (field === 'date_of_birth' ? null : '')]));
  const setDraft = (next: ContactDraft) =>
    editDraft(draftKey, next, { ok: 'form' }, initial ? `Contact ${initial.display || `${initial.first_name} ${initial.family_name}`}` : 'New contact');
  const [isBusy, setBusy] = useState(false);
  const parsed = contactWriteSchema.safeParse(draft);
  const errors = new Map(parsed.success ? [] : parsed.error.issues.map((issue) => [String(issue.path[0]), issue.message]));

  return (
    <form
      className="contact-form"
      onSubmit={async (event) => {
        event.preventDefault();
        if (!parsed.success) return;
        setBusy(true);
        try {
          await onSubmit(draft);
        } finally {
          setBusy(false);
        }
      }}
    >
      <div className="field-grid">
        {FIELDS.map((item) => (
          <div key={item.field} className={`field${errors.has(item.field) ? ' has-error' : ''}`}>
            <label htmlFor={`contact-${item.field}`}>{item.label}</label>
            <input
              id={`contact-${item.field}`}
              type={'type' in item ? item.type : 'text'}
              value={draft[item.field] ?? ''}
              onChange={(event) => setDraft({ ...draft, [item.field]: item.field === 'date_of_birth' && event.target.value === '' ? null : event.target.value })}
            />
            {errors.has(item.field) && <span className="field-error">{errors.get(item.field)}</span>}
          </div>
        ))}
      </div>
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={!parsed.success || isBusy}>
          {submitLabel}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
