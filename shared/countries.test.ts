import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countryIso2OfNumeric, countryNumericCode, parseCountryReference } from './countries.ts';

test('ISO 3166 numeric codes and alpha-2 codes map both ways', () => {
  assert.equal(countryNumericCode('AU'), 36);
  assert.equal(countryNumericCode('us'), 840);
  assert.equal(countryNumericCode('GB'), 826);
  assert.equal(countryNumericCode('NZ'), 554);
  assert.equal(countryNumericCode('ZZ'), undefined);
  assert.equal(countryIso2OfNumeric(36), 'AU');
  assert.equal(countryIso2OfNumeric(276), 'DE');
  assert.equal(countryIso2OfNumeric(0), undefined);
});

test('a country reference: the numeric URL, the ISO2 URL, a bare code; null for anything else', () => {
  assert.equal(parseCountryReference('https://api.example.com/api/countries/36/'), 'AU');
  assert.equal(parseCountryReference('/api/countries/036'), 'AU');
  assert.equal(parseCountryReference('/api/countries/au/'), 'AU');
  assert.equal(parseCountryReference(840), 'US');
  assert.equal(parseCountryReference('NZ'), 'NZ');
  assert.equal(parseCountryReference('/api/countries/999/'), null);
  assert.equal(parseCountryReference('/api/roof_types/36/'), null);
  assert.equal(parseCountryReference(null), null);
});
