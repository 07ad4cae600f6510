import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSuiteCountLine } from './suite-counts.ts';

test("node's test runner: the spec reporter's and TAP's summary lines", () => {
  assert.deepEqual(parseSuiteCountLine('ℹ pass 644'), { kind: 'passed', count: 644 });
  assert.deepEqual(parseSuiteCountLine('ℹ fail 2'), { kind: 'failed', count: 2 });
  assert.deepEqual(parseSuiteCountLine('# pass 12'), { kind: 'passed', count: 12 });
  assert.deepEqual(parseSuiteCountLine('# fail 0'), { kind: 'failed', count: 0 });
  assert.deepEqual(parseSuiteCountLine('ℹ skipped 3'), { kind: 'skipped', count: 3 });
  assert.deepEqual(parseSuiteCountLine('\u001b[34mℹ pass 7\u001b[39m'), { kind: 'passed', count: 7 }, 'colours stripped');
});

test("Playwright's list reporter: passed, failed, flaky (a failure) and skipped", () => {
  assert.deepEqual(parseSuiteCountLine('  41 passed (6.3m)'), { kind: 'passed', count: 41 });
  assert.deepEqual(parseSuiteCountLine('  1 failed'), { kind: 'failed', count: 1 });
  assert.deepEqual(parseSuiteCountLine('  2 flaky'), { kind: 'failed', count: 2 });
  assert.deepEqual(parseSuiteCountLine('  4 skipped'), { kind: 'skipped', count: 4 });
});

test('other lines, including ones that merely mention counts, are not summaries', () => {
  for (const line of ['ℹ tests 646', 'ℹ suites 80', '# pass', 'ok 1 - 2 passed', 'the server passed 2 checks', '12 passed, 0 failed', 'not ok 3 - fail 2']) {
    assert.equal(parseSuiteCountLine(line), null, line);
  }
});
