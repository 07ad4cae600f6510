// Calls to the local API as the session's user: the bridge's api.request, and the
// core's own calls for uploads and downloads. A refused token is renewed once. A read
// that the backend's closing cut off (a sign-in, a sign-out or another org swapped it
// for another) is asked again of the backend that took its place.
import http from 'node:http';
import { BridgeError, type ApiRequest, type ApiResponse, type QueryValue } from '../../shared/bridge.ts';
import type { LocalBackend } from './local-backend.ts';

/** What a call to a backend's local API needs of it. */
export type ApiBackend = Pick<LocalBackend, 'api' | 'renewToken'>;

export interface RawApiRequest extends Omit<ApiRequest, 'body'> {
  /** JSON body. */
  body?: unknown;
  /** Raw bytes instead of JSON (upload parts). */
  bytes?: Uint8Array;
  /** The bytes' type; application/octet-stream when not given. */
  contentType?: string;
}

export function withQuery(path: string, query: Record<string, QueryValue> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** A whole answer of the local API. */
interface LocalAnswer {
  status: number;
  /** Lower-case names; a repeated header's values joined with ", " (as fetch's Headers give them). */
  headers: Record<string, string>;
  bytes: Buffer;
}

// The local API is on 127.0.0.1, in this process or the sync agent's. node:http with
// kept-alive connections costs about half of fetch's CPU a call (fetch's web streams),
// and needs nothing loaded: fetch's first call loaded undici, on the first screen's path.
// An idle connection is dropped after 5 s, well before the server would close it (Fastify
// keeps one 72 s), so a call seldom meets a connection closing under it.
const keptAlive = new http.Agent({ keepAlive: true, timeout: 5_000 });

function sendToLocalApi(url: string, method: string, headers: Record<string, string>, body: string | Uint8Array | undefined, isRetry = false): Promise<LocalAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers, agent: keptAlive }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const answerHeaders: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: response.statusCode ?? 0, headers: answerHeaders, bytes: Buffer.concat(chunks) });
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive connection closed as this read went out: it goes once more on a new
      // connection (node:http's documented remedy). A change is not sent twice: the server
      // may have taken it before the connection went.
      if (request.reusedSocket && error.code === 'ECONNRESET' && method === 'GET' && !isRetry) sendToLocalApi(url, method, headers, body, true).then(resolve, reject);
      else reject(error);
    });
    request.end(body);
  });
}

function readBody(answer: LocalAnswer): unknown {
  const text = answer.bytes.toString('utf8');
  if (text === '') return null;
  if ((answer.headers['content-type'] ?? '').includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

export async function callLocalApi(backend: () => Promise<ApiBackend>, request: RawApiRequest): Promise<ApiResponse> {
  const answer = await sendRenewingToken(backend, request);
  return { status: answer.status, headers: answer.headers, body: readBody(answer) };
}

/** A call whose answer is bytes (a file version's contents, a generated document), read whole; a JSON error body stays readable as `body`. */
export async function callLocalApiForBytes(backend: () => Promise<ApiBackend>, request: string | RawApiRequest): Promise<ApiResponse & { bytes: Uint8Array | null }> {
  const answer = await sendRenewingToken(backend, typeof request === 'string' ? { method: 'GET', path: request } : request);
  if (answer.status !== 200) return { status: answer.status, headers: answer.headers, body: readBody(answer), bytes: null };
  return { status: answer.status, headers: answer.headers, body: null, bytes: new Uint8Array(answer.bytes.buffer, answer.bytes.byteOffset, answer.bytes.byteLength) };
}

async function sendRenewingToken(backend: () => Promise<ApiBackend>, request: RawApiRequest): Promise<LocalAnswer> {
  const send = async (target: ApiBackend) => {
    const { baseUrl, token } = target.api();
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    let body: string | Uint8Array | undefined;
    if (request.bytes) {
      headers['content-type'] = request.contentType ?? 'application/octet-stream';
      body = request.bytes;
    } else if (request.body !== undefined && request.method !== 'GET') {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.body);
    }
    return sendToLocalApi(`${baseUrl}${withQuery(request.path, request.query)}`, request.method, headers, body);
  };
  let target = await backend();
  let response: LocalAnswer;
  try {
    response = await send(target);
  } catch (error) {
    const current = await backend();
    if (current === target) throw error;
    // The backend it went to closed under it and another took its place. A read is asked
    // of that one; a change may or may not have been saved by the one that closed, and
    // belongs to a workspace no longer open, so it is not sent again, and the person is told.
    if (request.method !== 'GET') {
      throw new BridgeError('SolarDesk switched workspace (a sign-in, a sign-out or another org) while this change was being saved, so it may not have been. Look, and make it again if it is not there.', {
        status: 409,
      });
    }
    target = current;
    response = await send(target);
  }
  if (response.status === 401) {
    await target.renewToken();
    response = await send(target);
  }
  return response;
}

/** The first message of a DRF-shaped error body, for one line in the UI. */
export function describeApiError(response: ApiResponse): string {
  const body = response.body;
  if (typeof body === 'object' && body !== null) {
    const record = body as Record<string, unknown>;
    if (typeof record.detail === 'string') return record.detail;
    for (const [field, messages] of Object.entries(record)) {
      const first = Array.isArray(messages) ? messages[0] : messages;
      if (typeof first === 'string') return field === 'non_field_errors' ? first : `${field}: ${first}`;
    }
  }
  if (typeof body === 'string' && body.trim() !== '') return body.trim().slice(0, 200);
  return `The local API answered ${response.status}.`;
}
