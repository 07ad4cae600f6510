import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withLastCharacterChanged } from './tamper.ts';

test('the changed text always differs, whatever its last character was', () => {
  for (const text of ['tokenx', 'tokenA', 'tokenB', 'A', 'abc-_', 'ends in a space ']) {
    const changed = withLastCharacterChanged(text);
    assert.notEqual(changed, text);
    assert.equal(changed.length, text.length);
    assert.equal(changed.slice(0, -1), text.slice(0, -1), 'only the last character changes');
  }
  assert.throws(() => withLastCharacterChanged(''));
});
