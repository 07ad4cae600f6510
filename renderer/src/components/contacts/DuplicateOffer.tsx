import { useMemo } from 'react';
import { contactFieldErrors } from '../../../../shared/field-rules.ts';
import type { ContactRecordJson } from '../../../../shared/schemas/contact.ts';
import { contactName, digitsOf, findDuplicate, MIN_PHONE_DIGITS, pronounsOf } from '../../project/contact-words.ts';
import { useContactSearch } from './contact-search.ts';
import './contacts.css';

/** Enough for every contact whose number ends in the same three digits, in all but the biggest orgs. */
const CANDIDATE_LIMIT = 50;

/** The email to look for: only a whole one ('' asks nothing). */
function emailWords(email: string): string {
  const trimmed = email.trim();
  return trimmed !== '' && !contactFieldErrors({ email: trimmed }).email ? trimmed : '';
}

/**
 * The phone's words to look for: its last three digits, which stay together in
 * nearly every way a number is written ("0412 345 678", "+61 412-345-678"), so the
 * engine's text search finds the stored number however it was typed; the digits
 * are then compared whole. '' asks nothing while the number is still short.
 */
function phoneWords(phone: string): string {
  const digits = digitsOf(phone);
  return digits.length >= MIN_PHONE_DIGITS ? digits.slice(-3) : '';
}

/**
 * Said under a new contact being typed when the org already has a person with this
 * email or phone: "Zara Wang already has this email: use her?" One click uses her
 * instead of making a second Zara Wang.
 */
export function DuplicateOffer({ orgId, email, phone, onUse }: { orgId: number; email: string; phone: string; onUse: (contact: ContactRecordJson) => void }) {
  const byEmail = useContactSearch(orgId, emailWords(email), { limit: CANDIDATE_LIMIT });
  const byPhone = useContactSearch(orgId, phoneWords(phone), { limit: CANDIDATE_LIMIT });
  const duplicate = useMemo(() => findDuplicate([...(byEmail?.contacts ?? []), ...(byPhone?.contacts ?? [])], email, phone), [byEmail, byPhone, email, phone]);
  if (!duplicate) return null;
  const name = contactName(duplicate.contact);
  const pronoun = pronounsOf(duplicate.contact).object;
  return (
    <div className="duplicate-offer" role="status" data-testid="duplicate-offer">
      <span>
        {name} already has this {duplicate.matched}: use {pronoun}?
      </span>
      <button type="button" className="button button-primary" onClick={() => onUse(duplicate.contact)}>
        Use {name}
      </button>
    </div>
  );
}
