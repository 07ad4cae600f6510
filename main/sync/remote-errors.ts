// How a cycle stops when the remote did not answer a request: unreachable, asking
// for a new sign-in, or busy (429, 5xx). Kept apart from push and pull, which both
// raise them, so neither imports the other for them.
import type { RemoteOutcome } from './remote-client.ts';
import { labelOf } from '../../shared/field-labels.ts';

export class RemoteUnreachableError extends Error {}
/** The remote answered, but asked to come back later (429, 5xx): reachable, not done. */
export class RemoteBusyError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}
export class SignInRequiredError extends Error {}

/** Throws the error that stops the cycle when the remote gave no answer to act on; a refusal (4xx) is an answer. */
export function throwUnlessAnswered(outcome: RemoteOutcome): void {
  if (outcome.kind === 'unreachable') throw new RemoteUnreachableError(outcome.message);
  if (outcome.kind === 'unauthorized') throw new SignInRequiredError(outcome.message);
  if (outcome.kind === 'retry') throw new RemoteBusyError(outcome.message, outcome.retryAfterMs);
}

// ---------------------------------------------------------------------------
// What people read: every sentence the app shows about the remote is built here
// (the sync status line, a failed sign-in, the question before signing out).

/** "30 s", "2 min", "1 h": how long until the next try, rounded as a person would say it. */
export function describeWait(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  return `${Math.round(minutes / 60)} h`;
}

/** Network error codes people never need to see, as what they mean. */
const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'is not answering (nothing accepts connections there)',
  ECONNRESET: 'is not answering (the connection was cut)',
  ETIMEDOUT: 'is not answering (it took too long)',
  ENOTFOUND: 'cannot be found (check the address)',
  EAI_AGAIN: 'cannot be found right now (check your connection)',
  EHOSTUNREACH: 'cannot be reached from this network',
  ENETUNREACH: 'cannot be reached: this computer seems to be offline',
  ECONNABORTED: 'is not answering (the connection was cut)',
};

function networkReason(message: string): string {
  const code = /\b(E[A-Z_]{3,})\b/.exec(message)?.[1];
  return (code && NETWORK_REASONS[code]) ?? 'is not answering';
}

/**
 * Why the last sync cycle stopped, as one sentence with what happens next and what
 * to do: "The server at https://x is not answering. SolarDesk tries again in 30 s."
 * `retryInMs` is when the next try comes (null: it does not try on its own).
 */
export function describeSyncStop(error: unknown, remoteUrl: string, retryInMs: number | null): string {
  const again = retryInMs === null ? '' : ` SolarDesk tries again in ${describeWait(retryInMs)}.`;
  if (error instanceof RemoteUnreachableError) return `The server at ${remoteUrl} ${networkReason(error.message)}.${again}`;
  if (error instanceof SignInRequiredError) return `Your sign-in to ${remoteUrl} has expired or was withdrawn. Sign in again on the Sync screen; your changes wait on this computer.`;
  if (error instanceof RemoteBusyError) {
    if (/throttled/.test(error.message)) return `The server at ${remoteUrl} asked to wait: a request quota is used up for now.${again}`;
    const status = /^the remote failed \(HTTP (\d{3})\)/.exec(error.message)?.[1];
    if (status) return `The server at ${remoteUrl} had a problem (HTTP ${status}) and asked to wait.${again}`;
    // An answer the agent does not take: over a limit, or not the API's (remote-limits.ts, remote-client.ts).
    return `The server at ${remoteUrl} sent an answer SolarDesk did not take: ${error.message.replace(/\.$/, '')}.${again}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `Sync stopped on an unexpected problem: ${message.replace(/\.$/, '')}.${again || ' SolarDesk tries again at the next sync.'}`;
}

/** A sign-in that did not work, said so the user knows what to change. */
export function describeSignInFailure(remoteUrl: string, reason: string): string {
  if (/cannot reach/i.test(reason)) return `Sign-in failed: the server at ${remoteUrl} ${networkReason(reason)}. Check the address and your connection, then try again.`;
  if (/refused|credentials|password|unable to log in|400|401/i.test(reason)) {
    return `Sign-in failed: ${remoteUrl} refused that username and password. Check them and try again.`;
  }
  return `Sign-in failed: ${reason.replace(/\.$/, '')}.`;
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** The question before signing out while changes have not gone up (counts of outbox rows and held deletes). */
export function describeUnsentChanges(remoteUrl: string, unsent: { pending: number; heldDeletes: number }): string {
  const parts: string[] = [];
  if (unsent.pending > 0) parts.push(`${plural(unsent.pending, 'change has', 'changes have')} not reached ${remoteUrl} yet`);
  if (unsent.heldDeletes > 0) parts.push(`${plural(unsent.heldDeletes, 'deletion waits', 'deletions wait')} for you`);
  return `${parts.join(' and ')}. Sign out anyway? They stay on this computer and go up when you sign in to ${remoteUrl} again.`.replace(/^./, (first) => first.toUpperCase());
}

/** The first message of a DRF-shaped error body ({"detail": ...} or field lists), for one line. */
function firstMessage(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return typeof body === 'string' && body.trim() ? body.trim() : null;
  const record = body as Record<string, unknown>;
  if (typeof record.detail === 'string') return record.detail;
  for (const [field, messages] of Object.entries(record)) {
    const first = Array.isArray(messages) ? messages[0] : messages;
    // The field as the editor names it ("Postal code", not zip).
    if (typeof first === 'string') return field === 'non_field_errors' ? first : `${labelOf(field)}: ${first}`;
  }
  return null;
}

/**
 * Why one change did not go up, from the error the push kept with it ("HTTP 400:
 * {...}", "ECONNRESET: socket hang up", "throttled by the remote for 5 s"), as the
 * end of a sentence: "the server refused it (title: This field may not be blank.)".
 */
export function describeChangeFailure(lastError: string): string {
  const http = /^HTTP (\d{3}): ([\s\S]*)$/.exec(lastError);
  if (http) {
    let body: unknown = http[2];
    try {
      body = JSON.parse(http[2]!);
    } catch {
      // not JSON: the text itself
    }
    const message = firstMessage(body);
    return `the server refused it (${message ? message.replace(/\.$/, '') : `HTTP ${http[1]}`})`;
  }
  if (/throttled/.test(lastError)) {
    const seconds = /for (\d+) s/.exec(lastError)?.[1];
    return `the server asked to wait${seconds ? ` ${seconds} s` : ''} (a request quota is used up for now)`;
  }
  if (/^the remote failed \(HTTP (\d{3})\)/.test(lastError)) return `the server had a problem (HTTP ${/HTTP (\d{3})/.exec(lastError)![1]})`;
  if (/\bE[A-Z_]{3,}\b|network error/.test(lastError)) return `the server ${networkReason(lastError)}`;
  return lastError.replace(/\.$/, '');
}
