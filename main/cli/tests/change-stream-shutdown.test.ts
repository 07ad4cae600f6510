// Issue 15: an open change-feed hint stream must not hold a server's shutdown. A
// real `solardesk server` process with a stream open on it gets SIGTERM: it ends
// the stream, exits 0, and does so well before the 20 s a hanging stop is given.
// And `--no-change-feed` serves no feed (404), for tests of the agents' fallback.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { signIn, startServerProcess, stopServerProcess } from '../../engine/testing/server-process.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

describe('solardesk server and the change stream', () => {
  let dataDir: string;
  before(() => {
    dataDir = makeTempDir();
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('SIGTERM with a hint stream open ends the stream and exits 0 promptly', async () => {
    const server = await startServerProcess(['--data', dataDir, '--seed', 'demo']);
    const token = await signIn(server.baseUrl, 'admin@sunrise.example', 'solardesk-demo');
    const response = await fetch(`${server.baseUrl}${apiPaths.changeStream(1)}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: ready')) {
      const { value, done } = await reader.read();
      assert.equal(done, false, 'the stream opened');
      text += new TextDecoder().decode(value);
    }
    const started = Date.now();
    const code = await stopServerProcess(server, 'SIGTERM');
    const took = Date.now() - started;
    assert.equal(code, 0, server.stderr());
    assert.ok(took < 10_000, `the server took ${took} ms to stop`);
    // The stream ended with the server, cleanly.
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
  });

  test('--no-change-feed answers 404 on the feed', async () => {
    const server = await startServerProcess(['--data', dataDir, '--no-change-feed']);
    try {
      const token = await signIn(server.baseUrl, 'admin@sunrise.example', 'solardesk-demo');
      const answer = await fetch(`${server.baseUrl}${apiPaths.changes(1)}`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(answer.status, 404);
    } finally {
      assert.equal(await stopServerProcess(server), 0);
    }
  });
});
