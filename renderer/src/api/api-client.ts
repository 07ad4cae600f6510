// Typed calls to the local API through the bridge's api.request, with one error
// type whose message is ready to show.
import type { z } from 'zod';
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

type RequestOptions = { query?: Record<string, QueryValue>; body?: unknown };

async function okBody(method: HttpMethod, path: string, options: RequestOptions): Promise<unknown> {
  const response = await apiRequest<unknown>(method, path, options);
  if (response.status >= 300) throw new ApiFailure(describeFailure(response), response.status, fieldErrorsOf(response.body));
  return response.body;
}

/**
 * The body of a 2xx answer, checked against `schema` (shared/schemas/), the
 * engine's own contract for it; anything else throws an ApiFailure. For single
 * records and small answers, where a check costs nothing. The body comes back as
 * sent: the check never drops a key the schema does not name.
 */
export async function apiOk<Schema extends z.ZodType>(schema: Schema, method: HttpMethod, path: string, options: RequestOptions = {}): Promise<z.infer<Schema>> {
  const body = await okBody(method, path, options);
  const checked = schema.safeParse(body);
  if (!checked.success) throw new ApiFailure(`The answer of ${method} ${path} is not what the API promises: ${checked.error.issues[0]?.message ?? ''}`, 200, {});
  return body as z.infer<Schema>;
}

/**
 * apiOk typed by `schema` without checking: for big lists (a page of a thousand
 * project rows, a project's files), which a check would walk field by field on
 * every load, and for projects, whose answers carry free-form values the schema
 * only documents (main/engine/http/response-schemas.ts). The engine's serializers
 * are typed by the same schemas.
 */
export async function apiOkUnchecked<Schema extends z.ZodType>(_schema: Schema, method: HttpMethod, path: string, options: RequestOptions = {}): Promise<z.infer<Schema>> {
  return (await okBody(method, path, options)) as z.infer<Schema>;
}

/** A 2xx answer whose body is not used (a delete, an action); anything else throws an ApiFailure. */
export async function apiDone(method: HttpMethod, path: string, options: RequestOptions = {}): Promise<void> {
  await okBody(method, path, options);
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
