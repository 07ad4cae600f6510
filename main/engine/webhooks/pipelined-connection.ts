// One webhook's HTTP/1.1 connection, carrying several POSTs at once (HTTP
// pipelining, RFC 9112 9.3.2) through undici's Client: requests are written one
// after another on the same byte stream, so the endpoint reads them in the order
// they were sent and answers them in that order. This is what lets a webhook's
// deliveries be in flight together and still reach the endpoint in order; a pool
// of connections could not promise that, and Node's own http client sends one
// request per connection at a time. undici does the HTTP (framing, keep-alive,
// TLS, timeouts); this class adds what delivery needs on top (docs/webhooks.md
// "Order"): whether the connection has shown it stays open, and failing every
// request in flight when one fails on a broken connection.
import type net from 'node:net';
import tls from 'node:tls';
import type { Client } from 'undici';
import { loadUndici } from '../lazy-modules.ts';

export interface PipelinedResponse {
  status: number;
  /** The first characters of the body, for the log. */
  body: string;
}

export class ConnectionLostError extends Error {
  constructor(
    message: string,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface PipelinedConnectionOptions {
  /** DNS lookup for the connection (the private-address guard). */
  lookup?: net.LookupFunction;
  /** Longest wait to connect, for each answer, and between an answer's bytes; an idle connection closes after as long. */
  timeoutMs: number;
  /** Requests in flight at once on the connection. */
  window: number;
  /**
   * PEM certificates of authorities trusted besides the system's (a private CA).
   * A server process gets the same from NODE_EXTRA_CA_CERTS, which Node reads at start.
   */
  extraTrustedCertificates?: readonly string[];
}

const KEPT_BODY_CHARS = 200;

let undici: Awaited<ReturnType<typeof loadUndici>> | undefined;

/** undici's timeouts, as the one code delivery logs for them. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

export class PipelinedConnection {
  private readonly client: Client;
  private readonly path: string;
  /** The socket undici is using now (from our connector), and the answers it has carried. */
  private socket: net.Socket | undefined;
  private answeredOnSocket = 0;
  /** Requests sent and not yet answered, oldest first; each can be aborted. */
  private readonly outstanding = new Set<AbortController>();
  /** Connecting failed: the client is not used again (the worker opens a new connection for the retry). */
  private connectFailed = false;

  /**
   * Loads undici, once, before the first connection is made: it is loaded with the
   * first delivery rather than at start (lazy-modules.ts), and a connection is then
   * made synchronously, so a webhook's requests are written in the order posted.
   */
  static async load(): Promise<void> {
    undici ??= await loadUndici();
  }

  /** A connection to `url`'s origin, opened by its first request. Only after load(). */
  constructor(url: URL, options: PipelinedConnectionOptions) {
    if (!undici) throw new Error('PipelinedConnection.load() has not finished: undici is not loaded yet.');
    const { Client, buildConnector } = undici;
    this.path = `${url.pathname}${url.search}`;
    const connector = buildConnector({
      timeout: options.timeoutMs,
      ...(options.lookup ? { lookup: options.lookup } : {}),
      ...(options.extraTrustedCertificates?.length ? { ca: [...tls.rootCertificates, ...options.extraTrustedCertificates] } : {}),
    });
    this.client = new Client(url.origin, {
      pipelining: Math.max(1, options.window),
      connect: (connectOptions, callback) =>
        connector(connectOptions, (...args) => {
          const [error, socket] = args;
          if (error) {
            this.connectFailed = true;
            // undici handles a certificate naming another host (ERR_TLS_CERT_ALTNAME_INVALID)
            // on a path of its own, meant for changing servername per request: it fails the
            // queued requests without counting them done, and the next connect error on the
            // same client then fails `assert(client[kRunning] === 0)`, thrown where nothing
            // can catch it, which ended the server process (issue 25). Under another code the
            // error takes undici's ordinary path, which fails every queued request cleanly.
            callback(asConnectFailure(error), null);
            return;
          }
          if (socket) {
            this.socket = socket;
            this.answeredOnSocket = 0;
          }
          callback(...args);
        }),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      // Idle as long: closed, so a quiet webhook holds no socket; the next request opens one.
      keepAliveTimeout: options.timeoutMs,
      keepAliveMaxTimeout: options.timeoutMs,
    });
  }

  /** Whether another request may be sent on this connection. */
  get usable(): boolean {
    return !this.connectFailed && !this.client.destroyed && !this.client.closed;
  }

  get inFlight(): number {
    return this.outstanding.size;
  }

  /**
   * The connection has answered and stayed open, so requests may be sent before
   * the ones in flight are answered. One that answered `Connection: close` (or
   * HTTP/1.0) is closed by undici at once, so each request to such an endpoint
   * finds a fresh connection and goes alone.
   */
  get keptAlive(): boolean {
    return this.socket !== undefined && !this.socket.destroyed && this.answeredOnSocket > 0;
  }

  /** Sends a POST now; resolves with its answer. Requests are written, and answered, in the order posted. */
  async post(headers: Record<string, string>, body: string): Promise<PipelinedResponse> {
    const controller = new AbortController();
    this.outstanding.add(controller);
    try {
      const response = await this.client.request({
        method: 'POST',
        path: this.path,
        headers,
        body,
        signal: controller.signal,
        // Both needed for undici to pipeline: a POST is taken as unsafe to have in
        // flight behind another (idempotent), and by default every request holds
        // the pipeline until its answer's head arrives (blocking). Being sent again
        // after a failure is what retries are for (docs/webhooks.md "Order").
        idempotent: true,
        blocking: false,
      });
      const text = await response.body.text();
      if (this.socket && !this.socket.destroyed) this.answeredOnSocket++;
      return { status: response.statusCode, body: text.slice(0, KEPT_BODY_CHARS) };
    } catch (error) {
      const lost = asConnectionLost(error);
      // undici fails only the oldest request of a broken connection and sends the
      // rest again on a new one. Here they fail too, in order, and are retried in
      // order: so nothing newer reaches the endpoint again ahead of the failed one.
      for (const other of this.outstanding) {
        if (other !== controller) other.abort(new ConnectionLostError(lost.message, lost.code, { cause: lost }));
      }
      throw lost;
    } finally {
      this.outstanding.delete(controller);
    }
  }

  close(): void {
    void this.client.destroy().catch(() => {});
  }
}

/** A connect error under a code undici has no special path for; the original is its cause. */
function asConnectFailure(error: Error): Error {
  const code = (error as { code?: string }).code;
  if (code !== 'ERR_TLS_CERT_ALTNAME_INVALID') return error;
  return new ConnectionLostError(`the endpoint's TLS certificate is for another host name: ${error.message}`, 'CERT_NAME_MISMATCH', { cause: error });
}

function asConnectionLost(error: unknown): ConnectionLostError {
  if (error instanceof ConnectionLostError) return error;
  const code = (error as { code?: string }).code ?? 'ECONNRESET';
  // An aborted request carries the reason it was aborted for.
  const cause = (error as { cause?: unknown }).cause;
  if (code === 'UND_ERR_ABORTED' && cause instanceof ConnectionLostError) return cause;
  if (TIMEOUT_CODES.has(code)) return new ConnectionLostError('timed out waiting for the endpoint', 'ETIMEDOUT', { cause: error });
  if (code === 'UND_ERR_INVALID_ARG') return new ConnectionLostError(`refused: ${(error as Error).message}`, 'EINVAL', { cause: error });
  return new ConnectionLostError(`connection error: ${(error as Error).message}`, code, { cause: error });
}
