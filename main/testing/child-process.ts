// A command started as a child process, as the e2e suite, the benchmark and the
// CLI tests run SolarDesk: wait for the line that says it is ready, stop it with
// a real signal.
import type { ChildProcess } from 'node:child_process';
import { PROCESS_HANG_GUARD_MS } from './hang-guards.ts';

/**
 * The `solardesk` option every helper starts SolarDesk with (main/cli/stop-with-parent.ts):
 * the process stops when the test process that started it ends, so a test file killed
 * at its time limit leaves no server or agent running. main/cli/tests/stop-with-parent.test.ts
 * starts a server with this spelling, so the two cannot drift apart.
 */
export const STOP_WITH_PARENT = '--stop-with-parent';

/** Resolves with the first capture group of `pattern` in stdout; rejects on exit or timeout, with what it printed. */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs = PROCESS_HANG_GUARD_MS): Promise<string> {
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs / 1000} s:\n${output}`)), timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk;
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ${pattern}:\n${output}`));
    });
  });
}

/** Sends the signal (unless it already ended) and resolves with the exit code, null when a signal ended it. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}
