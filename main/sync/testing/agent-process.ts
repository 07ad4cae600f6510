// `solardesk agent` as a separate process, for tests that kill it.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot, solardeskBin } from '../../engine/testing/server-process.ts';
import { PROCESS_HANG_GUARD_MS } from '../../testing/hang-guards.ts';
import { STOP_WITH_PARENT } from '../../testing/child-process.ts';

export interface AgentProcess {
  child: ChildProcess;
  localApiUrl: string;
  token: string;
  output: () => string;
}

export async function startAgentProcess(args: string[], stdin?: string): Promise<AgentProcess> {
  const child = spawn(process.execPath, [solardeskBin, 'agent', STOP_WITH_PARENT, ...args], { cwd: repoRoot });
  let output = '';
  child.stderr!.on('data', (chunk) => (output += chunk));
  if (stdin !== undefined) child.stdin!.end(stdin);
  else child.stdin!.end();
  const localApiUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`agent did not start: ${output}`)), PROCESS_HANG_GUARD_MS);
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /^local api on (http:\/\/\S+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`agent exited with ${code}: ${output}`));
    });
  });
  const dataDir = args[args.indexOf('--data') + 1]!;
  const token = fs.readFileSync(path.join(dataDir, 'local-api-token'), 'utf8').trim();
  return { child, localApiUrl, token, output: () => output };
}

export function killAgent(agent: AgentProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  return new Promise((resolve) => {
    if (agent.child.exitCode !== null || agent.child.signalCode !== null) return resolve();
    agent.child.once('exit', () => resolve());
    agent.child.kill(signal);
  });
}
