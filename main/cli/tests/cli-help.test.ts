// `solardesk --help` on every command and subcommand, as a user runs it. In a file of
// its own: each call is a process that loads the command's modules through tsx (seconds
// of CPU each), and inside cli.test.ts these ten calls, one after another, took half of
// that file's time bound on a loaded machine. Here they run side by side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { repoRoot, solardeskBin } from '../../engine/testing/server-process.ts';
import { PROCESS_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

/** `solardesk ARGS`: its exit code and output (a non-zero exit is an answer here, not an error). */
function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [solardeskBin, ...args], { encoding: 'utf8', cwd: repoRoot, timeout: PROCESS_HANG_GUARD_MS }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

test('--help works on every command and subcommand; an unknown option exits 2 naming it', async () => {
  const helps = [['--help'], ['server', '--help'], ['start', '--help'], ['admin', '--help'],
    ...['create-org', 'create-user', 'add-member', 'set-plan', 'issue-token', 'show'].map((name) => ['admin', name, '--help'])];
  const [unknown, ...answers] = await Promise.all([run(['server', '--bogus']), ...helps.map(run)]);
  answers.forEach((result, index) => {
    const args = helps[index]!.join(' ');
    assert.equal(result.status, 0, `${args}: ${result.stderr}`);
    assert.match(result.stdout, /Usage: solardesk/, args);
  });
  assert.equal(unknown!.status, 2);
  assert.match(unknown!.stderr, /bogus/);
});
