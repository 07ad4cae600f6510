// `--stop-with-parent` (main/cli/stop-with-parent.ts): a server started with it stops
// when the process that started it is killed; one started without it keeps running
// (what a test file killed at its time limit used to leave behind). Real processes:
// a parent that starts `solardesk server`, then SIGKILL to that parent.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { repoRoot, solardeskBin } from '../../engine/testing/server-process.ts';
import { STOP_WITH_PARENT, waitForOutput } from '../../testing/child-process.ts';
import { STATE_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

const folders: string[] = [];
/** Servers this test made orphans of and that may still run: ended by their pid after the test. */
const orphans: number[] = [];
after(() => {
  for (const pid of orphans) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A parent process that starts `solardesk server` with `extraArgs` and passes on its
 * output; answers the server's pid once it listens, after killing the parent with SIGKILL.
 */
async function orphanedServer(extraArgs: string[]): Promise<number> {
  const dataDir = makeTempDir('solardesk-orphan-');
  folders.push(dataDir);
  const serverArgs = [solardeskBin, 'server', '--port', '0', '--data', dataDir, '--log-level', 'silent', ...extraArgs];
  const parentScript = `
    const server = require('node:child_process').spawn(process.execPath, ${JSON.stringify(serverArgs)}, { cwd: ${JSON.stringify(repoRoot)}, stdio: ['ignore', 'pipe', 'inherit'] });
    console.log('server pid ' + server.pid);
    server.stdout.pipe(process.stdout);`;
  const parent = spawn(process.execPath, ['-e', parentScript], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = Number(await waitForOutput(parent, /server pid (\d+)/));
  orphans.push(pid);
  await waitForOutput(parent, /(listening on \S+)/);
  const parentGone = new Promise((resolve) => parent.once('exit', resolve));
  parent.kill('SIGKILL');
  await parentGone;
  return pid;
}

test('a server started with --stop-with-parent stops when its parent is killed; one without it runs on', async () => {
  const [withOption, without] = await Promise.all([orphanedServer([STOP_WITH_PARENT]), orphanedServer([])]);
  const deadline = Date.now() + STATE_HANG_GUARD_MS;
  while (isRunning(withOption)) {
    if (Date.now() > deadline) assert.fail(`the server ${withOption} still runs ${STATE_HANG_GUARD_MS / 1000} s after its parent was killed`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The control, looked at after the first one stopped: a second or more after its parent's end, it still serves.
  assert.ok(isRunning(without), 'without the option the orphaned server keeps running (what tests used to leave behind)');
});
