// A small round-robin HTTP proxy on 127.0.0.1 for the scale-out tests and
// benchmarks: each request goes to the next of several server processes, as a
// load balancer in front of a scaled-out server would send it. A server that
// refuses the connection (killed) is passed over for the next one, which is safe
// because it saw none of the request; a server that dies mid-response fails that
// one request with 502, as a real balancer would.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  readonly url: string;
  /** Requests each target answered, in the order of `targets`. */
  readonly answered: number[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

export async function startRoundRobinProxy(targets: readonly string[]): Promise<RoundRobinProxy> {
  if (targets.length === 0) throw new Error('a proxy needs at least one target');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const answered = targets.map(() => 0);
  let next = 0;

  const forward = (request: http.IncomingMessage, body: Buffer, response: http.ServerResponse, triesLeft: number) => {
    const index = next++ % targets.length;
    const target = new URL(targets[index]!);
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    headers.host = request.headers.host ?? target.host;
    headers['content-length'] = String(body.length);
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers, agent },
      (reply) => {
        answered[index]!++;
        const replyHeaders = Object.fromEntries(Object.entries(reply.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
        response.writeHead(reply.statusCode ?? 502, replyHeaders);
        reply.pipe(response);
        reply.on('error', () => response.destroy());
      },
    );
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (response.headersSent) return response.destroy();
      if (error.code === 'ECONNREFUSED' && triesLeft > 1) return forward(request, body, response, triesLeft - 1);
      response.writeHead(502, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ detail: `upstream ${targets[index]} failed: ${error.code ?? error.message}` }));
    });
    upstream.end(body);
  };

  const server = http.createServer((request, response) => {
    // Bodies are read whole so a refused request can go to the next server; the
    // tests' and benchmarks' bodies are small.
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => forward(request, Buffer.concat(chunks), response, targets.length));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answered,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
