// A Node process that prints `listening on http://...` when it is ready (the
// `solardesk server` command, the benchmarks' bare server), with all it writes kept.
import { spawn, type ChildProcess } from 'node:child_process';

export interface ListeningProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
}

export async function spawnListening(nodeArgs: string[], options: { cwd?: string; what: string }): Promise<ListeningProcess> {
  const child = spawn(process.execPath, nodeArgs, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.what} did not start: ${output}`)), 60_000);
    const onData = () => {
      const match = /^listening on (http:\/\/\S+)$/m.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      resolve(match[1]!);
    };
    child.stdout.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${options.what} exited (${code ?? signal}) before listening: ${output}`));
    });
  });
  return { child, baseUrl, output: () => output };
}

/** Sends the signal (once) and resolves with the exit code (null when a signal ended it). */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}
