import { useId, useState } from 'react';
import type { ContactJson } from '../../../../shared/schemas/contact.ts';
import { contactLine, contactName } from '../../project/contact-words.ts';
import { useContactSearch } from './contact-search.ts';
import './contacts.css';

const RESULT_LIMIT = 8;

/**
 * A box that finds one of the org's contacts as the user types, by any word of her
 * name, email or phone, and picks her. ↑ ↓ move through the results, Enter picks,
 * Esc clears. Contacts whose URL is in `leaveOut` (already on the project) are not offered.
 */
export function ContactSearchBox({
  orgId,
  label,
  nobodyHint,
  leaveOut = [],
  autoFocus = false,
  onChoose,
}: {
  orgId: number;
  label: string;
  /** Said when nobody matches: what to do instead. */
  nobodyHint: string;
  leaveOut?: readonly string[];
  autoFocus?: boolean;
  onChoose: (contact: ContactJson) => void;
}) {
  const inputId = useId();
  const listId = useId();
  const [text, setText] = useState('');
  const [highlighted, setHighlighted] = useState(0);
  const answer = useContactSearch(orgId, text, { limit: RESULT_LIMIT + leaveOut.length });
  const results = (answer?.contacts ?? []).filter((contact) => !leaveOut.includes(contact.url)).slice(0, RESULT_LIMIT);
  const at = Math.min(highlighted, Math.max(results.length - 1, 0));

  const choose = (contact: ContactJson) => {
    setText('');
    setHighlighted(0);
    onChoose(contact);
  };

  return (
    <div className="field contact-search">
      <label htmlFor={inputId}>{label}</label>
      <input
        id={inputId}
        type="search"
        role="combobox"
        aria-expanded={results.length > 0}
        aria-controls={listId}
        aria-activedescendant={results.length > 0 ? `${listId}-${at}` : undefined}
        autoComplete="off"
        autoFocus={autoFocus}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setHighlighted(0);
        }}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            if (results.length > 0) setHighlighted((at + (event.key === 'ArrowDown' ? 1 : results.length - 1)) % results.length);
          } else if (event.key === 'Enter' && results.length > 0) {
            event.preventDefault();
            choose(results[at] ?? results[0]!);
          } else if (event.key === 'Escape' && text !== '') {
            // Esc clears the search first; a second Esc reaches the form around it.
            event.preventDefault();
            setText('');
          }
        }}
      />
      <ul id={listId} role="listbox" aria-label="Contacts found" className="contact-search-results">
        {results.map((contact, index) => (
          <li
            key={contact.id}
            id={`${listId}-${index}`}
            role="option"
            aria-selected={index === at}
            className={index === at ? 'is-highlighted' : undefined}
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => choose(contact)}
            data-testid="contact-result"
          >
            <span className="contact-search-name">{contactName(contact)}</span>
            <span className="field-hint">{contactLine(contact)}</span>
          </li>
        ))}
      </ul>
      {answer && !answer.error && results.length === 0 && (
        <span className="field-hint">
          Nobody matches “{answer.words}”. {nobodyHint}
        </span>
      )}
      {answer?.error && (
        <span className="field-error" role="alert">
          {answer.error} {nobodyHint}
        </span>
      )}
    </div>
  );
}
