// The engine's design decoder (native-design-codec.ts): the same format and bound as
// shared/design-codec.ts, with Node's zlib.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeDesignNatively } from './native-design-codec.ts';
import { designBomb } from '../testing/design-bomb.ts';
import { DESIGN_TOO_LARGE_MESSAGE, encodeDesign, MAX_DESIGN_JSON_BYTES } from '../../../shared/design-codec.ts';

test('Node zlib decodes what the shared codec encodes, and refuses a design past the bound', () => {
  const design = { systems: [{ name: 'Ünïcødé ☀' }], values: Array.from({ length: 10_000 }, (_, i) => i) };
  assert.deepEqual(decodeDesignNatively(encodeDesign(design)), design);
  assert.throws(() => decodeDesignNatively(designBomb(Math.ceil(MAX_DESIGN_JSON_BYTES / (1024 * 1024)) + 4)), { message: DESIGN_TOO_LARGE_MESSAGE });
  assert.throws(() => decodeDesignNatively('not base64 gzip'), (error: unknown) => (error as Error).message !== DESIGN_TOO_LARGE_MESSAGE);
});
