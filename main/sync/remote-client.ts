// The remote service as the sync engine sees it: only its public API
// (compatibility.md), paced by the quota pacer, with every answer sorted into
// what to do next (sync-lessons.md: retryable, rejected or fatal).
import got from 'got';
import type { ThrottleAction } from '../../shared/throttle-rates.ts';
import type { QuotaPacer } from './quota-pacer.ts';

export type RemoteOutcome =
  /** `etag`: the record's version when the remote sent one (main/sync/write-preconditions.ts). */
  | { kind: 'ok'; status: number; body: any; etag?: string } // eslint-disable-line @typescript-eslint/no-explicit-any -- API JSON
  /** 4xx other than 401 and 429: the remote will not take this change as it is. */
  | { kind: 'rejected'; status: number; body: unknown; message: string }
  /** 401: the token is no good; the user must sign in again. */
  | { kind: 'unauthorized'; message: string }
  /** 429 or 5xx: try again later (after `retryAfterMs` when the remote said). */
  | { kind: 'retry'; status: number; message: string; retryAfterMs?: number }
  /** No answer: offline, refused, reset or timed out. The request may or may not have been applied. */
  | { kind: 'unreachable'; message: string };

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
   * Whose work this is, for the budget (issue 15): `user` for what a person asked for
   * (a file opened or downloaded), `background` for sync's own work (polls, sweeps,
   * prefetch). Absent: background.
   */
  priority?: 'user' | 'background';
}

export interface RemoteClientOptions {
  baseUrl: string;
  token: () => string | null;
  pacer: QuotaPacer;
  timeoutMs?: number;
}

export class RemoteClient {
  /** Requests sent, by "METHOD action": what the benchmark and tests count. */
  readonly sent = new Map<string, number>();

  constructor(private readonly options: RemoteClientOptions) {}

  get baseUrl(): string {
    return this.options.baseUrl.replace(/\/+$/, '');
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  async request(request: RemoteRequest): Promise<RemoteOutcome> {
    await this.options.pacer.take(request.action);
    const key = `${request.method} ${request.action}`;
    this.sent.set(key, (this.sent.get(key) ?? 0) + 1);
    const token = this.options.token();
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
    let body: unknown = response.body;
    try {
      body = response.body ? JSON.parse(response.body) : null;
    } catch {
      // not JSON: keep the text for the message
    }
    const status = response.statusCode;
    const detail = typeof body === 'object' && body !== null ? JSON.stringify(body).slice(0, 500) : String(body).slice(0, 200);
    if (status >= 200 && status < 300) {
      const etag = response.headers.etag;
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
