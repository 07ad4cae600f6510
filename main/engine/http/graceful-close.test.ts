import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import Fastify from 'fastify';
import { endConnectionsOnceIdleWhenClosing } from './graceful-close.ts';

// A bare Fastify app stands in for the engine's: what is tested is how the server closes,
// not a route. Without endConnectionsOnceIdleWhenClosing the close waits out Fastify's
// 72 s keep-alive timeout, so this test's own timeout fails it well before that.
test('a keep-alive connection whose response ends after closing began is answered in full and closed, so the close ends', { timeout: 20_000 }, async () => {
  const app = Fastify({ logger: false, forceCloseConnections: false });
  endConnectionsOnceIdleWhenClosing(app);
  const body = new PassThrough();
  app.get('/slow', (_request, reply) => reply.type('application/octet-stream').send(body));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };

  const agent = new http.Agent({ keepAlive: true });
  // Fastify sends the headers with the body's first bytes.
  body.write('first part');
  try {
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/slow', agent }, resolve).on('error', reject);
    });
    assert.equal(response.statusCode, 200);
    const received: Buffer[] = [];
    response.on('data', (chunk: Buffer) => received.push(chunk));
    const bodyEnded = new Promise<void>((resolve) => response.once('end', () => resolve()));

    const closed = app.close();
    // The response is still in flight here, so Node's sweep of idle connections passes it by.
    body.end(' and the rest');
    await bodyEnded;
    assert.equal(Buffer.concat(received).toString(), 'first part and the rest', 'the request in flight is answered in full');
    // Node's server resolves its close only once every connection has closed.
    await closed;
  } finally {
    agent.destroy();
  }
});

// undici's fetch leaves such a connection in its pool when a streaming response is aborted
// (nodejs/undici#5845); Node counts it as busy (a request may be on its way), so its own
// sweep of idle connections passes it by.
test('a connection that never sent a request does not hold the close', { timeout: 20_000 }, async () => {
  const app = Fastify({ logger: false, forceCloseConnections: false });
  endConnectionsOnceIdleWhenClosing(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const accepted = once(app.server, 'connection');
  const client = net.connect({ host: '127.0.0.1', port });
  client.on('error', () => undefined);
  try {
    await accepted;
    const ended = once(client, 'close');
    await app.close();
    await ended;
  } finally {
    client.destroy();
  }
});

test('a client that stops reading its response is dropped once its bytes have waited stalledWriteMs, so the close ends', { timeout: 20_000 }, async () => {
  const app = Fastify({ logger: false, forceCloseConnections: false });
  endConnectionsOnceIdleWhenClosing(app, { stalledWriteMs: 300 });
  // An endless body: only the client's reading paces it.
  let held: () => void = () => undefined;
  const heldBack = new Promise<void>((resolve) => (held = resolve));
  app.get('/endless', (_request, reply) => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    const body = new Readable({
      read() {
        sent++;
        this.push(chunk);
      },
    });
    // The socket's buffer and the kernel's are full once the pipe stops pulling.
    let lastSent = 0;
    const check = setInterval(() => {
      if (sent > 1 && sent === lastSent) held();
      lastSent = sent;
    }, 200).unref();
    body.once('close', () => clearInterval(check));
    return reply.type('application/octet-stream').send(body);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const client = net.connect({ host: '127.0.0.1', port });
  client.on('error', () => undefined);
  try {
    await once(client, 'connect');
    client.write('GET /endless HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    client.pause(); // and never reads again
    await heldBack;
    // Node's server resolves its close only once every connection has closed.
    await app.close();
  } finally {
    client.destroy();
  }
});
