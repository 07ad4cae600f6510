import { useEffect, useId, useState } from 'react';
import { z } from 'zod';
import { apiPaths } from '../../../../shared/api-paths.ts';
import { contactRecordSchema, type ContactJson } from '../../../../shared/schemas/contact.ts';
import { apiOk, messageOf } from '../../api/api-client.ts';

const SEARCH_DELAY_MS = 180;
const RESULT_LIMIT = 8;

function contactLine(contact: ContactJson): string {
  return [contact.email, contact.phone].filter(Boolean).join(' · ');
}

function contactName(contact: ContactJson): string {
  return contact.display || [contact.first_name, contact.family_name].filter(Boolean).join(' ') || contact.email || `Contact ${contact.id}`;
}

/**
 * Finds one of the org's contacts as the user types, by any word of her name,
 * email or phone (the contacts list's `search`, which the engine matches across
 * all four), and picks her. ↑ ↓ move through the results, Enter picks, Esc clears.
 */
export function CustomerSearch({ orgId, chosen, onChoose }: { orgId: number; chosen: ContactJson | null; onChoose: (contact: ContactJson | null) => void }) {
  const inputId = useId();
  const listId = useId();
  const [text, setText] = useState('');
  const [highlighted, setHighlighted] = useState(0);
  /** The engine's answer for some words; shown only while they are still the words typed. */
  const [answer, setAnswer] = useState<{ words: string; contacts: ContactJson[]; error: string | null } | null>(null);
  const words = text.trim();

  useEffect(() => {
    if (words === '') return;
    let isCurrent = true;
    const timer = setTimeout(() => {
      apiOk(z.array(contactRecordSchema), 'GET', apiPaths.contacts(orgId), { query: { search: words, limit: RESULT_LIMIT, ordering: 'first_name' } })
        .then((contacts) => {
          if (!isCurrent) return;
          setAnswer({ words, contacts, error: null });
          setHighlighted(0);
        })
        .catch((failure: unknown) => {
          if (isCurrent) setAnswer({ words, contacts: [], error: `Contacts could not be searched: ${messageOf(failure)}. Try again, or add her as a new customer.` });
        });
    }, SEARCH_DELAY_MS);
    return () => {
      isCurrent = false;
      clearTimeout(timer);
    };
  }, [orgId, words]);

  const current = answer && answer.words === words && words !== '' ? answer : null;
  const results = current?.contacts ?? [];

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

  const choose = (contact: ContactJson) => {
    setText('');
    onChoose(contact);
  };

  return (
    <div className="field new-project-search">
      <label htmlFor={inputId}>Find a contact by name, email or phone</label>
      <input
        id={inputId}
        type="search"
        role="combobox"
        aria-expanded={results.length > 0}
        aria-controls={listId}
        aria-activedescendant={results.length > 0 ? `${listId}-${highlighted}` : undefined}
        autoComplete="off"
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            if (results.length > 0) setHighlighted((at) => (at + (event.key === 'ArrowDown' ? 1 : results.length - 1)) % results.length);
          } else if (event.key === 'Enter' && results.length > 0) {
            event.preventDefault();
            choose(results[highlighted] ?? results[0]!);
          } else if (event.key === 'Escape' && text !== '') {
            // Esc clears the search first; a second Esc cancels the form.
            event.preventDefault();
            setText('');
          }
        }}
      />
      <ul id={listId} role="listbox" aria-label="Contacts found" className="new-project-results">
        {results.map((contact, index) => (
          <li
            key={contact.id}
            id={`${listId}-${index}`}
            role="option"
            aria-selected={index === highlighted}
            className={index === highlighted ? 'is-highlighted' : undefined}
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => choose(contact)}
            data-testid="contact-result"
          >
            <span className="new-project-result-name">{contactName(contact)}</span>
            <span className="field-hint">{contactLine(contact)}</span>
          </li>
        ))}
      </ul>
      {current && !current.error && results.length === 0 && <span className="field-hint">Nobody matches “{words}”. Try one word, or add her as a new customer.</span>}
      {current?.error && (
        <span className="field-error" role="alert">
          {current.error}
        </span>
      )}
    </div>
  );
}
