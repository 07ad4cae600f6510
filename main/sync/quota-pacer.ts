// Client-side pacing by the remote's quotas (shared/throttle-rates.ts), so sync is
// never itself the cause of a 429: per action bucket, it keeps the times of the
// requests it sent and waits before one would exceed the per-user rate. The
// engine's throttle counts in 60 slices of a window and may hold a hit up to one
// slice longer than the window, so the pacer waits for that too. A 429 anyway
// (other devices share org quotas, clocks differ) pauses only that bucket for
// Retry-After.
import type { Clock } from '../engine/clock.ts';
import { DEFAULT_THROTTLE_RATES, type ThrottleAction, type ThrottleRates, isRate, parseRate } from '../../shared/throttle-rates.ts';

const SLICES_PER_WINDOW = 60;
const MIN_SLICE_MS = 1000;
/** Slack for the clocks of this machine and the remote disagreeing a little. */
const SAFETY_MS = 250;

interface BucketState {
  sentAt: number[];
  pausedUntil: number;
}

export class QuotaPacer {
  private readonly buckets = new Map<string, BucketState>();

  constructor(
    private readonly clock: Clock,
    private readonly rates: ThrottleRates = DEFAULT_THROTTLE_RATES,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  private bucketOf(action: ThrottleAction): { key: string; limit: number; windowMs: number; sliceMs: number } | null {
    const quota = this.rates[action];
    const rate = quota.user;
    if (!rate || !isRate(rate)) return null;
    const { limit, windowSeconds } = parseRate(rate);
    const windowMs = windowSeconds * 1000;
    return { key: quota.bucket ?? action, limit, windowMs, sliceMs: Math.max(MIN_SLICE_MS, windowMs / SLICES_PER_WINDOW) };
  }

  private state(key: string): BucketState {
    let state = this.buckets.get(key);
    if (!state) {
      state = { sentAt: [], pausedUntil: 0 };
      this.buckets.set(key, state);
    }
    return state;
  }

  /** How long until a request of this action may go out (0: now). */
  delayFor(action: ThrottleAction): number {
    const bucket = this.bucketOf(action);
    if (!bucket) return 0;
    const now = this.clock.now().getTime();
    const state = this.state(bucket.key);
    // A hit at t stays counted by the engine until the end of its slice plus one window.
    const releaseTime = (sentAt: number) => (Math.floor(sentAt / bucket.sliceMs) + 1) * bucket.sliceMs + bucket.windowMs + SAFETY_MS;
    state.sentAt = state.sentAt.filter((sentAt) => releaseTime(sentAt) > now);
    let wait = Math.max(0, state.pausedUntil - now);
    if (state.sentAt.length >= bucket.limit) {
      const oldestThatMustLeave = state.sentAt[state.sentAt.length - bucket.limit]!;
      wait = Math.max(wait, releaseTime(oldestThatMustLeave) - now);
    }
    return wait;
  }

  /** Waits until the request may go out, then counts it. */
  async take(action: ThrottleAction, signal?: AbortSignal): Promise<void> {
    for (let delay = this.delayFor(action); delay > 0; delay = this.delayFor(action)) {
      if (signal?.aborted) throw signal.reason;
      await this.sleep(Math.min(delay, 1000));
    }
    const bucket = this.bucketOf(action);
    if (bucket) this.state(bucket.key).sentAt.push(this.clock.now().getTime());
  }

  /** The remote said 429: nothing more of this bucket until Retry-After has passed. */
  pause(action: ThrottleAction, retryAfterSeconds: number): void {
    const bucket = this.bucketOf(action);
    const key = bucket?.key ?? action;
    const state = this.state(key);
    state.pausedUntil = Math.max(state.pausedUntil, this.clock.now().getTime() + retryAfterSeconds * 1000);
  }

  /** The least time a number of requests of one action can take under the quota (the benchmark's lower bound). */
  lowerBoundMs(action: ThrottleAction, count: number): number {
    const bucket = this.bucketOf(action);
    if (!bucket || count <= bucket.limit) return 0;
    return Math.ceil(count / bucket.limit - 1) * bucket.windowMs;
  }
}
