// Typed calls to the local API through the bridge's api.request, with one error
// type whose message is ready to show.
import type { ApiResponse, HttpMethod, QueryValue } from '../../../shared/bridge.ts';
import { requireBridge } from '../bridge-client.ts';

export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** DRF field errors: {field: [message]} */
    readonly fieldErrors: Record<string, string[]>,
  ) {
    super(message);
  }
}

function fieldErrorsOf(body: unknown): Record<string, string[]> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const errors: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(body)) {
    if (Array.isArray(messages)) errors[field] = messages.map((message) => (typeof message === 'string' ? message : JSON.stringify(message)));
  }
  return errors;
}

export function describeFailure(response: ApiResponse): string {
  const body = response.body as Record<string, unknown> | null;
  if (body && typeof body === 'object' && typeof body.detail === 'string') return body.detail;
  const fieldErrors = fieldErrorsOf(body);
  const first = Object.entries(fieldErrors)[0];
  if (first) return first[0] === 'non_field_errors' ? (first[1][0] ?? '') : `${first[0]}: ${first[1][0] ?? ''}`;
  return `The request failed (HTTP ${response.status}).`;
}

export async function apiRequest<T>(method: HttpMethod, path: string, options: { query?: Record<string, QueryValue>; body?: unknown } = {}): Promise<ApiResponse<T>> {
  return (await requireBridge().invoke('api.request', { method, path, ...options })) as ApiResponse<T>;
}

/** The body of a 2xx answer; anything else throws an ApiFailure. */
export async function apiOk<T>(method: HttpMethod, path: string, options: { query?: Record<string, QueryValue>; body?: unknown } = {}): Promise<T> {
  const response = await apiRequest<T>(method, path, options);
  if (response.status >= 300) throw new ApiFailure(describeFailure(response), response.status, fieldErrorsOf(response.body));
  return response.body;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
