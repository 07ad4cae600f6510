// The remote service as the sync engine sees it: only its public API
// (compatibility.md), paced by the quota pacer, with every answer sorted into
// what to do next (sync-lessons.md: retryable, rejected or fatal).
import got from 'got';
import { loadUndici } from '../engine/lazy-modules.ts';
import type { ThrottleAction } from '../../shared/throttle-rates.ts';
import type { AllowanceWait, QuotaPacer, RequestClass } from './quota-pacer.ts';
import { Readable } from 'node:stream';
import { FormDataEncoder } from 'form-data-encoder';
import type { BandwidthLimiter } from './bandwidth-limiter.ts';
import { BoundedJsonText, REMOTE_LIMITS, RemoteAnswerRefused, refusedLinkReason } from './remote-limits.ts';

export type RemoteOutcome =
  /**
   * `etag`: the record's version when the remote sent one (main/sync/write-preconditions.ts).
   * `notModified`: the remote answered 304 to the remembered ETag, and `body` is the
   * answer remembered with it (status 304); the request cost no quota on a SolarDesk server.
   */
  | { kind: 'ok'; status: number; body: any; etag?: string; notModified?: boolean } // eslint-disable-line @typescript-eslint/no-explicit-any -- API JSON
  /** 4xx other than 401 and 429: the remote will not take this change as it is. */
  | { kind: 'rejected'; status: number; body: unknown; message: string }
  /** 401: the token is no good; the user must sign in again. */
  | { kind: 'unauthorized'; message: string }
  /** 429 or 5xx: try again later (after `retryAfterMs` when the remote said). */
  | { kind: 'retry'; status: number; message: string; retryAfterMs?: number }
  /** No answer: offline, refused, reset or timed out. The request may or may not have been applied. */
  | { kind: 'unreachable'; message: string };

/** An open hint stream: `close()` ends it and its connection (always call it when done). */
export interface EventStream {
  status: number;
  body: ReadableStream<Uint8Array> | null;
  close(): Promise<void>;
}

export interface RemoteRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number>;
  json?: unknown;
  /** A multipart body (a file upload) instead of JSON. */
  form?: FormData;
  /** Raw bytes (a part of a chunked upload), sent as application/octet-stream. */
  bytes?: Buffer;
  /** The quota the request counts against. */
  action: ThrottleAction;
  /** Overrides the client's timeout (a large body needs longer). */
  timeoutMs?: number;
  /** Extra request headers (If-Match on a conditional write). */
  headers?: Record<string, string>;
  /**
   * `user` (default): work a person waits for, paced by the quotas. `background`:
   * polling and sweeps, within the budget; throws BudgetWaitError rather than wait.
   */
  requestClass?: RequestClass;
  /** Hears once that this (user) request waits for the allowance, and until when (QuotaPacer.take). */
  onAllowanceWait?: (wait: AllowanceWait) => void;
}

export interface RemoteClientOptions {
  baseUrl: string;
  token: () => string | null;
  pacer: QuotaPacer;
  timeoutMs?: number;
  /** GET answers remembered with their ETag, for If-None-Match (default REMEMBERED_ANSWERS; 0: none). */
  rememberedAnswers?: number;
  /** The user's speed caps on file contents (main/sync/bandwidth-limiter.ts); none when absent. */
  bandwidth?: BandwidthLimiter;
}

/** How many GET answers (by URL) are remembered for conditional requests. */
export const REMEMBERED_ANSWERS = 256;
/** Answers longer than this are not remembered (a page of a thousand studio rows). */
const REMEMBERED_MAX_CHARS = 2 * 1024 * 1024;

/**
 * The last ETag and body of each GET URL, least recently used first out: the next GET
 * of the URL sends If-None-Match, and a 304 hands back the remembered body. Bodies are
 * kept as text and parsed on each use, so no caller can change what is remembered.
 */
class RememberedAnswers {
  private readonly entries = new Map<string, { etag: string; text: string }>();
  constructor(private readonly capacity: number) {}

  get(key: string): { etag: string; text: string } | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, etag: string, text: string): void {
    this.entries.delete(key);
    if (this.capacity <= 0 || text.length > REMEMBERED_MAX_CHARS) return;
    this.entries.set(key, { etag, text });
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

export class RemoteClient {
  /** Requests sent, by "METHOD action": what the benchmark and tests count. */
  readonly sent = new Map<string, number>();
  /** GETs the remote answered 304 (counted in `sent` too). */
  notModifiedCount = 0;
  private readonly remembered: RememberedAnswers;
  /** Aborted by stop(): every request and pacer wait ends with it. */
  private readonly stopping = new AbortController();

  constructor(private readonly options: RemoteClientOptions) {
    this.remembered = new RememberedAnswers(options.rememberedAnswers ?? REMEMBERED_ANSWERS);
  }

  /** How many GET answers are remembered now (tests). */
  get rememberedCount(): number {
    return this.remembered.size;
  }

  /** The pacer and budget every request goes through. */
  get pacer(): QuotaPacer {
    return this.options.pacer;
  }

  /** The speed caps file contents go through, when the user set any. */
  get bandwidth(): BandwidthLimiter | undefined {
    return this.options.bandwidth;
  }

  get baseUrl(): string {
    return this.options.baseUrl.replace(/\/+$/, '');
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  /**
   * Opens a long-lived GET (the change feed's hint stream, text/event-stream) with the
   * token; not paced: the stream counts against no quota on a SolarDesk server.
   *
   * The stream has a connection of its own, destroyed when `signal` aborts or the caller
   * closes the stream: nothing of it outlives the agent. (Through the shared pool of
   * `fetch`, aborting a streaming response makes undici reconnect for the aborted request
   * and leave that never-used connection idle in the pool, where it held the remote's
   * close until its keep-alive ran out: nodejs/undici#5845.)
   */
  async openEventStream(path: string, signal: AbortSignal): Promise<EventStream> {
    const token = this.options.token();
    const key = 'GET stream';
    this.sent.set(key, (this.sent.get(key) ?? 0) + 1);
    const { Agent, fetch: undiciFetch } = await loadUndici();
    const connection = new Agent({ connections: 1 });
    let closing: Promise<void> | undefined;
    const close = () => {
      signal.removeEventListener('abort', close);
      closing ??= connection.destroy().catch(() => undefined);
      return closing;
    };
    signal.addEventListener('abort', close, { once: true });
    if (signal.aborted) void close();
    try {
      const response = await undiciFetch(this.url(path), {
        headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        signal,
        redirect: 'manual',
        dispatcher: connection,
      });
      return { status: response.status, body: response.body, close };
    } catch (error) {
      await close();
      throw error;
    }
  }

  async request(request: RemoteRequest): Promise<RemoteOutcome> {
    const requestClass = request.requestClass ?? 'user';
    let takenAt: number;
    try {
      takenAt = await this.options.pacer.take(request.action, requestClass, this.stopping.signal, request.onAllowanceWait);
    } catch (error) {
      if (this.stopping.signal.aborted) return { kind: 'unreachable', message: 'the agent is closing' };
      throw error; // BudgetWaitError: the caller leaves the work for later
    }
    const key = `${request.method} ${request.action}`;
    this.sent.set(key, (this.sent.get(key) ?? 0) + 1);
    const token = this.options.token();
    // A GET remembers its answer by URL and asks with If-None-Match next time (issue 15).
    const rememberKey = request.method === 'GET' ? `${request.path}?${new URLSearchParams(Object.entries(request.query ?? {}).map(([key, value]): [string, string] => [key, String(value)])).toString()}` : null;
    const remembered = rememberKey !== null && !request.headers?.['if-none-match'] ? this.remembered.get(rememberKey) : undefined;
    let answer: { status: number; headers: Record<string, string | string[] | undefined>; text: string };
    try {
      answer = await this.send(request, token, remembered?.etag);
    } catch (error) {
      // Over a limit (remote-limits.ts): the remote answered, but nothing of it is taken; it is asked again after a backoff.
      if (error instanceof RemoteAnswerRefused) return { kind: 'retry', status: 0, message: `${error.message}; nothing of it was taken` };
      const code = (error as { code?: string }).code;
      return { kind: 'unreachable', message: `${code ?? 'network error'}: ${(error as Error).message}` };
    } finally {
      // The remote counted it on arrival, at the latest by now.
      this.options.pacer.answered(request.action, requestClass, takenAt);
    }
    const { status } = answer;
    if (status === 304 && remembered) {
      this.notModifiedCount++;
      return { kind: 'ok', status, body: JSON.parse(remembered.text), etag: remembered.etag, notModified: true };
    }
    let body: unknown = answer.text;
    let readable = true;
    try {
      body = answer.text ? JSON.parse(answer.text) : null;
    } catch {
      readable = false; // not JSON: keep the text for the message
    }
    const detail = typeof body === 'object' && body !== null ? JSON.stringify(body).slice(0, 500) : String(body).slice(0, 200);
    if (status >= 200 && status < 300) {
      // A captive portal's page, or a proxy's: not an answer from the API. Retried after a backoff, like a 5xx.
      if (!readable) return { kind: 'retry', status, message: `the remote's answer could not be read (HTTP ${status}, not JSON): ${detail}` };
      const etag = answer.headers.etag;
      if (rememberKey !== null) {
        if (status === 200 && typeof etag === 'string' && typeof body === 'object' && body !== null) this.remembered.set(rememberKey, etag, answer.text);
        else this.remembered.forget(rememberKey);
      }
      return { kind: 'ok', status, body, ...(typeof etag === 'string' ? { etag } : {}) };
    }
    if (status === 401) return { kind: 'unauthorized', message: `the remote refused the token (${detail})` };
    if (status === 429) {
      const retryAfterSeconds = readRetryAfterSeconds(answer.headers['retry-after']);
      this.options.pacer.pause(request.action, retryAfterSeconds);
      return { kind: 'retry', status, message: `throttled by the remote for ${retryAfterSeconds} s`, retryAfterMs: retryAfterSeconds * 1000 };
    }
    if (status >= 500) return { kind: 'retry', status, message: `the remote failed (HTTP ${status}): ${detail}` };
    return { kind: 'rejected', status, body, message: `HTTP ${status}: ${detail}` };
  }

  /**
   * Ends every request in flight and every wait for the pacer (the agent is closing):
   * each ends as `unreachable`, and no new one goes out.
   */
  stop(): void {
    this.stopping.abort(new Error('the agent is closing'));
  }

  /**
   * The bytes an API route of the remote serves (a version's contents), with the token,
   * paced and counted like any request against `action`'s quota. Read the stream to start it.
   */
  async downloadFromApi(path: string, action: ThrottleAction, requestClass: RequestClass = 'user'): Promise<Readable> {
    await this.options.pacer.take(action, requestClass, this.stopping.signal);
    const key = `GET ${action}`;
    this.sent.set(key, (this.sent.get(key) ?? 0) + 1);
    return downloadStream(this.url(path), {
      remoteBaseUrl: this.baseUrl,
      downloadHosts: [],
      token: this.options.token(),
      signal: this.stopping.signal,
      ...(this.options.bandwidth ? { pace: { limiter: this.options.bandwidth, requestClass } } : {}),
    });
  }

  /** Aborted once stop() is called: downloads of the remote's links end with it too. */
  get stopSignal(): AbortSignal {
    return this.stopping.signal;
  }

  /**
   * A file upload's body (a multipart form, or a chunked upload's raw part), through the
   * speed caps when there is a limiter. The form is encoded as got itself encodes one
   * (form-data-encoder, with its Content-Length), so the bytes sent are the same.
   */
  private uploadBody(request: RemoteRequest): { body: Readable | FormData | Buffer; headers: Record<string, string> } | null {
    const limiter = this.options.bandwidth;
    const requestClass = request.requestClass ?? 'user';
    if (request.form) {
      if (!limiter) return { body: request.form, headers: {} };
      const encoder = new FormDataEncoder(request.form);
      return { body: Readable.from(limiter.paced(encoder.encode(), 'upload', requestClass, this.stopping.signal)), headers: { ...encoder.headers } };
    }
    if (request.bytes) {
      const headers = { 'content-type': 'application/octet-stream', 'content-length': String(request.bytes.length) };
      if (!limiter) return { body: request.bytes, headers };
      return { body: Readable.from(limiter.paced([request.bytes], 'upload', requestClass, this.stopping.signal)), headers };
    }
    return null;
  }

  /** Sends one request and reads its answer as it streams in, within REMOTE_LIMITS (throws RemoteAnswerRefused past them). */
  private async send(request: RemoteRequest, token: string | null, etag: string | undefined) {
    const upload = this.uploadBody(request);
    const stream = got.stream(this.url(request.path), {
      method: request.method,
      searchParams: request.query,
      ...(upload ? { body: upload.body } : request.json === undefined ? {} : { json: request.json }),
      headers: {
        accept: 'application/json',
        ...upload?.headers,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(etag ? { 'if-none-match': etag } : {}),
        ...request.headers,
      },
      timeout: { request: request.timeoutMs ?? this.options.timeoutMs ?? 30_000 },
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      signal: this.stopping.signal,
    });
    stream.on('error', ignoreLateError);
    // A got stream of a method that may carry a body waits for one to be written: a DELETE (or a POST) without one ends here.
    if (request.method !== 'GET' && !request.form && !request.bytes && request.json === undefined) stream.end();
    try {
      const response = await new Promise<{ statusCode: number; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
        stream.once('response', resolve);
        stream.once('error', reject);
      });
      const collected = new BoundedJsonText();
      const decoder = new TextDecoder();
      for await (const chunk of stream as AsyncIterable<Buffer>) collected.push(decoder.decode(chunk, { stream: true }));
      collected.push(decoder.decode());
      return { status: response.statusCode, headers: response.headers, text: collected.text() };
    } finally {
      stream.destroy(); // over a limit, or failed: the rest is not read, and the connection goes
    }
  }
}

/** Retry-After in seconds (a number or an HTTP date), at least 1 and at most REMOTE_LIMITS.retryAfterMaxSeconds. */
export function readRetryAfterSeconds(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header[0] : header;
  let seconds = Number(value);
  if (value !== undefined && !Number.isFinite(seconds)) seconds = (Date.parse(value) - Date.now()) / 1000;
  if (!Number.isFinite(seconds) || seconds < 1) return 1;
  return Math.min(Math.ceil(seconds), REMOTE_LIMITS.retryAfterMaxSeconds);
}

/**
 * A got stream's errors reach its caller through the awaited answer or the reading;
 * this listener only keeps a late one (the agent's close aborting a stream already
 * read) from being an uncaught exception.
 */
function ignoreLateError(): void {}

/** A link the agent will not fetch (remote-limits.ts refusedLinkReason); its message is the reason, as a sentence's end. */
export class RemoteLinkRefused extends Error {}

export interface DownloadOptions {
  /** The remote the link came from: its origin may always be fetched. */
  remoteBaseUrl: string;
  /** Other hosts the user named for downloads (--download-hosts, or the app's setting; empty by default). */
  downloadHosts: readonly string[];
  /** Where the user names them, for the refusal's advice (default "--download-hosts"). */
  whereHostsAreNamed?: string;
  /**
   * The remote's token, for an API route that serves bytes (a version's contents): sent
   * only to the remote's own origin, never with a redirect that leads elsewhere.
   */
  token?: string | null;
  timeoutMs?: number;
  /** Ends the download (the agent is closing). */
  signal?: AbortSignal;
  /** The speed caps the bytes go through, and whose work this is (a person's open goes first). */
  pace?: { limiter: BandwidthLimiter; requestClass: RequestClass };
  /**
   * Ask for the bytes from `start` on (a download resumed, main/sync/resumable-download.ts),
   * only if the contents are still the ones `ifRange` (their ETag) names: a remote whose
   * file changed answers 200 with the whole of the new contents instead of 206.
   */
  range?: { start: number; ifRange: string };
  /** Told the final answer's status and headers before its first byte is read (206 or 200, and its ETag). */
  onAnswer?: (answer: { status: number; headers: Record<string, string | string[] | undefined> }) => void;
}

/**
 * Streams a signed download link (no Authorization: the link carries its own
 * signature). The link, and every redirect it takes (at most REMOTE_LIMITS.redirects),
 * must be http(s) on the remote's origin or a named download host; anything else
 * fails this download with RemoteLinkRefused. The request starts when the stream is
 * first read, so an early failure always reaches whoever reads it (a got stream that
 * fails before anyone listens takes the process down with it).
 */
export function downloadStream(url: string, options: DownloadOptions): Readable {
  const refuse = (target: string) => {
    const reason = refusedLinkReason(target, options.remoteBaseUrl, options.downloadHosts, options.whereHostsAreNamed);
    if (reason) throw new RemoteLinkRefused(reason);
  };
  return Readable.from(
    (async function* () {
      // Redirects are followed here, not by got: each hop is checked before it is asked for (got looks at the
      // protocol first, and would fail a file: hop with its own words).
      let target = url;
      for (let hop = 0; ; hop++) {
        refuse(target);
        const isRemote = new URL(target).origin === new URL(options.remoteBaseUrl).origin;
        const headers: Record<string, string> = options.token && isRemote ? { authorization: `Bearer ${options.token}` } : {};
        if (options.range) Object.assign(headers, { range: `bytes=${options.range.start}-`, 'if-range': options.range.ifRange });
        const stream = got.stream(target, { headers, timeout: { request: options.timeoutMs ?? 60_000 }, retry: { limit: 0 }, followRedirect: false, throwHttpErrors: false, signal: options.signal });
        stream.on('error', ignoreLateError);
        const response = await new Promise<{ statusCode: number; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
          stream.once('response', resolve);
          stream.once('error', reject);
        });
        const location = response.headers.location;
        if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
          stream.destroy();
          if (hop >= REMOTE_LIMITS.redirects) throw new RemoteLinkRefused(`the link redirected more than ${REMOTE_LIMITS.redirects} times`);
          target = new URL(location, target).href;
          continue;
        }
        if (response.statusCode < 200 || response.statusCode >= 300) {
          stream.destroy();
          throw new Error(`the link answered HTTP ${response.statusCode}`);
        }
        options.onAnswer?.({ status: response.statusCode, headers: response.headers });
        try {
          yield* options.pace ? options.pace.limiter.paced(stream as AsyncIterable<Buffer>, 'download', options.pace.requestClass, options.signal) : (stream as AsyncIterable<Buffer>);
        } finally {
          stream.destroy();
        }
        return;
      }
    })(),
    { objectMode: false },
  );
}

/** Signs in through /api-token-auth/ (compatibility.md). */
export async function signInToRemote(
  baseUrl: string,
  username: string,
  password: string,
): Promise<{ token: string; userId: number; email: string; orgId: number | null }> {
  let response;
  try {
    response = await got.post(`${baseUrl.replace(/\/+$/, '')}/api-token-auth/`, {
      json: { username, password },
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: 30_000 },
      responseType: 'json',
    });
  } catch (error) {
    throw new Error(`cannot reach ${baseUrl}: ${(error as Error).message}. Check the URL and your connection.`);
  }
  const body = response.body as { token?: string; user?: { id: number; email: string }; org_id?: number | null; non_field_errors?: string[] };
  if (response.statusCode === 400) throw new Error(`the remote refused the sign-in: ${body.non_field_errors?.join(' ') ?? 'bad username or password'}`);
  if (response.statusCode !== 200 || !body.token || !body.user) throw new Error(`the remote answered the sign-in with HTTP ${response.statusCode}`);
  return { token: body.token, userId: body.user.id, email: body.user.email, orgId: body.org_id ?? null };
}
