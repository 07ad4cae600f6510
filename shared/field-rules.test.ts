import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contactFieldErrors, postalCodeWarning, projectFieldErrors } from './field-rules.ts';

test('latitude and longitude: numbers or numeric text on the globe, edges included; null allowed', () => {
  for (const lat of [-90, 90, 0, '-33.86', '90', null]) assert.deepEqual(projectFieldErrors({ lat }), {}, `lat ${String(lat)}`);
  for (const lon of [-180, 180, '151.21', '-180', null]) assert.deepEqual(projectFieldErrors({ lon }), {}, `lon ${String(lon)}`);
  assert.deepEqual(projectFieldErrors({ lat: 134 }), { lat: ['Latitude must be between -90 and 90.'] });
  assert.deepEqual(projectFieldErrors({ lat: '-134.5' }), { lat: ['Latitude must be between -90 and 90.'] });
  assert.deepEqual(projectFieldErrors({ lat: 90.0001 }), { lat: ['Latitude must be between -90 and 90.'] });
  assert.deepEqual(projectFieldErrors({ lon: -180.0001 }), { lon: ['Longitude must be between -180 and 180.'] });
  assert.deepEqual(projectFieldErrors({ lat: 'north', lon: '' }), {
    lat: ['Latitude must be a number, such as -33.86.'],
    lon: ['Longitude must be a number, such as 151.21.'],
  });
});

test('dates: a real calendar date as YYYY-MM-DD; null where the field allows it', () => {
  assert.deepEqual(projectFieldErrors({ sold_date: '2024-02-29', installation_date: null, contract_date: '2026-11-27', valid_until_date: '2027-01-31' }), {});
  assert.deepEqual(projectFieldErrors({ sold_date: '2025-02-29' }), { sold_date: ['Sold date must be a real date, such as 2026-03-31.'] });
  assert.deepEqual(projectFieldErrors({ installation_date: '27/11/2026' }), { installation_date: ['Installation date must be a real date, such as 2026-03-31.'] });
  assert.deepEqual(projectFieldErrors({ contract_date: 20261127 }), { contract_date: ['Contract date must be a real date, such as 2026-03-31.'] });
});

test('country codes: a known 2-letter code in any case', () => {
  assert.deepEqual(projectFieldErrors({ country_iso2: 'AU' }), {});
  assert.deepEqual(projectFieldErrors({ country_iso2: 'gb' }), {});
  assert.deepEqual(projectFieldErrors({ country_iso2: 'XX' }), { country_iso2: ['There is no country with this code: use its 2-letter ISO code, such as AU, US or GB.'] });
  assert.deepEqual(projectFieldErrors({ country_iso2: 'Australia' }), { country_iso2: ['Enter a 2-letter country code, such as AU, US or GB.'] });
});

test('counts: whole and not negative, as numbers or text; null where allowed', () => {
  assert.deepEqual(projectFieldErrors({ number_of_phases: '3', number_of_wires: 0, number_of_storeys: null, years_to_simulate: 25 }), {});
  assert.deepEqual(projectFieldErrors({ number_of_phases: 1.5 }), { number_of_phases: ['Number of phases must be a whole number, such as 2.'] });
  assert.deepEqual(projectFieldErrors({ number_of_storeys: '-1' }), { number_of_storeys: ['Number of storeys cannot be negative.'] });
  assert.deepEqual(projectFieldErrors({ years_to_simulate: null }), { years_to_simulate: ['This field may not be null.'] });
});

test('roof type: a URL of the catalogue, or null', () => {
  assert.deepEqual(projectFieldErrors({ roof_type: '/api/roof_types/19/' }), {});
  assert.deepEqual(projectFieldErrors({ roof_type: 'https://app.example/api/roof_types/24/' }), {});
  assert.deepEqual(projectFieldErrors({ roof_type: null }), {});
  assert.deepEqual(projectFieldErrors({ roof_type: '/api/roof_types/3/' }), { roof_type: ['Invalid hyperlink - Object does not exist.'] });
});

test('only the fields given are checked; fields without a rule are not looked at', () => {
  assert.deepEqual(projectFieldErrors({}), {});
  assert.deepEqual(projectFieldErrors({ notes: 'anything', zip: '50x45', is_residential: '1', title: 12 }), {});
  assert.deepEqual(projectFieldErrors({ lat: undefined }), {});
});

test('contacts: an email that is one, a real date of birth, gender 0, 1 or 2 (text "2" too)', () => {
  assert.deepEqual(contactFieldErrors({ email: 'zara@example.com', date_of_birth: '1990-12-10', gender: '2' }), {});
  assert.deepEqual(contactFieldErrors({ email: '', date_of_birth: null, gender: 0 }), {});
  assert.deepEqual(contactFieldErrors({ email: 'zara@', date_of_birth: '1990-12-32', gender: 3 }), {
    email: ['Enter a valid email address.'],
    date_of_birth: ['Date of birth must be a real date, such as 2026-03-31.'],
    gender: ['Gender must be 0 (not given), 1 (female) or 2 (male).'],
  });
  assert.deepEqual(contactFieldErrors({ gender: 'female' }), { gender: ['Gender must be 0 (not given), 1 (female) or 2 (male).'] });
});

test("a project's contacts_new: each contact is checked, and the messages are listed under contacts_new", () => {
  assert.deepEqual(projectFieldErrors({ contacts_new: [{ first_name: 'Zara', email: 'zara@example.com', gender: '2' }] }), {});
  assert.deepEqual(projectFieldErrors({ lat: 134, contacts_new: [{ email: 'fine@example.com' }, { email: 'bad@' }, { email: 'worse', gender: 9 }] }), {
    lat: ['Latitude must be between -90 and 90.'],
    contacts_new: ['Enter a valid email address.', 'Gender must be 0 (not given), 1 (female) or 2 (male).'],
  });
});

test('postal codes: a warning where the format is fixed, never for a good code, a blank one or an unknown format', () => {
  for (const [country, zip] of [['AU', '2000'], ['NZ', '6011'], ['US', '94103'], ['US', '94103-1234'], ['DE', '10115'], ['GB', 'SW1A 1AA'], ['gb', 'm1 1ae'], ['CA', 'K1A 0B1'], ['CA', 'k1a0b1'], ['NL', '1011 AB']] as const) {
    assert.equal(postalCodeWarning(country, zip), null, `${country} ${zip}`);
  }
  assert.equal(postalCodeWarning('AU', '50x45'), 'Postal codes in Australia are 4 digits, such as 2000: check "50x45" before it goes on a proposal.');
  assert.match(postalCodeWarning('US', '9410') ?? '', /^Postal codes in the United States are 5 digits/);
  assert.match(postalCodeWarning('GB', '12345') ?? '', /^Postal codes in the United Kingdom are like SW1A 1AA/);
  assert.match(postalCodeWarning('CA', '12345') ?? '', /^Postal codes in Canada/);
  assert.match(postalCodeWarning('NZ', '60111') ?? '', /^Postal codes in New Zealand/);
  assert.match(postalCodeWarning('DE', '1011') ?? '', /^Postal codes in Germany/);
  assert.equal(postalCodeWarning('AU', '  '), null);
  assert.equal(postalCodeWarning(null, '50x45'), null);
  assert.equal(postalCodeWarning('AQ', 'anything'), null, 'no fixed format known: no warning');
});
