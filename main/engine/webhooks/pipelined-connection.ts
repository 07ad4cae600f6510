// One HTTP/1.1 connection to a webhook endpoint that carries several POSTs at once
// (HTTP pipelining, RFC 9112 9.3.2): requests are written one after another on the
// same byte stream, so the endpoint reads them in the order they were sent, and
// answers them in that order. This is what lets a webhook's deliveries be in flight
// together and still reach the endpoint in order; a pool of connections could not
// promise that. Node's own client sends one request per connection at a time.
import net from 'node:net';
import tls from 'node:tls';

export interface PipelinedResponse {
  status: number;
  /** The first bytes of the body, for the log. */
  body: string;
  /** The endpoint said it will close the connection after this answer. */
  closing: boolean;
}

export class ConnectionLostError extends Error {
  constructor(
    message: string,
    readonly code: string,
    /** Whether any byte of this request's answer had arrived. */
    readonly answerStarted: boolean,
  ) {
    super(message);
  }
}

export interface PipelinedConnectionOptions {
  /** DNS lookup for the connection (the private-address guard). */
  lookup?: net.LookupFunction;
  /** Longest wait for the next byte of an answer while requests are outstanding; an idle connection closes after as long. */
  timeoutMs: number;
}

interface Outstanding {
  resolve(response: PipelinedResponse): void;
  reject(error: Error): void;
}

const MAX_HEAD_BYTES = 64 * 1024;
const KEPT_BODY_CHARS = 200;

export class PipelinedConnection {
  private readonly socket: net.Socket;
  private readonly outstanding: Outstanding[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private ended: Error | undefined;
  private answerStarted = false;
  /** Set once an answer says the connection closes after it: nothing more may be sent. */
  private closing = false;
  /** Answers received: a connection that answered and stayed open keeps requests alive, so more may be sent before an answer. */
  answered = 0;

  constructor(
    private readonly url: URL,
    options: PipelinedConnectionOptions,
  ) {
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const connectOptions = { host, port, ...(options.lookup ? { lookup: options.lookup } : {}) };
    this.socket =
      url.protocol === 'https:'
        ? tls.connect({ ...connectOptions, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] })
        : net.connect(connectOptions);
    this.socket.setNoDelay(true);
    this.socket.setTimeout(options.timeoutMs);
    this.socket.on('timeout', () => {
      if (this.outstanding.length > 0) this.fail(new ConnectionLostError('timed out waiting for the endpoint', 'ETIMEDOUT', this.answerStarted));
      // Idle as long: closed, so a quiet webhook holds no socket; its next window opens a new one.
      else this.close();
    });
    this.socket.on('data', (chunk: Buffer) => this.receive(chunk));
    this.socket.on('error', (error: NodeJS.ErrnoException) =>
      this.fail(new ConnectionLostError(`connection error: ${error.code ?? error.message}`, error.code ?? 'ECONNRESET', this.answerStarted), error),
    );
    this.socket.on('close', () => this.fail(new ConnectionLostError('connection error: closed by the endpoint', 'ECONNRESET', this.answerStarted)));
  }

  /** Whether another request may be sent on this connection. */
  get usable(): boolean {
    return this.ended === undefined && !this.closing;
  }

  get inFlight(): number {
    return this.outstanding.length;
  }

  /** Sends a POST now; resolves with its answer, in the order requests were sent. */
  post(headers: Record<string, string>, body: string): Promise<PipelinedResponse> {
    if (!this.usable) return Promise.reject(this.ended ?? new ConnectionLostError('connection error: closing', 'ECONNRESET', false));
    const bytes = Buffer.from(body);
    const lines = [`POST ${this.url.pathname}${this.url.search} HTTP/1.1`, `host: ${this.url.host}`];
    for (const [name, value] of Object.entries(headers)) {
      // Settings refuse these already (webhook-settings.ts); a line break here would forge a request.
      if (/[\r\n\0]/.test(name + value) || !name) return Promise.reject(new ConnectionLostError(`refused: header "${name}" is not valid`, 'EINVAL', false));
      lines.push(`${name}: ${value}`);
    }
    lines.push(`content-length: ${bytes.length}`, '', '');
    const promise = new Promise<PipelinedResponse>((resolve, reject) => this.outstanding.push({ resolve, reject }));
    this.socket.write(Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), bytes]));
    return promise;
  }

  close(): void {
    this.fail(new ConnectionLostError('connection error: closed', 'ECONNRESET', false));
  }

  private fail(error: Error, cause?: unknown): void {
    if (cause !== undefined) (error as Error & { cause?: unknown }).cause = cause;
    this.ended ??= error;
    for (const [index, waiting] of this.outstanding.splice(0).entries()) {
      // Only the first outstanding request can have had part of its answer.
      waiting.reject(index === 0 ? error : new ConnectionLostError(error.message, (error as ConnectionLostError).code ?? 'ECONNRESET', false));
    }
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    if (this.outstanding.length === 0) {
      this.fail(new ConnectionLostError('connection error: the endpoint answered a request that was not sent', 'EPROTO', false));
      return;
    }
    this.answerStarted = true;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const parsed = parseResponse(this.buffer);
      if (parsed === 'incomplete') {
        if (this.buffer.length > MAX_HEAD_BYTES && this.buffer.indexOf('\r\n\r\n') < 0) this.fail(new ConnectionLostError('connection error: answer head too large', 'EPROTO', true));
        return;
      }
      if (parsed === 'invalid') {
        this.fail(new ConnectionLostError('connection error: not an HTTP/1.1 answer', 'EPROTO', true));
        return;
      }
      this.buffer = this.buffer.subarray(parsed.consumed);
      if (parsed.status < 200) continue; // 100 Continue and other interim answers
      const waiting = this.outstanding.shift()!;
      this.answered++;
      this.answerStarted = this.buffer.length > 0;
      if (parsed.closing) this.closing = true;
      waiting.resolve({ status: parsed.status, body: parsed.body, closing: parsed.closing });
      if (this.closing) {
        this.fail(new ConnectionLostError('connection error: closed by the endpoint', 'ECONNRESET', false));
        return;
      }
      if (this.buffer.length === 0) return;
    }
  }
}

type Parsed = { status: number; body: string; closing: boolean; consumed: number };

/** One whole answer at the start of `buffer`, or why not. Bodies need a length or chunked encoding (a body to the close cannot pipeline). */
export function parseResponse(buffer: Buffer): Parsed | 'incomplete' | 'invalid' {
  const headEnd = buffer.indexOf('\r\n\r\n');
  if (headEnd < 0) return 'incomplete';
  const [statusLine, ...headerLines] = buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.([01]) (\d{3})/.exec(statusLine ?? '');
  if (!match) return 'invalid';
  const status = Number(match[2]);
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return 'invalid';
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
  }
  const connection = (headers.get('connection') ?? '').toLowerCase();
  const closing = match[1] === '0' ? !connection.includes('keep-alive') : connection.includes('close');
  const bodyStart = headEnd + 4;
  const noBody = status < 200 || status === 204 || status === 304;
  if (noBody) return { status, body: '', closing, consumed: bodyStart };
  if ((headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) {
    const chunks: Buffer[] = [];
    let at = bodyStart;
    for (;;) {
      const lineEnd = buffer.indexOf('\r\n', at);
      if (lineEnd < 0) return 'incomplete';
      const size = parseInt(buffer.subarray(at, lineEnd).toString('latin1').split(';')[0]!.trim(), 16);
      if (!Number.isFinite(size) || size < 0) return 'invalid';
      at = lineEnd + 2;
      if (size === 0) {
        // Trailers, if any, end with an empty line.
        const trailersEnd = buffer.indexOf('\r\n\r\n', at - 2);
        if (trailersEnd < 0) return 'incomplete';
        const body = Buffer.concat(chunks).toString('utf8', 0, KEPT_BODY_CHARS * 4).slice(0, KEPT_BODY_CHARS);
        return { status, body, closing, consumed: trailersEnd + 4 };
      }
      if (buffer.length < at + size + 2) return 'incomplete';
      chunks.push(buffer.subarray(at, at + size));
      at += size + 2;
    }
  }
  const lengthText = headers.get('content-length');
  // No length: the body runs to the close, so nothing can follow this answer.
  if (lengthText === undefined) return { status, body: '', closing: true, consumed: buffer.length };
  const length = Number(lengthText);
  if (!Number.isSafeInteger(length) || length < 0) return 'invalid';
  if (buffer.length < bodyStart + length) return 'incomplete';
  const body = buffer.subarray(bodyStart, bodyStart + Math.min(length, KEPT_BODY_CHARS * 4)).toString('utf8').slice(0, KEPT_BODY_CHARS);
  return { status, body, closing, consumed: bodyStart + length };
}
