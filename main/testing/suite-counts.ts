// Reads the summary lines of the two test runners `npm test` drives, so the closing
// line adds up every suite: node's test runner (`ℹ pass 12` from the spec reporter,
// `# pass 12` from TAP, which it uses when its output is not a terminal) and
// Playwright's list reporter (`  12 passed (1.2m)`, `  1 failed`, `  2 skipped`).

export interface SuiteCounts {
  passed: number;
  failed: number;
  skipped: number;
  /** Whether the suite printed any summary line at all (lint and types print none). */
  reported: boolean;
}

export interface CountLine {
  kind: 'passed' | 'failed' | 'skipped';
  count: number;
}

// Colours are stripped first: Playwright and the spec reporter colour their summaries on a terminal.
// eslint-disable-next-line no-control-regex -- the escape character is exactly what is matched
const ANSI_ESCAPE = /\u001b\[[0-9;]*m/g;
const NODE_RUNNER = /^(?:ℹ|#) (pass|fail|skipped) (\d+)$/;
const PLAYWRIGHT = /^\s*(\d+) (passed|failed|flaky|skipped)(?: \(.*\))?$/;

const NODE_KINDS = { pass: 'passed', fail: 'failed', skipped: 'skipped' } as const;
// A flaky test failed and then passed on a retry: counted as failed, since `npm test`
// must not pass by chance (issue 33), and Playwright is set to retry nothing anyway.
const PLAYWRIGHT_KINDS = { passed: 'passed', failed: 'failed', flaky: 'failed', skipped: 'skipped' } as const;

/** The count a runner's summary line states, or null for any other line. */
export function parseSuiteCountLine(line: string): CountLine | null {
  const plain = line.replace(ANSI_ESCAPE, '').trimEnd();
  const node = NODE_RUNNER.exec(plain);
  if (node) return { kind: NODE_KINDS[node[1] as keyof typeof NODE_KINDS], count: Number(node[2]) };
  const playwright = PLAYWRIGHT.exec(plain);
  if (playwright) return { kind: PLAYWRIGHT_KINDS[playwright[2] as keyof typeof PLAYWRIGHT_KINDS], count: Number(playwright[1]) };
  return null;
}
