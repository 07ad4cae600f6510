// A fault-injecting HTTP proxy on 127.0.0.1 between an agent and its remote: it
// forwards requests and, by rule, goes offline, loses responses (after the remote
// applied the request), delays, or answers 429/400 itself. It also counts what
// passed. Only the network is faked here; both ends are the real programs.
import http from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';

export type FaultAction =
  | { kind: 'offline' }
  /** Forward, let the remote apply it, then cut the connection before the answer. */
  | { kind: 'drop_response' }
  | { kind: 'delay'; ms: number }
  /** Run `run` (a change on the remote, say) and then forward: what happens between two of the agent's requests. */
  | { kind: 'hook'; run: () => Promise<void> }
  | { kind: 'status'; status: number; body: unknown; headers?: Record<string, string> }
  /** Answers itself with this text as it is (a captive portal's HTML page in a 200), never forwarding. */
  | { kind: 'text'; status: number; body: string; contentType: string }
  /** Forward, then answer with `transform` of the remote's JSON answer instead (a lying remote); ETag and length are dropped. */
  | { kind: 'rewrite'; transform: (body: unknown) => unknown }
  /**
   * The test writes the answer itself (a lying remote: an endless stream, a huge or
   * malformed body, a redirect, or nothing at all). `forward` fetches what the remote
   * would have answered (its body whole), for an answer made from the real one.
   */
  | { kind: 'respond'; run: (request: http.IncomingMessage, response: http.ServerResponse, forward: () => Promise<ForwardedAnswer>) => void | Promise<void> };

/** What the remote answered a forwarded request. */
export interface ForwardedAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface FaultRule {
  method?: string;
  /** Matched against the path without the query. */
  path?: RegExp;
  /** Matched against the query string (without the `?`), e.g. to pick one page of a list. */
  query?: RegExp;
  action: FaultAction;
  /** How many matching requests it applies to (default: all). */
  times?: number;
}

export interface ProxiedRequest {
  method: string;
  path: string;
  /** The query string, without its "?" ("" when none). */
  query: string;
  /** `answered`: a `respond` rule answered it (the test did). */
  status: number | 'dropped' | 'offline' | 'answered';
}

/**
 * A slow link, shared by every connection through the proxy, paced per direction in
 * real time (it stands for the network, which keeps real time): each chunk waits its
 * turn at `bytesPerSecond`, in pieces of a tenth of a second at most.
 */
class LinkDirection {
  private freeAt = 0;
  /** Bytes that went this way through forwarded requests (request bodies up, answers down), headers not counted. */
  bytes = 0;
  constructor(private readonly rate: () => number | null) {}

  /** A pass-through that lets each piece go only when the link would have carried it. */
  pace(): Transform {
    const stream: Transform = new Transform({
      transform: (chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) => {
        void (async () => {
          for (let offset = 0; offset < chunk.length; ) {
            const rate = this.rate();
            const size = rate === null ? chunk.length - offset : Math.min(chunk.length - offset, Math.max(1024, Math.floor(rate / 10)));
            if (rate !== null) {
              const now = Date.now();
              this.freeAt = Math.max(this.freeAt, now) + (size / rate) * 1000;
              const wait = this.freeAt - now;
              if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
            }
            if (stream.destroyed) return;
            this.bytes += size;
            stream.push(chunk.subarray(offset, offset + size));
            offset += size;
          }
        })().then(() => callback(), callback);
      },
    });
    return stream;
  }
}

export interface FaultProxy {
  readonly url: string;
  readonly log: ProxiedRequest[];
  /**
   * A slow link: forwarded bodies go at most `bytesPerSecond` each way (null: as fast as
   * they come). Bodies of `respond` and `rewrite` rules are not paced.
   */
  setLinkSpeed(bytesPerSecond: number | null): void;
  /** Cuts every connection through the proxy each `ms` (null: never), as a link that drops at every hill. */
  cutEvery(ms: number | null): void;
  /** Body bytes forwarded so far: `up` to the remote, `down` to the client (what a link would carry, headers aside). */
  readonly bytes: { readonly up: number; readonly down: number };
  setOffline(offline: boolean): void;
  addRule(rule: FaultRule): void;
  clearRules(): void;
  /** Requests that reached the remote, by "METHOD /path-pattern". */
  count(method: string, path: RegExp): number;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const targetUrl = new URL(target);
  let offline = false;
  let rules: Array<FaultRule & { used: number }> = [];
  const log: ProxiedRequest[] = [];
  let linkSpeed: number | null = null;
  let cutTimer: NodeJS.Timeout | null = null;
  const up = new LinkDirection(() => linkSpeed);
  const down = new LinkDirection(() => linkSpeed);

  const server = http.createServer((request, response) => {
    const [path = '/', query = ''] = (request.url ?? '/').split('?');
    const method = request.method ?? 'GET';
    if (offline) {
      log.push({ method, path, query, status: 'offline' });
      request.socket.destroy();
      return;
    }
    const rule = rules.find(
      (candidate) =>
        (!candidate.method || candidate.method === method) && (!candidate.path || candidate.path.test(path)) &&
        (!candidate.query || candidate.query.test(query)) &&
        (candidate.times === undefined || candidate.used < candidate.times),
    );
    if (rule) rule.used++;
    const action = rule?.action;
    if (action?.kind === 'offline') {
      log.push({ method, path, query, status: 'offline' });
      request.socket.destroy();
      return;
    }
    if (action?.kind === 'respond') {
      log.push({ method, path, query, status: 'answered' });
      const forwarded = () =>
        new Promise<ForwardedAnswer>((resolve, reject) => {
          const upstream = http.request({ host: targetUrl.hostname, port: targetUrl.port, method, path: request.url, headers: { ...request.headers, host: targetUrl.host } }, (answer) => {
            const chunks: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => chunks.push(chunk));
            answer.on('end', () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }));
            answer.on('error', reject);
          });
          upstream.on('error', reject);
          request.pipe(upstream);
        });
      response.on('error', () => {}); // the agent may cut it off, which is often the point
      Promise.resolve(action.run(request, response, forwarded)).catch((error: unknown) => {
        console.error('fault proxy answer failed:', error);
        request.socket.destroy();
      });
      return;
    }
    if (action?.kind === 'status') {
      request.resume();
      log.push({ method, path, query, status: action.status });
      response.writeHead(action.status, { 'content-type': 'application/json', ...action.headers }).end(JSON.stringify(action.body));
      return;
    }
    if (action?.kind === 'text') {
      request.resume();
      log.push({ method, path, query, status: action.status });
      response.writeHead(action.status, { 'content-type': action.contentType }).end(action.body);
      return;
    }
    const forward = () => {
      const upstream = http.request(
        { host: targetUrl.hostname, port: targetUrl.port, method, path: request.url, headers: { ...request.headers, host: targetUrl.host } },
        (upstreamResponse) => {
          if (action?.kind === 'drop_response') {
            upstreamResponse.resume();
            upstreamResponse.on('end', () => {
              log.push({ method, path, query, status: 'dropped' });
              request.socket.destroy();
            });
            return;
          }
          log.push({ method, path, query, status: upstreamResponse.statusCode ?? 0 });
          if (action?.kind === 'rewrite') {
            const chunks: Buffer[] = [];
            upstreamResponse.on('data', (chunk: Buffer) => chunks.push(chunk));
            upstreamResponse.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              const lie = JSON.stringify(action.transform(text ? JSON.parse(text) : null));
              const { etag: _etag, 'content-length': _length, 'transfer-encoding': _encoding, ...headers } = upstreamResponse.headers;
              response.writeHead(upstreamResponse.statusCode ?? 502, headers).end(lie);
            });
            return;
          }
          response.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
          const paced = down.pace();
          // A cut (the client gone) ends the paced copy too, and the remote's answer with it.
          response.on('close', () => {
            paced.destroy();
            upstreamResponse.destroy();
          });
          upstreamResponse.pipe(paced).pipe(response);
        },
      );
      upstream.on('error', () => request.socket.destroy());
      const paced = up.pace();
      paced.on('error', () => upstream.destroy());
      // A client cut off (killed, a cut, also while a delay or hook held it) before its
      // body crossed the link: what the link had not carried yet dies with the connection,
      // as on a real network. Left to run, the paced copy went on counting bytes (and
      // spending the link's time) for a request nobody waited for, and could hand the
      // server a whole body the client had given up on; nor may the server wait for the
      // rest (a server stopping gracefully would wait for that request until its timeout).
      const cut = () => {
        if (paced.readableEnded) return; // the whole body crossed: a later close of a kept-alive socket cuts nothing
        paced.destroy();
        upstream.destroy();
      };
      paced.on('end', () => request.socket.off('close', cut));
      if (request.socket.destroyed) cut();
      else request.socket.once('close', cut);
      request.pipe(paced).pipe(upstream);
    };
    if (action?.kind === 'delay') setTimeout(forward, action.ms);
    else if (action?.kind === 'hook') {
      request.pause(); // its body waits until the hook is done
      action.run().then(forward, (error: unknown) => {
        log.push({ method, path, query, status: 'offline' });
        console.error('fault proxy hook failed:', error);
        request.socket.destroy();
      });
    } else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    setLinkSpeed(bytesPerSecond) {
      linkSpeed = bytesPerSecond;
    },
    cutEvery(ms) {
      if (cutTimer) clearInterval(cutTimer);
      cutTimer = ms === null ? null : setInterval(() => server.closeAllConnections(), ms);
    },
    get bytes() {
      return { up: up.bytes, down: down.bytes };
    },
    setOffline(value) {
      offline = value;
      if (value) server.closeAllConnections();
    },
    addRule(rule) {
      rules.push({ ...rule, used: 0 });
    },
    clearRules() {
      rules = [];
    },
    count(method, path) {
      return log.filter((entry) => entry.method === method && path.test(entry.path) && entry.status !== 'offline').length;
    },
    close() {
      if (cutTimer) clearInterval(cutTimer);
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
