// How the app names a contact and speaks of her, and which existing contact a new
// one duplicates: plain functions (no React, no API), shared by the Contacts
// screen, a project's Contacts tab and the New-project form.
import type { ContactJson } from '../../../shared/schemas/contact.ts';

/** "Zara Wang", or her email when both names are blank. */
export function contactName(contact: ContactJson): string {
  return contact.display || [contact.first_name, contact.family_name].filter(Boolean).join(' ') || contact.email || `Contact ${contact.id}`;
}

/** "zara@example.com · 0412 345 678", what tells two people of one name apart. */
export function contactLine(contact: ContactJson): string {
  // A phone number is read as one thing: its spaces do not break a line ("0491 / 571 610").
  return [contact.email, contact.phone?.replace(/ /g, '\u00a0')].filter(Boolean).join(' · ');
}

/** How to speak of a contact, by her `gender` (0 not given, 1 female, 2 male). */
export function pronounsOf(contact: ContactJson): { subject: 'She' | 'He' | 'They'; object: 'her' | 'him' | 'them' } {
  if (contact.gender === 1) return { subject: 'She', object: 'her' };
  if (contact.gender === 2) return { subject: 'He', object: 'him' };
  return { subject: 'They', object: 'them' };
}

/** Enough digits to be a phone number rather than a fragment typed so far. */
export const MIN_PHONE_DIGITS = 6;

export const digitsOf = (phone: string) => phone.replace(/\D/g, '');

/**
 * The existing contact a new one duplicates: the same email (letter case and
 * spaces aside) or else the same phone number (spaces and punctuation aside), with
 * which of the two matched; null when none does.
 */
export function findDuplicate<Contact extends ContactJson>(candidates: readonly Contact[], email: string, phone: string): { contact: Contact; matched: 'email' | 'phone' } | null {
  const wantedEmail = email.trim().toLowerCase();
  const wantedDigits = digitsOf(phone);
  for (const contact of candidates) {
    if (wantedEmail !== '' && contact.email.trim().toLowerCase() === wantedEmail) return { contact, matched: 'email' };
  }
  if (wantedDigits.length < MIN_PHONE_DIGITS) return null;
  for (const contact of candidates) {
    if (digitsOf(contact.phone) === wantedDigits) return { contact, matched: 'phone' };
  }
  return null;
}

/** "A", "A and B", "A, B and C". */
function listed(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** What a delete asks: who, and the projects (by title) she will be taken off. */
export function deleteQuestion(contact: ContactJson, projectTitles: readonly string[]): string {
  const { subject } = pronounsOf(contact);
  const verb = subject === 'They' ? 'are' : 'is';
  if (projectTitles.length === 0) return `Delete ${contactName(contact)}? ${subject} ${verb} on no project. This cannot be undone.`;
  const count = projectTitles.length === 1 ? 'one project' : `${projectTitles.length} projects`;
  return `Delete ${contactName(contact)}? ${subject} ${verb} on ${count}: ${listed(projectTitles.map((title) => `“${title}”`))}, and will be taken off ${projectTitles.length === 1 ? 'it' : 'them'}. This cannot be undone.`;
}
