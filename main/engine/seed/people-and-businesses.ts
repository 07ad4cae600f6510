// Who demo projects are for: customers' names, emails, phone numbers (from the
// ranges reserved for fiction) and birth dates, and the names of the businesses
// behind commercial projects.
import type { Country } from './country-economics.ts';
import type { Locality } from './localities-and-addresses.ts';
import type { Rng } from './seeded-random.ts';
import { DAY_MS, isoDate } from './seed-math.ts';

export interface GeneratedContact {
  first_name: string;
  family_name: string;
  email: string;
  phone: string;
  date_of_birth: string | null;
  /** 0 = unset, 1 = female, 2 = male (service.md 2.1, contact record). */
  gender: 0 | 1 | 2;
}

const FIRST_NAMES: ReadonlyArray<readonly [string, 1 | 2]> = [
  ['Olivia', 1], ['Liam', 2], ['Charlotte', 1], ['Noah', 2], ['Amelia', 1], ['Jack', 2], ['Isla', 1], ['William', 2],
  ['Mia', 1], ['Oliver', 2], ['Priya', 1], ['Arjun', 2], ['Mei', 1], ['Wei', 2], ['Sofia', 1], ['Mateo', 2],
  ['Aisha', 1], ['Omar', 2], ['Chloe', 1], ['Lachlan', 2], ['Grace', 1], ['Ethan', 2], ['Hannah', 1], ['Lucas', 2],
  ['Zara', 1], ['Daniel', 2], ['Emily', 1], ['James', 2], ['Ava', 1], ['Tomás', 2],
];
const FAMILY_NAMES: readonly string[] = [
  'Smith', 'Nguyen', 'Williams', 'Brown', 'Patel', 'Chen', 'Kelly', 'Wilson', 'Taylor', 'Garcia',
  'Martinez', "O'Brien", 'Singh', 'Kim', 'Rossi', 'Murphy', 'Walker', 'Johnson', 'Anderson', 'Thompson',
  'Lee', 'Wang', 'Hughes', 'Campbell', 'Ramirez', 'Cohen', 'Nakamura', 'Kowalski', 'Papadopoulos', 'Okafor',
];
const EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org'] as const;

const BUSINESS_PREFIXES = ['Harbourside', 'Greenfield', 'Northside', 'Riverbend', 'Summit', 'Bayview', 'Ironbark', 'Lakeside', 'Redgum', 'Westgate'];
const BUSINESS_KINDS = ['Dental', 'Bakery', 'Physiotherapy', 'Self Storage', 'Motors', 'Veterinary Clinic', 'Brewing Co', 'Joinery', 'Early Learning', 'Cold Storage', 'Printing', 'Fitness'];
const BUSINESS_SUFFIXES: Record<Country, readonly string[]> = { AU: ['Pty Ltd', 'Pty Ltd', ''], US: ['LLC', 'Inc.', ''] };

const EMAIL_SAFE = /[^a-z]/g;
const emailPart = (name: string): string => name.toLowerCase().normalize('NFD').replace(EMAIL_SAFE, '');

export function generateContact(rng: Rng, country: Country, locality: Locality, familyName: string | null): GeneratedContact {
  const [first, gender] = rng.pick(FIRST_NAMES);
  const family = familyName ?? rng.pick(FAMILY_NAMES);
  const local = rng.chance(0.6) ? `${emailPart(first)}.${emailPart(family)}` : `${emailPart(first)}${emailPart(family).slice(0, 1)}${rng.int(1, 99)}`;
  const phone = country === 'AU' ? `0491 57${rng.int(0, 9)} ${rng.digits(3)}` : `(${locality.area_code}) 555-01${rng.digits(2)}`;
  const birthMs = Date.UTC(1950, 0, 1) + rng.int(0, 45 * 365) * DAY_MS;
  return {
    first_name: first,
    family_name: family,
    email: `${local}@${rng.pick(EMAIL_DOMAINS)}`,
    phone,
    date_of_birth: rng.chance(0.4) ? isoDate(birthMs) : null,
    gender: rng.chance(0.4) ? 0 : gender,
  };
}

export function businessName(rng: Rng, country: Country): string {
  const suffix = rng.pick(BUSINESS_SUFFIXES[country]);
  return [rng.pick(BUSINESS_PREFIXES), rng.pick(BUSINESS_KINDS), suffix].filter(Boolean).join(' ');
}
