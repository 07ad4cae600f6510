// The design codec (shared/design-codec.ts): base64(gzip(JSON)), readable by Node's zlib.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync, gunzipSync } from 'node:zlib';
import { decodeDesign, decodeDesignStreaming, DESIGN_TOO_LARGE_MESSAGE, DesignTooLargeError, encodeDesign, MAX_DESIGN_JSON_BYTES } from './design-codec.ts';
import { designBomb } from '../main/engine/testing/design-bomb.ts';

test('the design codec is base64(gzip(JSON)) and interoperates with node zlib', () => {
  const design = { site: { name: 'Ünïcødé roof ☀' }, values: Array.from({ length: 50_000 }, (_, i) => i) };
  const encoded = encodeDesign(design);
  assert.match(encoded, /^H4sI/);
  assert.deepEqual(JSON.parse(gunzipSync(Buffer.from(encoded, 'base64')).toString('utf8')), design);
  const fromNode = gzipSync(Buffer.from(JSON.stringify(design))).toString('base64');
  assert.deepEqual(decodeDesign(fromNode), design);
  assert.throws(() => decodeDesign('not base64 gzip'));
});

// Issue 36: a design inflates no further than its bound, however it is made.
const MEGABYTE = 1024 * 1024;
/** One gzip member of `megabytes` MB of JSON, its trailer's size rewritten to `statedSize`, as a lying design would. */
function oneMemberBomb(megabytes: number, statedSize?: number): string {
  const gzipped = gzipSync(Buffer.concat([Buffer.from('{"systems":[],"padding":"'), Buffer.alloc(megabytes * MEGABYTE, 'a'), Buffer.from('"}')]), { level: 9 });
  if (statedSize !== undefined) gzipped.writeUInt32LE(statedSize, gzipped.length - 4);
  return gzipped.toString('base64');
}

test('a design past the bound is refused with a clear error, without inflating past it', () => {
  const refusal = (error: unknown) => error instanceof DesignTooLargeError && error.message === DESIGN_TOO_LARGE_MESSAGE && /too large to open here/.test(error.message);
  // An honest trailer: refused before inflating.
  assert.throws(() => decodeDesign(oneMemberBomb(3), 2 * MEGABYTE), refusal);
  // A trailer that lies (says 100 bytes): refused by counting what inflates.
  assert.throws(() => decodeDesign(oneMemberBomb(3, 100), 2 * MEGABYTE), refusal);
  // Many members (the trailer gives only the last one's size), at the real bound.
  assert.throws(() => decodeDesign(designBomb(Math.ceil(MAX_DESIGN_JSON_BYTES / MEGABYTE) + 4)), refusal);
  // Within the bound it decodes as before.
  assert.equal(decodeDesign<{ padding: string }>(oneMemberBomb(1), 2 * MEGABYTE).padding.length, MEGABYTE);
  // Not gzip at all is still "cannot be read", not "too large".
  assert.throws(() => decodeDesign(Buffer.alloc(64, 0xff).toString('base64')), (error: unknown) => !(error instanceof DesignTooLargeError));
});

test('the streaming decoder (the renderer worker\'s) reads what the codec writes and refuses past the bound, one member or many', async () => {
  const design = { systems: [{ name: 'Ünïcødé ☀' }], values: Array.from({ length: 10_000 }, (_, i) => i) };
  assert.deepEqual(await decodeDesignStreaming(encodeDesign(design)), design);
  const tooLarge = { name: 'DesignTooLargeError', message: DESIGN_TOO_LARGE_MESSAGE };
  await assert.rejects(decodeDesignStreaming(oneMemberBomb(3, 100), 2 * MEGABYTE), tooLarge);
  await assert.rejects(decodeDesignStreaming(designBomb(3), 2 * MEGABYTE), tooLarge);
  await assert.rejects(decodeDesignStreaming('not base64 gzip'), (error: unknown) => !(error instanceof DesignTooLargeError));
});
