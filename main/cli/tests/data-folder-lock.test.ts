// One process per data folder (docs/store.md): a second server or agent started on
// a folder in use refuses to start, naming the first, before it touches anything;
// a process killed with SIGKILL leaves nothing that blocks the next start. Real
// processes, a real port, real signals.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { makeTempDir, requestJson } from '../../engine/testing/test-server.ts';
import { signIn, startServerProcess, stopServerProcess, type ServerProcess } from '../../engine/testing/server-process.ts';
import { download, eventually, filesBelow } from '../../engine/testing/file-testing.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { killAgent, startAgentProcess, type AgentProcess } from '../../sync/testing/agent-process.ts';
import { syncPaths } from '../../../shared/api-paths.ts';

/**
 * Starts a process that should refuse to start, and returns why it did (its error,
 * which carries its exit code and output). One that starts after all is stopped and
 * the test fails.
 */
async function expectRefusal<T>(start: () => Promise<T>, stop: (started: T) => Promise<unknown>, what: string): Promise<string> {
  const outcome = await start().then(
    (started) => ({ started }),
    (error: Error) => ({ error }),
  );
  if ('started' in outcome) {
    await stop(outcome.started);
    assert.fail(`${what} started on a data folder in use`);
  }
  return outcome.error.message;
}

describe('one process per data folder', () => {
  const root = makeTempDir('solardesk-lock-');
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  test('a second server on the same data folder exits 1 naming the first; the first one\'s upload in progress then completes', async () => {
    const dataDir = path.join(root, 'server');
    const first = await startServerProcess(['--data', dataDir, '--seed', 'demo']);
    let part: http.ClientRequest | undefined;
    try {
      const token = await signIn(first.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
      const uploadsPath = '/api/orgs/1/private_files/uploads/';
      const started = await requestJson(first.baseUrl, 'POST', uploadsPath, { token, body: { filename: 'survey.bin' } });
      assert.equal(started.status, 201, started.text);
      const uploadId = started.json.upload_id as string;

      // Part 1 is in flight: half its bytes sent, streaming into a temp file, which
      // is what a start that took the folder for its own would sweep as a crash leftover.
      const bytes = randomBytes(1024 * 1024);
      part = http.request(`${first.baseUrl}${uploadsPath}${uploadId}/parts/1/`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) },
      });
      const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
        part!.on('response', (response) => {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        });
        part!.on('error', reject);
      });
      answered.catch(() => {}); // awaited below; the hang-up of a test that failed first is not its error
      part.write(bytes.subarray(0, bytes.length / 2));
      await eventually(() => filesBelow(path.join(dataDir, 'tmp')).length > 0, 'the part to be streaming into a temp file');

      // Checked after the upload: what a second start did to it is the first thing to know.
      const refusal = await startServerProcess(['--data', dataDir]).then(
        async (second) => void (await stopServerProcess(second)),
        (error: Error) => error.message,
      );

      part.end(bytes.subarray(bytes.length / 2));
      const partAnswer = await answered;
      assert.equal(partAnswer.status, 200, partAnswer.text);
      const completed = await requestJson(first.baseUrl, 'POST', `${uploadsPath}${uploadId}/complete/`, { token });
      assert.equal(completed.status, 201, completed.text);
      assert.deepEqual((await download(completed.json.file_contents)).body, bytes);

      assert.ok(refusal !== undefined, 'a second server started on a data folder in use');
      assert.match(refusal, /^server exited with 1: /);
      assert.match(refusal, new RegExp(`in use by a SolarDesk server \\(pid ${first.child.pid}\\b`));
      assert.match(refusal, /Stop that process first, or use another data folder/);
    } finally {
      // A part left half-sent by a failed assertion would hold up the graceful stop.
      part?.destroy();
      assert.equal(await stopServerProcess(first), 0);
    }
  });

  test('a SIGKILLed server\'s data folder starts again at once, and the new server holds it', async () => {
    const dataDir = path.join(root, 'killed');
    const killed = await startServerProcess(['--data', dataDir, '--seed', 'demo']);
    assert.equal(await stopServerProcess(killed, 'SIGKILL'), null);
    const restarted = await startServerProcess(['--data', dataDir]);
    try {
      const token = await signIn(restarted.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
      assert.equal((await requestJson(restarted.baseUrl, 'GET', '/api/orgs/1/projects/1/', { token })).status, 200);
      const refusal = await expectRefusal(() => startServerProcess(['--data', dataDir]), stopServerProcess, 'a third server');
      assert.match(refusal, new RegExp(`pid ${restarted.child.pid}\\b`));
    } finally {
      assert.equal(await stopServerProcess(restarted), 0);
    }
  });

  describe('agents', () => {
    let server: ServerProcess;
    before(async () => {
      server = await startServerProcess(['--data', path.join(root, 'remote'), '--seed', 'demo']);
    });
    after(() => stopServerProcess(server));

    test('a second agent on the same data folder exits 1 naming the first, which keeps syncing', async () => {
      const dataDir = path.join(root, 'agent');
      const first = await startAgentProcess(
        ['--data', dataDir, '--remote', server.baseUrl, '--username', DEMO_USERS.sunriseAdmin, '--password-stdin', '--poll-interval', '3600'],
        `${DEMO_PASSWORD}\n`,
      );
      try {
        const refusal = await expectRefusal(() => startAgentProcess(['--data', dataDir]), (agent: AgentProcess) => killAgent(agent, 'SIGTERM'), 'a second agent');
        assert.match(refusal, /^agent exited with 1: /);
        assert.match(refusal, new RegExp(`in use by a SolarDesk agent \\(pid ${first.child.pid}\\b`));
        const status = await fetch(`${first.localApiUrl}${syncPaths.status(1)}`, { headers: { authorization: `Bearer ${first.token}` } });
        assert.equal(status.status, 200);
      } finally {
        await killAgent(first, 'SIGTERM');
      }
    });
  });
});
