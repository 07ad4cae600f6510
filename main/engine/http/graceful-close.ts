// Closing a server with keep-alive clients. Node closes the connections that are idle
// once, when close begins, and no others. Three kinds would each hold the close (and a
// SIGTERM'd server) until the client let go, up to Fastify's 72 s keep-alive timeout
// or for ever:
//  - a connection whose last response was still being written at that moment;
//  - a connection that never sent a request: Node counts it as active (a request may be
//    on its way), and undici's fetch leaves one in its pool when a streaming response is
//    aborted (it reconnects for the aborted request, then drops it);
//  - a connection whose client stopped reading: the response cannot finish.
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Once closing, a connection with bytes it cannot hand to its client for this long is
 * taken for a client that stopped reading, and dropped. A client that reads, however
 * slowly, keeps its download.
 */
export const STALLED_WRITE_MS = 3_000;
const STALL_CHECK_MS = 500;

/**
 * From the moment `app` starts closing: ends each keep-alive connection as soon as its
 * last response has been written, drops the connections with no request in flight (one
 * that never sent a request too), and drops a connection whose client stops reading for
 * `STALLED_WRITE_MS`. So the close waits for the requests in flight and no longer.
 * Call it before the app serves its first request.
 */
export function endConnectionsOnceIdleWhenClosing(app: FastifyInstance, options: { stalledWriteMs?: number } = {}): void {
  const stalledWriteMs = options.stalledWriteMs ?? STALLED_WRITE_MS;
  const connections = new Set<Socket>();
  const responsesInFlight = new Map<Socket, number>();
  let closing = false;
  let stallCheck: NodeJS.Timeout | undefined;

  app.server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => {
      connections.delete(socket);
      responsesInFlight.delete(socket);
      if (connections.size === 0) clearInterval(stallCheck);
    });
    // Accepted in the moment between closing and the listener stopping: it is answered
    // 503 if it asks at once, and let go otherwise.
    if (closing) setImmediate(() => dropIfIdle(socket));
  });
  app.server.on('request', (request, response) => {
    const socket = request.socket;
    responsesInFlight.set(socket, (responsesInFlight.get(socket) ?? 0) + 1);
    // 'close' comes after the response's last bytes were handed to the socket;
    // destroySoon() still sends whatever the socket holds, then closes it (not half-open).
    response.once('close', () => {
      const left = (responsesInFlight.get(socket) ?? 1) - 1;
      if (left > 0) return void responsesInFlight.set(socket, left);
      responsesInFlight.delete(socket);
      if (closing) socket.destroySoon();
    });
  });

  function dropIfIdle(socket: Socket): void {
    if (!socket.destroyed && !responsesInFlight.has(socket)) socket.destroy();
  }

  // Bytes actually handed to the client (written, less what still waits in the socket's buffer).
  const flushed = (socket: Socket) => socket.bytesWritten - socket.writableLength;
  function watchForStalledClients(): void {
    const seen = new Map<Socket, { flushed: number; since: number }>();
    stallCheck = setInterval(() => {
      const now = Date.now();
      for (const socket of connections) {
        // Only bytes waiting on the client count: a handler still working on its answer is not a stall.
        if (socket.writableLength === 0) {
          seen.delete(socket);
          continue;
        }
        const last = seen.get(socket);
        if (!last || last.flushed !== flushed(socket)) seen.set(socket, { flushed: flushed(socket), since: now });
        else if (now - last.since >= stalledWriteMs) socket.destroy();
      }
      for (const socket of seen.keys()) if (!connections.has(socket)) seen.delete(socket);
    }, STALL_CHECK_MS);
    stallCheck.unref();
  }

  app.addHook('preClose', (done) => {
    closing = true;
    for (const socket of connections) dropIfIdle(socket);
    if (connections.size > 0) watchForStalledClients();
    done();
  });
}
