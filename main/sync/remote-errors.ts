// How a cycle stops when the remote did not answer a request: unreachable, asking
// for a new sign-in, or busy (429, 5xx). Kept apart from push and pull, which both
// raise them, so neither imports the other for them.
import type { RemoteOutcome } from './remote-client.ts';

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
