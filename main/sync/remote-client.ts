// The remote service as the sync engine sees it: only its public API
// (compatibility.md), paced by the quota pacer, with every answer sorted into
// what to do next (sync-lessons.md: retryable, rejected or fatal).
import got from 'got';
import { Agent, fetch as undiciFetch } from 'undici';
import type { ThrottleAction } from '../../shared/throttle-rates.ts';
import type { QuotaPacer, RequestClass } from './quota-pacer.ts';

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
}

export interface RemoteClientOptions {
  baseUrl: string;
  token: () => string | null;
  pacer: QuotaPacer;
  timeoutMs?: number;
  /** GET answers remembered with their ETag, for If-None-Match (default REMEMBERED_ANSWERS; 0: none). */
  rememberedAnswers?: number;
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
    await this.options.pacer.take(request.action, request.requestClass ?? 'user');
    const key = `${request.method} ${request.action}`;
    this.sent.set(key, (this.sent.get(key) ?? 0) + 1);
    const token = this.options.token();
    // A GET remembers its answer by URL and asks with If-None-Match next time (issue 15).
    const rememberKey = request.method === 'GET' ? `${request.path}?${new URLSearchParams(Object.entries(request.query ?? {}).map(([key, value]): [string, string] => [key, String(value)])).toString()}` : null;
    const remembered = rememberKey !== null && !request.headers?.['if-none-match'] ? this.remembered.get(rememberKey) : undefined;
    let response;
    try {
      response = await got(this.url(request.path), {
        method: request.method,
        searchParams: request.query,
        ...(request.form ? { body: request.form } : request.bytes ? { body: request.bytes } : { json: request.json }),
        headers: {
          accept: 'application/json',
          ...(request.bytes ? { 'content-type': 'application/octet-stream' } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(remembered ? { 'if-none-match': remembered.etag } : {}),
          ...request.headers,
        },
        timeout: { request: request.timeoutMs ?? this.options.timeoutMs ?? 30_000 },
        retry: { limit: 0 },
        throwHttpErrors: false,
        followRedirect: false,
        responseType: 'text',
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      return { kind: 'unreachable', message: `${code ?? 'network error'}: ${(error as Error).message}` };
    }
    const status = response.statusCode;
    if (status === 304 && remembered) {
      this.notModifiedCount++;
      return { kind: 'ok', status, body: JSON.parse(remembered.text), etag: remembered.etag, notModified: true };
    }
    let body: unknown = response.body;
    try {
      body = response.body ? JSON.parse(response.body) : null;
    } catch {
      // not JSON: keep the text for the message
    }
    const detail = typeof body === 'object' && body !== null ? JSON.stringify(body).slice(0, 500) : String(body).slice(0, 200);
    if (status >= 200 && status < 300) {
      const etag = response.headers.etag;
      if (rememberKey !== null) {
        if (status === 200 && typeof etag === 'string' && typeof body === 'object' && body !== null) this.remembered.set(rememberKey, etag, response.body);
        else this.remembered.forget(rememberKey);
      }
      return { kind: 'ok', status, body, ...(typeof etag === 'string' ? { etag } : {}) };
    }
    if (status === 401) return { kind: 'unauthorized', message: `the remote refused the token (${detail})` };
    if (status === 429) {
      const retryAfterSeconds = Number(response.headers['retry-after'] ?? '1') || 1;
      this.options.pacer.pause(request.action, retryAfterSeconds);
      return { kind: 'retry', status, message: `throttled by the remote for ${retryAfterSeconds} s`, retryAfterMs: retryAfterSeconds * 1000 };
    }
    if (status >= 500) return { kind: 'retry', status, message: `the remote failed (HTTP ${status}): ${detail}` };
    return { kind: 'rejected', status, body, message: `HTTP ${status}: ${detail}` };
  }
}

/** Streams a signed download link (no Authorization: the link carries its own signature). */
export function downloadStream(url: string, timeoutMs = 60_000) {
  return got.stream(url, { timeout: { request: timeoutMs }, retry: { limit: 0 }, followRedirect: true });
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
