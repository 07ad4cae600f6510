// The pipelined connection (undici's Client underneath) against real servers on
// 127.0.0.1: Node's HTTP server (requests read in the order sent, answers matched
// in order), and raw TCP servers for what Node's server never does (answers split
// anywhere, an interim answer, closing after an answer, HTTP/1.0, breaking mid-window).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { ConnectionLostError, PipelinedConnection } from './pipelined-connection.ts';

// Connections are made only once undici is loaded (it loads with the first delivery, not at start).
await PipelinedConnection.load();

async function listen(server: http.Server | net.Server): Promise<URL> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return new URL(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook?x=1`);
}

/** A raw TCP endpoint: `onRequests` hears each connection's request bodies as they arrive (whole requests only). */
function rawServer(onRequests: (socket: net.Socket, bodies: string[], connection: number) => void): { server: net.Server; bodiesByConnection: string[][] } {
  const bodiesByConnection: string[][] = [];
  const server = net.createServer((socket) => {
    const bodies: string[] = [];
    const connection = bodiesByConnection.push(bodies) - 1;
    let received = '';
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      received += chunk;
      // Each request here is small: a head with content-length, then a JSON body.
      for (;;) {
        const headEnd = received.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(received.slice(0, headEnd))?.[1] ?? 0);
        if (received.length < headEnd + 4 + length) return;
        bodies.push(received.slice(headEnd + 4, headEnd + 4 + length));
        received = received.slice(headEnd + 4 + length);
        onRequests(socket, bodies, connection);
      }
    });
  });
  return { server, bodiesByConnection };
}

test('several POSTs in flight on one connection reach a Node server in the order sent, answers matched to each, never more than the window', async () => {
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  let unanswered = 0;
  let mostUnanswered = 0;
  const server = http.createServer((request, response) => {
    sockets.add(request.socket);
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      seen.push(`${request.method} ${request.url} ${request.headers['x-key']} ${body}`);
      mostUnanswered = Math.max(mostUnanswered, ++unanswered);
      // Slower answers first: the answers must still come back in order.
      setTimeout(() => {
        unanswered--;
        response.writeHead(Number(JSON.parse(body).status), { 'content-type': 'text/plain' }).end(`answer ${JSON.parse(body).n}`);
      }, 20 - seen.length * 2);
    });
  });
  const url = await listen(server);
  const connection = new PipelinedConnection(url, { timeoutMs: 5000, window: 4 });
  try {
    assert.equal(connection.keptAlive, false, 'not before an answer');
    const first = await connection.post({ 'x-key': 'k' }, JSON.stringify({ n: 0, status: 200 }));
    assert.deepEqual(first, { status: 200, body: 'answer 0' });
    assert.equal(connection.keptAlive, true, 'answered and stayed open');
    const statuses = [500, 201, 200, 404, 200, 200];
    const answers = statuses.map((status, n) => connection.post({ 'x-key': 'k' }, JSON.stringify({ n: n + 1, status })));
    assert.equal(connection.inFlight, statuses.length);
    const responses = await Promise.all(answers);
    assert.deepEqual(responses.map((response) => response.status), statuses);
    assert.deepEqual(responses.map((response) => response.body), statuses.map((_status, n) => `answer ${n + 1}`));
    assert.deepEqual(seen.slice(1), statuses.map((status, n) => `POST /hook?x=1 k {"n":${n + 1},"status":${status}}`));
    assert.equal(sockets.size, 1, 'one connection');
    assert.ok(mostUnanswered <= 4, `at most the window in flight (${mostUnanswered})`);
    assert.ok(connection.usable);
    await assert.rejects(connection.post({ 'x-a': 'a\r\nInjected: yes' }, '{}'), ConnectionLostError);
    assert.equal(seen.length, statuses.length + 1, 'a header with a line break is never sent');
  } finally {
    connection.close();
    server.closeAllConnections();
    server.close();
  }
});

test('answers split at any byte, an interim 103, chunked; a Connection: close after an answer: the rest are sent again, in order, on a new connection', async () => {
  const { server, bodiesByConnection } = rawServer((socket, bodies, connection) => {
    if (connection === 0 && bodies.length === 3) {
      const answers =
        'HTTP/1.1 103 Early Hints\r\nLink: </style.css>\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\non\r\n1;ext=1\r\ne\r\n0\r\n\r\n' +
        'HTTP/1.1 202 Accepted\r\nConnection: close\r\nContent-Length: 3\r\n\r\ntwo';
      // One byte at a time, then close without answering the third.
      let at = 0;
      const drip = () => {
        if (at < answers.length) {
          socket.write(answers[at++]!);
          setImmediate(drip);
        } else socket.end();
      };
      drip();
    } else if (connection === 1) socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${bodies.at(-1)!.length}\r\n\r\n${bodies.at(-1)}`);
  });
  const url = await listen(server);
  const connection = new PipelinedConnection(url, { timeoutMs: 5000, window: 8 });
  try {
    const answers = [1, 2, 3].map((n) => connection.post({}, JSON.stringify({ n })));
    const responses = await Promise.all(answers);
    assert.deepEqual(responses, [
      { status: 200, body: 'one' },
      { status: 202, body: 'two' },
      { status: 200, body: '{"n":3}' },
    ]);
    // RFC 9112 9.6: an endpoint that answered "close" processes nothing after it, so undici sends the rest again.
    assert.deepEqual(bodiesByConnection, [['{"n":1}', '{"n":2}', '{"n":3}'], ['{"n":3}']]);
  } finally {
    connection.close();
    server.close();
  }
});

test('an HTTP/1.0 endpoint that closes after each answer is never kept alive, so the delivery worker sends to it one at a time', async () => {
  const { server, bodiesByConnection } = rawServer((socket, bodies) => {
    socket.end(`HTTP/1.0 200 OK\r\nContent-Length: ${bodies[0]!.length}\r\n\r\n${bodies[0]}`);
  });
  const url = await listen(server);
  const connection = new PipelinedConnection(url, { timeoutMs: 5000, window: 8 });
  try {
    for (const n of [1, 2, 3]) {
      assert.deepEqual(await connection.post({}, JSON.stringify({ n })), { status: 200, body: `{"n":${n}}` });
      assert.equal(connection.keptAlive, false, `after answer ${n}`);
    }
    assert.deepEqual(bodiesByConnection, [['{"n":1}'], ['{"n":2}'], ['{"n":3}']], 'one request per connection');
    // Pipelined anyway (what the worker avoids): undici sends each unanswered request again on
    // the next connection; each is answered once, in order, one connection per answer.
    const responses = await Promise.all([4, 5, 6].map((n) => connection.post({}, JSON.stringify({ n }))));
    assert.deepEqual(responses.map((response) => response.body), ['{"n":4}', '{"n":5}', '{"n":6}']);
    assert.equal(bodiesByConnection.length, 6);
  } finally {
    connection.close();
    server.close();
  }
});

test('a connection that breaks mid-window fails every request in flight on it, and sends none of them again', async () => {
  const { server, bodiesByConnection } = rawServer((socket, bodies, connection) => {
    if (connection === 0 && bodies.length === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none');
    if (connection === 0 && bodies.length === 3) socket.destroy();
    if (connection > 0) socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${bodies.at(-1)!.length}\r\n\r\n${bodies.at(-1)}`);
  });
  const url = await listen(server);
  const connection = new PipelinedConnection(url, { timeoutMs: 5000, window: 8 });
  try {
    const settled = await Promise.allSettled([1, 2, 3].map((n) => connection.post({}, JSON.stringify({ n }))));
    assert.deepEqual(settled[0], { status: 'fulfilled', value: { status: 200, body: 'one' } });
    for (const result of settled.slice(1)) {
      assert.equal(result.status, 'rejected');
      assert.ok((result as PromiseRejectedResult).reason instanceof ConnectionLostError);
    }
    // The next request goes on a new connection, and is the first thing sent on it.
    assert.deepEqual(await connection.post({}, JSON.stringify({ n: 4 })), { status: 200, body: '{"n":4}' });
    assert.deepEqual(bodiesByConnection.flat().slice(3), ['{"n":4}']);
  } finally {
    connection.close();
    server.close();
  }
});

test('an endpoint that never answers: every request in flight fails with a timeout; an idle connection closes after the timeout', async () => {
  const sockets: net.Socket[] = [];
  const silent = net.createServer((socket) => void sockets.push(socket.on('error', () => {})));
  const silentUrl = await listen(silent);
  const connection = new PipelinedConnection(silentUrl, { timeoutMs: 200, window: 4 });
  const { server: answering } = rawServer((socket) => socket.write('HTTP/1.1 204 No Content\r\n\r\n'));
  const answeringUrl = await listen(answering);
  const idle = new PipelinedConnection(answeringUrl, { timeoutMs: 100, window: 4 });
  try {
    const settled = await Promise.allSettled([connection.post({}, 'a'), connection.post({}, 'b')]);
    for (const result of settled) {
      assert.equal(result.status, 'rejected');
      assert.equal(((result as PromiseRejectedResult).reason as ConnectionLostError).code, 'ETIMEDOUT');
    }
    const closed = once(answering, 'connection').then(([socket]) => once(socket as net.Socket, 'close'));
    assert.deepEqual(await idle.post({}, 'c'), { status: 204, body: '' });
    await closed;
    assert.equal(idle.keptAlive, false, 'an idle connection closes after the timeout');
  } finally {
    connection.close();
    idle.close();
    for (const socket of sockets) socket.destroy();
    silent.close();
    answering.close();
  }
});
