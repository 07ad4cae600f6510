// An agent that closes (sign-out, quit, an app core's close) leaves nothing of itself
// open on its remote: no request, no stream, no connection that never served one. Such
// a connection held the remote's close (a SIGTERM'd `solardesk server`) until the
// agent's keep-alive ran out, about 70 s. Real server, real agent, straight to the
// server on 127.0.0.1 (no proxy in between, whose own connections would hide the agent's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { Socket } from 'node:net';
import { makeTempDir, startTestServer } from '../../engine/testing/test-server.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { startAgent } from '../agent.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not so after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One request on a connection of its own, closed after it. */
function probe(baseUrl: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(`${baseUrl}${apiPaths.changes(1)}`, { agent: false }, (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

test('an agent closed while its change feed stream is open leaves no connection on the remote but idle keep-alive ones, and the remote closes at once', { timeout: 60_000 }, async () => {
  const server = await startTestServer();
  // What the server sees of each connection: whether a request ever came on it.
  const requestsOn = new Map<Socket, number>();
  server.engine.app.server.on('connection', (socket: Socket) => {
    requestsOn.set(socket, 0);
    socket.once('close', () => requestsOn.delete(socket));
  });
  server.engine.app.server.on('request', (request: http.IncomingMessage) => requestsOn.set(request.socket, (requestsOn.get(request.socket) ?? 0) + 1));
  const dataDir = makeTempDir('solardesk-agent-close-');
  let serverClosed = false;
  try {
    const agent = await startAgent({ dataDir, remote: server.baseUrl, username: DEMO_USERS.sunriseAdmin, password: DEMO_PASSWORD, pollIntervalSeconds: 3600 });
    await until('the hint stream open', () => agent.feed?.state === 'listening');
    await agent.close();
    // A connection the agent began while closing reaches the server before this probe's, which comes after it.
    assert.equal(await probe(server.baseUrl), 401);
    const neverUsed = [...requestsOn.values()].filter((count) => count === 0).length;
    assert.equal(neverUsed, 0, 'the closed agent left a connection that never sent a request (it would hold the server close ~70 s)');
    // And nothing holds the close: the idle keep-alive connections are closed with it.
    const closing = Date.now();
    await server.close();
    serverClosed = true;
    assert.ok(Date.now() - closing < 5_000, `the server took ${Date.now() - closing} ms to close`);
  } finally {
    // After a failure, the connections left are dropped so the file ends.
    if (!serverClosed) {
      server.engine.app.server.closeAllConnections();
      await server.close();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
