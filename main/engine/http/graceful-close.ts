// Closing a server with keep-alive clients. Node closes the connections that are idle
// once, when close begins. A connection whose last response was still being written at
// that moment is passed by, and would stay open until its keep-alive timeout (72 s in
// Fastify) ran out, holding the close (and a SIGTERM'd server) that long.
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * From the moment `app` starts closing, ends each keep-alive connection as soon as its
 * last response has been written, so the close waits for the requests in flight and no
 * longer. Call it before the app serves its first request.
 */
export function endConnectionsOnceIdleWhenClosing(app: FastifyInstance): void {
  const responsesInFlight = new Map<Socket, number>();
  let closing = false;
  app.server.on('request', (request, response) => {
    const socket = request.socket;
    responsesInFlight.set(socket, (responsesInFlight.get(socket) ?? 0) + 1);
    // 'close' comes after the response's last bytes were handed to the socket; end()
    // still sends whatever the socket holds before it closes.
    response.once('close', () => {
      const left = (responsesInFlight.get(socket) ?? 1) - 1;
      if (left > 0) return void responsesInFlight.set(socket, left);
      responsesInFlight.delete(socket);
      if (closing) socket.end();
    });
  });
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
}
