import type { ContactJson } from '../../../../shared/schemas/contact.ts';
import { contactLine, contactName } from '../../project/contact-words.ts';
import { ContactSearchBox } from '../contacts/ContactSearchBox.tsx';

/**
 * The New-project form's existing customer: found as the user types by any word of
 * her name, email or phone (ContactSearchBox), then shown with a way to choose another.
 */
export function CustomerSearch({ orgId, chosen, onChoose }: { orgId: number; chosen: ContactJson | null; onChoose: (contact: ContactJson | null) => void }) {
  if (chosen) {
    return (
      <div className="card new-project-chosen" data-testid="chosen-contact">
        <div className="new-project-chosen-text">
          <strong>{contactName(chosen)}</strong>
          <span className="field-hint">{contactLine(chosen)}</span>
        </div>
        <button type="button" className="button" onClick={() => onChoose(null)}>
          Choose another
        </button>
      </div>
    );
  }
  return <ContactSearchBox orgId={orgId} label="Find a contact by name, email or phone" nobodyHint="Try one word, or add her as a new customer." onChoose={onChoose} />;
}
