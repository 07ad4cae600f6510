// A real HTTP endpoint on 127.0.0.1 that records what webhooks deliver to it.
import http from 'node:http';
import { STATE_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

export interface ReceivedCall {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests index into delivery bodies
}

/** Decides the answer to the n-th call (0-based); may delay it by returning a promise. */
export type Responder = (call: ReceivedCall, index: number) => number | Promise<number>;

export interface WebhookReceiver {
  readonly url: string;
  readonly calls: ReceivedCall[];
  respondWith(responder: Responder): void;
  /** Resolves once `count` calls have arrived; rejects after `timeoutMs`. */
  waitForCalls(count: number, timeoutMs?: number): Promise<ReceivedCall[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(responder: Responder = () => 200): Promise<WebhookReceiver> {
  const calls: ReceivedCall[] = [];
  const waiters: Array<() => void> = [];
  let respond = responder;
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', async () => {
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep the raw text
      }
      const call: ReceivedCall = { path: request.url ?? '', method: request.method ?? '', headers: request.headers, body };
      const index = calls.push(call) - 1;
      waiters.splice(0).forEach((wake) => wake());
      const status = await respond(call, index);
      if (!response.destroyed) response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'failed');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    calls,
    respondWith(next) {
      respond = next;
    },
    async waitForCalls(count, timeoutMs = 20_000) {
      const deadline = Date.now() + Math.max(timeoutMs, STATE_HANG_GUARD_MS); // a hang guard (issue 33)
      while (calls.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} webhook calls, got ${calls.length}: ${JSON.stringify(calls.map((call) => call.body))}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return calls.slice(0, count);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
