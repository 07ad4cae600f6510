// The one backoff rule (shared/backoff.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelayMs } from './backoff.ts';

test('waits grow by the factor from the first delay and stop at the cap', () => {
  const doubling = { firstDelayMs: 1_000, factor: 2, maxDelayMs: 5_000 };
  assert.deepEqual([1, 2, 3, 4, 5].map((retry) => backoffDelayMs(doubling, retry)), [1_000, 2_000, 4_000, 5_000, 5_000]);
  const quadrupling = { firstDelayMs: 5_000, factor: 4, maxDelayMs: 6 * 60 * 60_000 };
  assert.deepEqual([1, 2, 3, 8, 9].map((retry) => backoffDelayMs(quadrupling, retry)), [5_000, 20_000, 80_000, 6 * 60 * 60_000, 6 * 60 * 60_000]);
  // A retry count of 0 (nothing has failed yet) waits the first delay, never less.
  assert.equal(backoffDelayMs(doubling, 0), 1_000);
  // A long run of failures stays at the cap instead of overflowing.
  assert.equal(backoffDelayMs(doubling, 5_000), 5_000);
});

test('jitter spreads a wait by its fraction either way, in whole milliseconds', () => {
  const jittered = { firstDelayMs: 5_000, factor: 2, maxDelayMs: 60_000, jitter: 0.3 };
  assert.deepEqual([0, 0.5, 1].map((random) => backoffDelayMs(jittered, 1, () => random)), [3_500, 5_000, 6_500]);
  assert.equal(backoffDelayMs(jittered, 10, () => 1), 78_000);
  assert.equal(backoffDelayMs({ ...jittered, firstDelayMs: 1 }, 1, () => 0.1), 1);
  // Without jitter the random source is not consulted.
  assert.equal(backoffDelayMs({ firstDelayMs: 5_000, factor: 2, maxDelayMs: 60_000 }, 1, () => assert.fail('no jitter asked for')), 5_000);
});
