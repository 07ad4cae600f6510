// The project editor's field checks in people's words (issue 28, item 7): the
// framework's "A valid integer is required." becomes what to type, and clearing a
// number the project must have goes back to its usual value instead of an error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WRITABLE_PLAIN_FIELDS } from '../../shared/project-fields.ts';
import { checkPlainField } from '../src/project/field-validation.ts';

test('a number that is not one is explained as what to type', () => {
  assert.deepEqual(checkPlainField('priority', 'high'), { ok: false, message: 'Type a whole number, such as 2.' });
  assert.deepEqual(checkPlainField('priority', '2.5'), { ok: false, message: 'Type a whole number, such as 2.' });
  assert.deepEqual(checkPlainField('timezone_offset', 'east'), { ok: false, message: 'Type a number, such as 2.5.' });
});

test('clearing a number the project must have saves its usual value', () => {
  assert.deepEqual(checkPlainField('priority', ''), { ok: true, value: WRITABLE_PLAIN_FIELDS.priority.default });
  assert.deepEqual(checkPlainField('years_to_simulate', '  '), { ok: true, value: WRITABLE_PLAIN_FIELDS.years_to_simulate.default });
});

test('good values pass as they are, and other messages are kept', () => {
  assert.deepEqual(checkPlainField('priority', '3'), { ok: true, value: 3 });
  const lat = checkPlainField('lat', '134');
  assert.equal(lat.ok, false);
  assert.doesNotMatch((lat as { message: string }).message, /valid (integer|number) is required/);
});
