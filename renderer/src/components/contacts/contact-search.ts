// Finding the org's contacts as the user types: one place for the words-to-answer
// logic that the Contacts screen, the project's "Add an existing contact", the
// New-project customer search and the duplicate offer all use. The engine matches
// every word in any of the name, email and phone (main/engine/contacts).
import { useEffect, useState } from 'react';
import { z } from 'zod';
import { apiPaths } from '../../../../shared/api-paths.ts';
import { contactRecordSchema, type ContactRecordJson } from '../../../../shared/schemas/contact.ts';
import { apiOk, messageOf } from '../../api/api-client.ts';

const SEARCH_DELAY_MS = 180;

/** The org's contacts matching `words` (all of them, page one, when `words` is empty). */
export function searchContacts(orgId: number, words: string, limit: number): Promise<ContactRecordJson[]> {
  return apiOk(z.array(contactRecordSchema), 'GET', apiPaths.contacts(orgId), { query: { search: words.trim() || undefined, limit, ordering: 'first_name' } });
}

export interface ContactSearchAnswer {
  /** The words this answer is for. */
  words: string;
  contacts: ContactRecordJson[];
  error: string | null;
}

/**
 * The engine's answer for the words typed, a moment after the typing stops; null
 * until it comes, and whenever the words changed since (an older answer is never
 * shown for newer words). `revision` asks again for the same words (after an edit).
 * With `searchEmpty`, empty words list the first contacts; otherwise they ask nothing.
 */
export function useContactSearch(orgId: number, text: string, { limit, searchEmpty = false, revision = 0 }: { limit: number; searchEmpty?: boolean; revision?: number }): ContactSearchAnswer | null {
  const words = text.trim();
  const [answer, setAnswer] = useState<(ContactSearchAnswer & { revision: number }) | null>(null);
  const asks = words !== '' || searchEmpty;

  useEffect(() => {
    if (!asks) return;
    let isCurrent = true;
    const timer = setTimeout(() => {
      searchContacts(orgId, words, limit)
        .then((contacts) => {
          if (isCurrent) setAnswer({ words, contacts, error: null, revision });
        })
        .catch((failure: unknown) => {
          if (isCurrent) setAnswer({ words, contacts: [], error: `Contacts could not be searched: ${messageOf(failure)}.`, revision });
        });
    }, SEARCH_DELAY_MS);
    return () => {
      isCurrent = false;
      clearTimeout(timer);
    };
  }, [orgId, words, limit, asks, revision]);

  return answer && asks && answer.words === words ? answer : null;
}
