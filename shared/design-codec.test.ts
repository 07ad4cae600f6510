// The design codec (shared/design-codec.ts): base64(gzip(JSON)), readable by Node's zlib.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync, gunzipSync } from 'node:zlib';
import { decodeDesign, encodeDesign } from './design-codec.ts';

test('the design codec is base64(gzip(JSON)) and interoperates with node zlib', () => {
  const design = { site: { name: 'Ünïcødé roof ☀' }, values: Array.from({ length: 50_000 }, (_, i) => i) };
  const encoded = encodeDesign(design);
  assert.match(encoded, /^H4sI/);
  assert.deepEqual(JSON.parse(gunzipSync(Buffer.from(encoded, 'base64')).toString('utf8')), design);
  const fromNode = gzipSync(Buffer.from(JSON.stringify(design))).toString('base64');
  assert.deepEqual(decodeDesign(fromNode), design);
  assert.throws(() => decodeDesign('not base64 gzip'));
});
