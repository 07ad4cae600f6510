// Calls to the local API as the session's user: the bridge's api.request, and the
// core's own calls for uploads and downloads. A refused token is renewed once. A read
// that the backend's closing cut off (a sign-in, a sign-out or another org swapped it
// for another) is asked again of the backend that took its place.
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

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  if ((response.headers.get('content-type') ?? '').includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

export async function callLocalApi(backend: () => Promise<ApiBackend>, request: RawApiRequest): Promise<ApiResponse> {
  const response = await sendRenewingToken(backend, request);
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await readBody(response) };
}

/** A call whose answer is bytes (a file version's contents, a generated document), read whole; a JSON error body stays readable as `body`. */
export async function callLocalApiForBytes(backend: () => Promise<ApiBackend>, request: string | RawApiRequest): Promise<ApiResponse & { bytes: Uint8Array | null }> {
  const response = await sendRenewingToken(backend, typeof request === 'string' ? { method: 'GET', path: request } : request);
  const headers = Object.fromEntries(response.headers);
  if (response.status !== 200) return { status: response.status, headers, body: await readBody(response), bytes: null };
  return { status: response.status, headers, body: null, bytes: new Uint8Array(await response.arrayBuffer()) };
}

async function sendRenewingToken(backend: () => Promise<ApiBackend>, request: RawApiRequest): Promise<Response> {
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
    return fetch(`${baseUrl}${withQuery(request.path, request.query)}`, { method: request.method, headers, body, redirect: 'manual' });
  };
  let target = await backend();
  let response: Response;
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
    await response.body?.cancel();
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
