// The pipelined connection against real servers on 127.0.0.1: Node's HTTP server
// (requests read in the order sent, answers matched in order), and raw TCP servers
// for what Node's server never does (answers split anywhere, chunked bodies,
// closing after an answer).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { ConnectionLostError, PipelinedConnection, parseResponse } from './pipelined-connection.ts';

async function listen(server: http.Server | net.Server): Promise<URL> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return new URL(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook?x=1`);
}

test('parseResponse: content-length, chunked with trailers, no-body statuses, incomplete and invalid input', () => {
  const whole = Buffer.from('HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK');
  assert.deepEqual(parseResponse(whole), { status: 201, body: 'ok', closing: false, consumed: whole.indexOf('HTTP/1.1 200') });
  const chunked = Buffer.from('HTTP/1.1 500 Server Error\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nfail\r\n3;ext=1\r\ned!\r\n0\r\nX-T: 1\r\n\r\n');
  assert.deepEqual(parseResponse(chunked), { status: 500, body: 'failed!', closing: false, consumed: chunked.length });
  for (let cut = 1; cut < chunked.length; cut++) assert.equal(parseResponse(chunked.subarray(0, cut)), 'incomplete', `cut at ${cut}`);
  const noContent = Buffer.from('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n');
  assert.deepEqual(parseResponse(noContent), { status: 204, body: '', closing: true, consumed: noContent.length });
  assert.deepEqual(parseResponse(Buffer.from('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n')), { status: 200, body: '', closing: true, consumed: 38 }, 'HTTP/1.0 closes unless it says keep-alive');
  assert.equal(parseResponse(Buffer.from('SSH-2.0-OpenSSH\r\n\r\n')), 'invalid');
  assert.equal(parseResponse(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n')), 'invalid');
});

test('several POSTs in flight on one connection reach a Node server in the order sent, answers matched to each', async () => {
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((request, response) => {
    sockets.add(request.socket);
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      seen.push(`${request.method} ${request.url} ${request.headers['x-key']} ${body}`);
      // Slower answers first: the answers must still come back in order.
      setTimeout(() => response.writeHead(Number(JSON.parse(body).status), { 'content-type': 'text/plain' }).end(`answer ${JSON.parse(body).n}`), 20 - seen.length * 2);
    });
  });
  const url = await listen(server);
  const connection = new PipelinedConnection(url, { timeoutMs: 5000 });
  try {
    const statuses = [200, 500, 201, 200, 404, 200, 200];
    const answers = statuses.map((status, n) => connection.post({ 'x-key': 'k' }, JSON.stringify({ n, status })));
    assert.equal(connection.inFlight, statuses.length);
    const responses = await Promise.all(answers);
    assert.deepEqual(responses.map((response) => response.status), statuses);
    assert.deepEqual(responses.map((response) => response.body), statuses.map((_status, n) => `answer ${n}`));
    assert.deepEqual(seen, statuses.map((status, n) => `POST /hook?x=1 k {"n":${n},"status":${status}}`));
    assert.equal(sockets.size, 1, 'one connection');
    assert.ok(connection.usable);
    await assert.rejects(connection.post({ 'x-a': 'a\r\nInjected: yes' }, '{}'), /not valid/);
    assert.equal(seen.length, statuses.length, 'a header with a line break is never sent');
  } finally {
    connection.close();
    server.closeAllConnections();
    server.close();
  }
});

test('answers split at any byte, an interim 100, and a close after an answer: the rest are lost, not misread', async () => {
  const server = net.createServer((socket) => {
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk;
      if ((received.match(/POST /g) ?? []).length < 3 || !received.endsWith('}')) return;
      const answers = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none' + 'HTTP/1.1 202 Accepted\r\nConnection: close\r\nContent-Length: 3\r\n\r\ntwo';
      // One byte at a time, then close without answering the third.
      let at = 0;
      const drip = () => {
        if (at < answers.length) {
          socket.write(answers[at++]!);
          setImmediate(drip);
        } else socket.end();
      };
      drip();
    });
  });
  const url = await listen(server);
  const connection = new PipelinedConnection(url, { timeoutMs: 5000 });
  try {
    const answers = [1, 2, 3].map((n) => connection.post({}, JSON.stringify({ n })));
    const settled = await Promise.allSettled(answers);
    assert.deepEqual(settled[0], { status: 'fulfilled', value: { status: 200, body: 'one', closing: false } });
    assert.deepEqual(settled[1], { status: 'fulfilled', value: { status: 202, body: 'two', closing: true } });
    assert.equal(settled[2]!.status, 'rejected');
    assert.ok((settled[2] as PromiseRejectedResult).reason instanceof ConnectionLostError);
    assert.equal(connection.usable, false);
    await assert.rejects(connection.post({}, '{}'), ConnectionLostError);
  } finally {
    connection.close();
    server.close();
  }
});

test('an endpoint that never answers: every request in flight fails with a timeout', async () => {
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => void sockets.push(socket));
  const url = await listen(server);
  const connection = new PipelinedConnection(url, { timeoutMs: 200 });
  try {
    const settled = await Promise.allSettled([connection.post({}, 'a'), connection.post({}, 'b')]);
    for (const result of settled) {
      assert.equal(result.status, 'rejected');
      assert.equal(((result as PromiseRejectedResult).reason as ConnectionLostError).code, 'ETIMEDOUT');
    }
    const idle = new PipelinedConnection(url, { timeoutMs: 100 });
    await once(sockets.length > 1 ? sockets[1]! : (await once(server, 'connection'))[0] as net.Socket, 'end');
    assert.equal(idle.usable, false, 'an idle connection closes after the timeout');
  } finally {
    connection.close();
    for (const socket of sockets) socket.destroy();
    server.close();
  }
});
