import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countOf } from './words.ts';

test('a count reads as people write it', () => {
  assert.equal(countOf(1, 'facet'), '1 facet');
  assert.equal(countOf(2, 'facet'), '2 facets');
  assert.equal(countOf(0, 'system'), '0 systems');
  assert.equal(countOf(3, 'battery', 'batteries'), '3 batteries');
});
