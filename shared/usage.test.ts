// Usage pairs (shared/usage.ts): checked exactly, the annual figure derived.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { annualUsageOrGuess, describeUsageProblem } from './usage.ts';

test('usage pairs are checked exactly and the annual figure derived', () => {
  assert.equal(describeUsageProblem({ usage_data_source: 'kwh_monthly', values: Array(12).fill(1) }), null);
  assert.match(describeUsageProblem({ usage_data_source: 'kwh_monthly', values: Array(12).fill(1.5) })!, /12 non-negative integers/);
  assert.match(describeUsageProblem({ usage_data_source: 'nope', values: 1 })!, /must be one of/);
  assert.match(describeUsageProblem(null)!, /Expected an object/);
  assert.equal(annualUsageOrGuess({ usage_data_source: 'kwh_quarterly', values: [1, 2, 3, 4] }, true), 10);
  assert.equal(annualUsageOrGuess(null, true) < annualUsageOrGuess(null, false), true);
});
