// Checks every part of the hardening suite applies to every answer: the server
// answered (no hang, no crash), never with a 5xx, and errors have DRF's shape
// (docs/http-api.md: {"detail": "..."} or {"field": ["message", ...]}).
import assert from 'node:assert/strict';
import type { HardeningServer, RawRequest, RawResponse } from './hardening-server.ts';

/** The last lines the server printed, for failure messages. */
export function outputTail(server: HardeningServer, lines = 30): string {
  return server.output().split('\n').slice(-lines).join('\n');
}

export function describeRequest(request: RawRequest): string {
  const body = request.body === undefined ? '' : ` body ${JSON.stringify(request.body.toString().slice(0, 160))}${request.body.length > 160 ? `... (${request.body.length} bytes)` : ''}`;
  return `${request.method} ${request.path.slice(0, 200)}${request.path.length > 200 ? '...' : ''} ${JSON.stringify(request.headers ?? {}).slice(0, 160)}${body}`;
}

/** True for `{"detail": string}` and for `{"field": [string, ...], ...}`. */
export function isDrfErrorBody(json: unknown): boolean {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
  const entries = Object.entries(json);
  if (entries.length === 0) return false;
  if ('detail' in json) return entries.length === 1 && typeof (json as { detail: unknown }).detail === 'string';
  return entries.every(([, messages]) => Array.isArray(messages) && messages.length > 0 && messages.every((message) => typeof message === 'string'));
}

/**
 * Sends the request and insists that the server answered, is still running and
 * did not answer 5xx; an error answer must have DRF's shape.
 */
export async function sendChecked(server: HardeningServer, request: RawRequest): Promise<RawResponse> {
  let response: RawResponse;
  try {
    response = await server.request(request);
  } catch (error) {
    assert.fail(`no answer to ${describeRequest(request)}: ${(error as Error).message}; server running: ${server.alive()}\n${outputTail(server)}`);
  }
  assert.ok(server.alive(), `the server died after ${describeRequest(request)}\n${outputTail(server)}`);
  assert.ok(response.status < 500, `${response.status} for ${describeRequest(request)}: ${response.text.slice(0, 300)}\n${outputTail(server)}`);
  if (response.status >= 400) {
    assert.ok(isDrfErrorBody(response.json), `the ${response.status} answer to ${describeRequest(request)} is not a DRF error body: ${response.text.slice(0, 300)}`);
  }
  return response;
}
