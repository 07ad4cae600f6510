// `solardesk web` and `solardesk start` as a user runs them: real processes, a
// real port, real signals. Where Electron cannot run (here: no display, no
// binary), start says why in one line and serves browser mode instead.
import { after, afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { repoRoot, solardeskBin } from '../../engine/testing/server-process.ts';
import { BRIDGE_HTTP } from '../../../shared/bridge-http.ts';
import { STOP_WITH_PARENT, stopChild, waitForOutput } from '../../testing/child-process.ts';

/** Every process a test launched: stopped after each test, so one that failed half way never holds the data folder for the next. */
const launched: ChildProcess[] = [];

function launch(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(process.execPath, [solardeskBin, STOP_WITH_PARENT, ...args], { cwd: repoRoot, env });
  launched.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return { url: waitForOutput(child, /SolarDesk is running at (\S+)/), stop: () => stopChild(child), stderr: () => stderr };
}

describe('solardesk web and start', () => {
  const dataDir = makeTempDir('solardesk-web-cli-');
  afterEach(async () => {
    await Promise.all(launched.splice(0).map((child) => stopChild(child)));
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('web serves the app behind its secret and stops cleanly on SIGTERM', async () => {
    const web = launch(['web', '--port', '0', '--data', dataDir, '--folder-root', `${dataDir}/folders`]);
    const url = new URL(await web.url);
    const page = await fetch(url.origin + '/');
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<div id="root">/);
    assert.ok(page.headers.get('content-security-policy'));
    assert.equal((await fetch(`${url.origin}${BRIDGE_HTTP.invokePath}`, { method: 'POST', body: '{}' })).status, 401);
    const secret = new URLSearchParams(url.hash.slice(1)).get('secret')!;
    const session = await fetch(`${url.origin}${BRIDGE_HTTP.invokePath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [BRIDGE_HTTP.secretHeader]: secret },
      body: JSON.stringify({ channel: 'session.get' }),
    });
    assert.equal(((await session.json()) as { response: { orgName: string } }).response.orgName, 'Sunrise Solar');
    assert.equal(await web.stop(), 0);
  });

  test('start says in one line why the desktop app cannot open here, and runs browser mode instead', async () => {
    // No display and no Electron binary: both reasons lead to browser mode.
    const { DISPLAY: _display, WAYLAND_DISPLAY: _wayland, ...withoutDisplay } = process.env;
    const start = launch(['start', '--port', '0', '--data', dataDir], withoutDisplay);
    await start.url;
    const reasons = start.stderr().split('\n').filter((line) => line.includes('cannot open here'));
    assert.equal(reasons.length, 1);
    assert.match(reasons[0]!, /^SolarDesk: the desktop app cannot open here: .+\. Running SolarDesk in your browser instead\.$/);
    assert.equal(await start.stop(), 0);
  });

  test('bad options are refused with the help', async () => {
    const web = launch(['web', '--sync-interval', 'soon', '--data', dataDir]);
    await assert.rejects(web.url, /--sync-interval takes a positive number of seconds/);
  });
});
