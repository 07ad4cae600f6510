// Errors a route throws to answer a client: each carries the status and the
// DRF-shaped body (compatibility.md "Status codes and error bodies").

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : JSON.stringify(body));
  }
}

export const notFound = (detail = 'Not found.') => new ApiError(404, { detail });
export const forbidden = (detail = 'You do not have permission to perform this action.') => new ApiError(403, { detail });
export const unauthorized = (detail = 'Authentication credentials were not provided.') =>
  new ApiError(401, { detail }, { 'www-authenticate': 'Bearer realm="api"' });
export const validationError = (errors: FieldErrors) => new ApiError(400, errors);
export const fieldError = (field: string, message: string) => validationError({ [field]: [message] });
export const nonFieldError = (message: string) => validationError({ non_field_errors: [message] });

export interface ValidationIssue {
  instancePath: string;
  message?: string;
}

/** zod issues -> `{"field": ["message"]}`; issues about the whole body -> non_field_errors. */
export function drfFieldErrors(issues: ValidationIssue[], context?: string): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const field = issue.instancePath.split('/').filter(Boolean)[0];
    const key = field ?? (context === 'querystring' ? 'query' : 'non_field_errors');
    const message = field === undefined && context !== 'querystring' && /expected object/i.test(issue.message ?? '')
      ? 'Invalid data. Expected a JSON object.'
      : (issue.message ?? 'Invalid value.');
    const messages = (errors[key] ??= []);
    if (!messages.includes(message)) messages.push(message);
  }
  return errors;
}

/** Error codes of a full disk or quota: the file system's, SQLite's and PostgreSQL's (53100 disk_full). */
const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);

/** Whether `error`, or an error it wraps, says the disk (or the user's quota on it) is full. */
export function isDiskFullError(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    if (DISK_FULL_CODES.has(String((at as { code?: unknown }).code))) return true;
  }
  return false;
}

/** 507 Insufficient Storage (RFC 4918 11.5): what a request that needed to write gets while the disk is full. */
export const DISK_FULL_STATUS = 507;
export const DISK_FULL_DETAIL =
  "The server's disk is full, so this request was not saved. Ask the server's administrator to free space on it, then send the request again.";
