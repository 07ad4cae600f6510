import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareNatural, naturalSortKey } from './natural-sort.ts';

test('numbers sort as numbers, wherever they are in the title', () => {
  const titles = ['249 Hill Avenue', 'Unit 10', '75 Macquarie Crescent', 'Unit 9', '1000 Ocean Road', '8 Beach Street', 'Unit 9a'];
  assert.deepEqual([...titles].sort(compareNatural), ['8 Beach Street', '75 Macquarie Crescent', '249 Hill Avenue', '1000 Ocean Road', 'Unit 9', 'Unit 9a', 'Unit 10']);
});

test('case and accents do not split the alphabet; leading zeros do not count', () => {
  const titles = ['zebra', 'Émile', 'apple', 'Eve', 'Banana'];
  assert.deepEqual([...titles].sort(compareNatural), ['apple', 'Banana', 'Émile', 'Eve', 'zebra']);
  assert.equal(naturalSortKey('Lot 007'), naturalSortKey('lot 7'));
  assert.equal(compareNatural('Lot 007', 'Lot 7') !== 0, true, 'equal keys still have one order');
});

test('the key compares the same bytewise as by code unit (how both stores compare it)', () => {
  const titles = ['75 Macquarie', '249 Hill', 'Ärger 2', 'arger 10', 'Nguyen residence', '9', ''];
  const byCodeUnit = [...titles].sort((a, b) => (naturalSortKey(a) < naturalSortKey(b) ? -1 : naturalSortKey(a) > naturalSortKey(b) ? 1 : 0));
  const byBytes = [...titles].sort((a, b) => Buffer.compare(Buffer.from(naturalSortKey(a)), Buffer.from(naturalSortKey(b))));
  assert.deepEqual(byBytes, byCodeUnit);
  assert.deepEqual(byCodeUnit, ['', '9', '75 Macquarie', '249 Hill', 'Ärger 2', 'arger 10', 'Nguyen residence']);
});
