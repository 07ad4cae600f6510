// `npm test`: runs every suite (lint, types, the node suite, the PostgreSQL suite, the
// hardening suite, Playwright), one after another, each as its own npm script, and
// always runs them all: a failing suite no longer hides the ones after it, as the
// old `a && b && c` chain did. It prints each suite's own output as it comes, then a
// table of every suite's counts and exit code, and the closing `N passed, N failed`
// line that CI reads. It exits non-zero when any suite did.
//
//   npm test                        every suite
//   npm test -- test:node lint      only the suites named (npm script names)
//
// A suite that ran no test (lint, types) or that failed without reporting a failed
// test (a crash, a timeout before the summary) counts as one failure, so the closing
// line never reads "0 failed" over a red run.
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { parseSuiteCountLine, type SuiteCounts } from './suite-counts.ts';

/** The suites, in the order they run: the quick checks first, the long browser suite last. */
const SUITES = ['lint', 'typecheck', 'test:node', 'test:postgres', 'test:hardening', 'test:e2e'] as const;

interface SuiteResult extends SuiteCounts {
  suite: string;
  exitCode: number;
  seconds: number;
}

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(SUITES as readonly string[]).includes(name));
if (unknown.length > 0) {
  console.error(`run-suites: no suite named ${unknown.join(', ')}; the suites are ${SUITES.join(', ')}`);
  process.exit(2);
}
const chosen = asked.length > 0 ? SUITES.filter((suite) => asked.includes(suite)) : [...SUITES];

let running: ChildProcess | undefined;
let stopping: NodeJS.Signals | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stopping ??= signal;
    running?.kill(signal);
  });
}

/** Runs one npm script with its output passed through, counting the runners' summary lines as they go by. */
function runSuite(suite: string): Promise<SuiteResult> {
  const started = Date.now();
  const counts: SuiteCounts = { passed: 0, failed: 0, skipped: 0, reported: false };
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', suite], { stdio: ['ignore', 'pipe', 'pipe'] });
    running = child;
    const follow = (stream: NodeJS.ReadableStream, sink: NodeJS.WritableStream) => {
      readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        sink.write(`${line}\n`);
        const found = parseSuiteCountLine(line);
        if (!found) return;
        counts[found.kind] += found.count;
        counts.reported = true;
      });
    };
    follow(child.stdout!, process.stdout);
    follow(child.stderr!, process.stderr);
    child.once('close', (code, signal) => {
      running = undefined;
      resolve({ suite, ...counts, exitCode: code ?? (signal ? 128 : 1), seconds: (Date.now() - started) / 1000 });
    });
  });
}

const results: SuiteResult[] = [];
for (const suite of chosen) {
  if (stopping) break;
  console.log(`\n== ${suite}`);
  results.push(await runSuite(suite));
}

const failedSuites = results.filter((result) => result.exitCode !== 0);
const unreportedFailures = failedSuites.filter((result) => result.failed === 0).length;
const passed = results.reduce((sum, result) => sum + result.passed, 0);
const failed = results.reduce((sum, result) => sum + result.failed, 0) + unreportedFailures;
const skipped = results.reduce((sum, result) => sum + result.skipped, 0);

const cell = (text: string | number, width: number) => String(text).padStart(width);
console.log(['', 'Suites', `${'suite'.padEnd(16)}${cell('passed', 8)}${cell('failed', 8)}${cell('skipped', 9)}${cell('exit', 6)}${cell('time', 8)}`]
  .concat(results.map((result) => `${result.suite.padEnd(16)}${cell(result.reported ? result.passed : '-', 8)}${cell(result.reported ? result.failed : '-', 8)}${cell(result.reported ? result.skipped : '-', 9)}${cell(result.exitCode, 6)}${cell(`${Math.round(result.seconds)} s`, 8)}`))
  .join('\n'));
if (stopping) console.log(`stopped by ${stopping} before ${chosen.slice(results.length).join(', ') || 'the end'}`);
if (failedSuites.length > 0) console.log(`failed: ${failedSuites.map((result) => result.suite).join(', ')}`);
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exitCode = failedSuites.length > 0 || stopping ? 1 : 0;
