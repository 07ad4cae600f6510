import { test } from 'node:test';
import assert from 'node:assert/strict';
import { searchTerms } from './search-terms.ts';

test('words are split on spaces and commas; empty pieces are dropped', () => {
  assert.deepEqual(searchTerms('Waratah Glenelg'), ['Waratah', 'Glenelg']);
  assert.deepEqual(searchTerms('  Smith,  John ,,Glenelg\t'), ['Smith', 'John', 'Glenelg']);
  assert.deepEqual(searchTerms(''), []);
  assert.deepEqual(searchTerms(' , '), []);
});

test('a quoted phrase standing as a word is one term without its quotes', () => {
  assert.deepEqual(searchTerms('"Waratah Avenue" Glenelg'), ['Waratah Avenue', 'Glenelg']);
  assert.deepEqual(searchTerms("'Sandy Bay', Taylor"), ['Sandy Bay', 'Taylor']);
  assert.deepEqual(searchTerms('""'), []);
});

test('quotes inside a word, or left open, are text like any other', () => {
  assert.deepEqual(searchTerms("O'Brien residence"), ["O'Brien", 'residence']);
  assert.deepEqual(searchTerms('"unclosed phrase'), ['"unclosed', 'phrase']);
  assert.deepEqual(searchTerms("'); DROP"), ["');", 'DROP']);
  assert.deepEqual(searchTerms('100% Solar_Co'), ['100%', 'Solar_Co']);
});
