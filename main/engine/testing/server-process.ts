// `solardesk server` as a separate process, for tests that need real signals
// (SIGTERM, SIGKILL) and restarts on the same data folder.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withTestDatabase } from './test-database.ts';
import { PROCESS_HANG_GUARD_MS } from '../../testing/hang-guards.ts';
import { STOP_WITH_PARENT } from '../../testing/child-process.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const solardeskBin = path.join(repoRoot, 'main/solardesk.js');

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  stderr: () => string;
}

/**
 * Starts `solardesk server` with `args`. When the suite runs on PostgreSQL and the
 * args name a data folder but no --database, the folder's test schema is added.
 */
export async function startServerProcess(args: string[]): Promise<ServerProcess> {
  const fullArgs = [solardeskBin, 'server', '--port', '0', '--log-level', 'silent', STOP_WITH_PARENT, ...withTestDatabase(args)];
  // SOLARDESK_PROFILE_DIR: each server writes a V8 CPU profile there when it stops (docs/benchmarks.md, "Profiles").
  const profile = process.env.SOLARDESK_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SOLARDESK_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, ...fullArgs], { cwd: repoRoot });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running behind a test that has given up on it.
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${PROCESS_HANG_GUARD_MS / 1000} s: ${stderr}`));
    }, PROCESS_HANG_GUARD_MS);
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const match = /^listening on (http:\/\/\S+)$/m.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${stderr}`));
    });
  });
  return { child, baseUrl, stderr: () => stderr };
}

/** How long a server may take to stop on SIGTERM before a test kills it (a graceful stop finishes requests in flight). */
const GRACEFUL_STOP_MS = 20_000;

/**
 * Sends the signal and resolves with the exit code (null when killed by a signal).
 * A server still running GRACEFUL_STOP_MS after a SIGTERM is killed, saying so with
 * its last output, so a stop that hangs fails (or shows) at once instead of holding
 * the test file until its timeout.
 */
export function stopServerProcess(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) return resolve(server.child.exitCode);
    const overdue = setTimeout(() => {
      console.error(`the server at ${server.baseUrl} did not stop within ${GRACEFUL_STOP_MS} ms of ${signal}; killing it. Its last output:\n${server.stderr().slice(-2000)}`);
      server.child.kill('SIGKILL');
    }, GRACEFUL_STOP_MS);
    server.child.once('exit', (code) => {
      clearTimeout(overdue);
      resolve(code);
    });
    server.child.kill(signal);
  });
}

export async function signIn(baseUrl: string, username: string, password: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api-token-auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (response.status !== 200) throw new Error(`sign-in as ${username} failed: ${response.status}`);
  return ((await response.json()) as { token: string }).token;
}
