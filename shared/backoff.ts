// One backoff rule for everything that retries (sync's failed changes and its
// offline retries, webhook deliveries): each caller keeps its own numbers, and
// none writes the formula again.

export interface Backoff {
  /** The wait before the first retry. */
  firstDelayMs: number;
  /** Each wait is this many times the one before. */
  factor: number;
  /** No wait grows past this. */
  maxDelayMs: number;
  /**
   * ± this fraction of each wait, drawn at random, so that many failing callers do not
   * retry in lockstep. Without it a wait is exact; with it, whole milliseconds.
   */
  jitter?: number;
}

/** The wait before retry number `retry` (1 for the first retry). */
export function backoffDelayMs(backoff: Backoff, retry: number, random: () => number = Math.random): number {
  const base = Math.min(backoff.firstDelayMs * backoff.factor ** Math.max(0, retry - 1), backoff.maxDelayMs);
  return backoff.jitter === undefined ? base : Math.round(base * (1 + backoff.jitter * (2 * random() - 1)));
}
