// Client-side pacing by the remote's quotas (shared/throttle-rates.ts), so sync is
// never itself the cause of a 429, and a budget that keeps background sync to a
// small share of each org-wide quota (docs/sync.md "Budget").
//
// Every request names its class: `user` (work a person waits for: a push of their
// edits, a file they open, a project they open or refresh) or `background`
// (polling, sweeps, prefetch). Per bucket (actions sharing a quota count
// together) the pacer keeps the times of the requests this computer sent and
// checks each window that applies: the per-user rate and the per-org rate. The
// engine's throttle counts in 60 slices of a window and may hold a hit up to one
// slice longer than the window, so the pacer waits for that too.
//
// - A user request waits until every window has room, then goes.
// - A background request never waits (the sync loop must stay free for user work):
//   it goes only when a token bucket refilled at share x org quota per org window
//   (2 % of 1,000 a day: one token every 72 minutes, at most a few held) has a
//   token, every window keeps room after it, background has used no more than its
//   share of any window, and no user request of its bucket is waiting. Otherwise
//   `take` throws BudgetWaitError with the time it may go, and the caller leaves
//   that work for a later poll.
//
// A 429 anyway (other devices share org quotas, clocks differ) pauses that bucket
// for Retry-After. Today's spend (UTC day) and the token levels are kept in the
// replica through snapshot()/restore(), so a restart does not reset the budget.
import type { Clock } from '../engine/clock.ts';
import { REMOTE_LIMITS } from './remote-limits.ts';
import { utcTimeOfDay } from '../../shared/words.ts';
import {
  bucketInWords,
  DEFAULT_BACKGROUND_SHARE,
  DEFAULT_THROTTLE_RATES,
  type Rate,
  type ThrottleAction,
  type ThrottleRates,
  isRate,
  parseRate,
  quotaBuckets,
} from '../../shared/throttle-rates.ts';

const SLICES_PER_WINDOW = 60;
const MIN_SLICE_MS = 1000;
/** Slack for the clocks of this machine and the remote disagreeing a little. */
const SAFETY_MS = 250;
/** Background may hold at most this part of its org-window allowance as a burst (a quarter: 6 hours' worth of a daily quota). */
const BURST_SHARE_OF_ALLOWANCE = 0.25;
/** ...but always enough for a short walk (a list page, its position check, a lookup or two). */
const MIN_BURST = 4;
const DAY_MS = 86_400_000;

export type RequestClass = 'user' | 'background';

/** A person's request that waits for the allowance (`bucket`'s key) until `mayGoAt` (ms since the epoch). */
export interface AllowanceWait {
  bucket: string;
  mayGoAt: number;
}

/** A person's request told as waiting for the allowance only from this long a wait: a pause of a second or two is no news. */
export const ALLOWANCE_WAIT_TOLD_MS = 2000;

/** A background request that may not go now; `mayGoAt` (ms since the epoch) is the earliest it could. */
export class BudgetWaitError extends Error {
  constructor(
    readonly bucket: string,
    readonly mayGoAt: number,
  ) {
    // Shown to people (a folder's waiting download, the Sync screen): the bucket by its label, the time in UTC, when the day's quotas reset.
    super(`background sync of ${bucketInWords(bucket)} waits for today's allowance until ${utcTimeOfDay(mayGoAt)}`);
  }
}

interface QuotaWindow {
  scope: 'user' | 'org';
  limit: number;
  windowMs: number;
  sliceMs: number;
}

interface BucketState {
  readonly key: string;
  readonly windows: QuotaWindow[];
  /** Background tokens per millisecond and the most that may be held (0: no org quota, background unbudgeted but window-paced). */
  readonly refillPerMs: number;
  readonly burst: number;
  /** What the org quota allows per day, and background's share of it (for the status). */
  readonly orgPerDay: number | null;
  readonly backgroundPerDay: number | null;
  /** When each counted request went (or was answered), ascending: a window's hits are then a tail, found by binary search. */
  sentAt: number[];
  backgroundSentAt: number[];
  /** The longest any hit stays counted (window, slice and slack): older times are dropped. */
  readonly keptMs: number;
  pausedUntil: number;
  tokens: number;
  tokensAt: number;
  day: string;
  spentUser: number;
  spentBackground: number;
  userWaiting: number;
}

/** What is kept in the replica between runs, per bucket. */
export interface PacerSnapshot {
  savedAt: number;
  /** `pausedUntil`: a Retry-After still running (epoch ms), so a restart honours it too. */
  buckets: Record<string, { day: string; user: number; background: number; tokens: number; tokensAt: number; pausedUntil?: number }>;
}

/** One bucket's spend and allowance, as the budget route reports it. */
export interface BucketBudget {
  bucket: string;
  user: number;
  background: number;
  orgDailyQuota: number | null;
  backgroundAllowance: number | null;
  /** Whole background requests that may go now. */
  backgroundAvailable: number;
  /** When the next background request may go, if not now (ms since the epoch). */
  nextBackgroundAt: number | null;
}

export interface QuotaPacerOptions {
  /** Background's share of each org quota (default DEFAULT_BACKGROUND_SHARE). */
  backgroundShare?: number;
  sleep?: (ms: number) => Promise<void>;
}

function windowOf(scope: 'user' | 'org', rate: Rate | null): QuotaWindow | null {
  if (!rate || !isRate(rate)) return null;
  const { limit, windowSeconds } = parseRate(rate);
  const windowMs = windowSeconds * 1000;
  return { scope, limit, windowMs, sliceMs: Math.max(MIN_SLICE_MS, windowMs / SLICES_PER_WINDOW) };
}

/** A hit at `sentAt` stays counted by the engine until the end of its slice plus one window. */
function releaseTime(window: QuotaWindow, sentAt: number): number {
  return (Math.floor(sentAt / window.sliceMs) + 1) * window.sliceMs + window.windowMs + SAFETY_MS;
}

/** The first index of ascending `times` at which `isAfter` holds (times.length if none): `isAfter` must only ever turn true along the list. */
function firstIndexWhere(times: readonly number[], isAfter: (time: number) => boolean): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (isAfter(times[middle]!)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * Appends `time`, or the last time if the clock stepped back: the lists stay ascending,
 * and a hit counted a little later is only held a little longer, never too short.
 */
function pushInOrder(times: number[], time: number): number {
  const kept = Math.max(time, times.at(-1) ?? time);
  times.push(kept);
  return kept;
}

/** Drops the times `keptMs` or more before `now` from the front of ascending `times`. */
function dropExpired(times: number[], now: number, keptMs: number): void {
  const expired = firstIndexWhere(times, (time) => now - time < keptMs);
  if (expired > 0) times.splice(0, expired);
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export class QuotaPacer {
  private readonly buckets = new Map<string, BucketState>();
  private readonly bucketKeys = new Map<ThrottleAction, string>();
  readonly backgroundShare: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly clock: Clock,
    private readonly rates: ThrottleRates = DEFAULT_THROTTLE_RATES,
    options: QuotaPacerOptions | ((ms: number) => Promise<void>) = {},
  ) {
    const settings = typeof options === 'function' ? { sleep: options } : options;
    this.backgroundShare = settings.backgroundShare ?? DEFAULT_BACKGROUND_SHARE;
    if (!(this.backgroundShare >= 0 && this.backgroundShare <= 1)) throw new Error(`the background share must be between 0 and 1, not ${this.backgroundShare}`);
    this.sleep = settings.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    const now = this.clock.now().getTime();
    for (const bucket of quotaBuckets(rates)) {
      for (const action of bucket.actions) this.bucketKeys.set(action, bucket.key);
      const windows = [windowOf('user', bucket.user), windowOf('org', bucket.org)].filter((window): window is QuotaWindow => window !== null);
      const org = windowOf('org', bucket.org);
      const allowance = org ? this.backgroundShare * org.limit : 0;
      this.buckets.set(bucket.key, {
        key: bucket.key,
        windows,
        refillPerMs: org ? allowance / org.windowMs : 0,
        burst: org ? Math.max(MIN_BURST, allowance * BURST_SHARE_OF_ALLOWANCE) : 0,
        orgPerDay: org ? (org.limit * DAY_MS) / org.windowMs : null,
        backgroundPerDay: org ? (allowance * DAY_MS) / org.windowMs : null,
        sentAt: [],
        backgroundSentAt: [],
        keptMs: Math.max(0, ...windows.map((window) => window.windowMs + window.sliceMs + SAFETY_MS)),
        pausedUntil: 0,
        // A new budget starts empty: background earns its requests as time passes.
        tokens: 0,
        tokensAt: now,
        day: utcDay(now),
        spentUser: 0,
        spentBackground: 0,
        userWaiting: 0,
      });
    }
  }

  /** The bucket an action counts in. */
  bucketKey(action: ThrottleAction): string {
    return this.bucketKeys.get(action) ?? action;
  }

  private state(action: ThrottleAction): BucketState | undefined {
    return this.buckets.get(this.bucketKey(action));
  }

  private refresh(state: BucketState, now: number): void {
    // Every take refreshes: with a day's window and a busy pull these lists hold thousands of times,
    // so they are trimmed from the front, never copied (a profile of issue 30 found the copies a third of the pull's work).
    dropExpired(state.sentAt, now, state.keptMs);
    dropExpired(state.backgroundSentAt, now, state.keptMs);
    if (now > state.tokensAt) {
      state.tokens = Math.min(state.burst, state.tokens + (now - state.tokensAt) * state.refillPerMs);
      state.tokensAt = now;
    }
    const day = utcDay(now);
    if (day !== state.day) {
      state.day = day;
      state.spentUser = 0;
      state.spentBackground = 0;
    }
  }

  /** How long until ascending `sent` has room for one more hit in every window (0: now). */
  private windowDelay(state: BucketState, sent: readonly number[], now: number, limitOf: (window: QuotaWindow) => number): number {
    let wait = 0;
    for (const window of state.windows) {
      const limit = limitOf(window);
      // Release times grow with the send times: the hits still counted are the tail from here.
      const counted = sent.length - firstIndexWhere(sent, (sentAt) => releaseTime(window, sentAt) > now);
      if (counted >= limit) {
        if (limit <= 0) return Number.POSITIVE_INFINITY;
        const oldestThatMustLeave = sent[sent.length - limit]!;
        wait = Math.max(wait, releaseTime(window, oldestThatMustLeave) - now);
      }
    }
    return wait;
  }

  /** Background's own cap in a window: its share of the window's limit, at least one. */
  private backgroundCap(window: QuotaWindow): number {
    return Math.max(1, Math.floor(this.backgroundShare * window.limit));
  }

  /** How long until a request of this action and class may go out (0: now). */
  delayFor(action: ThrottleAction, requestClass: RequestClass = 'user'): number {
    const state = this.state(action);
    if (!state) return 0;
    const now = this.clock.now().getTime();
    this.refresh(state, now);
    let wait = Math.max(0, state.pausedUntil - now, this.windowDelay(state, state.sentAt, now, (window) => window.limit));
    if (requestClass === 'background') {
      // A share of 0: background never spends an org quota.
      if (state.refillPerMs === 0 && state.orgPerDay !== null) return Number.POSITIVE_INFINITY;
      wait = Math.max(wait, this.windowDelay(state, state.backgroundSentAt, now, (window) => this.backgroundCap(window)));
      if (state.refillPerMs > 0 && state.tokens < 1) wait = Math.max(wait, Math.ceil((1 - state.tokens) / state.refillPerMs));
    }
    return wait;
  }

  /**
   * A user request waits until it may go out, then is counted. A background request
   * goes at once or throws BudgetWaitError: it never waits, and it yields to a user
   * request of its bucket that is waiting. `onWait` hears once of a user request's
   * wait of ALLOWANCE_WAIT_TOLD_MS or more, with when it may go (the activity log tells it).
   * Resolves with the time the request was counted at (for `answered`).
   */
  async take(action: ThrottleAction, requestClass: RequestClass = 'user', signal?: AbortSignal, onWait?: (wait: AllowanceWait) => void): Promise<number> {
    const state = this.state(action);
    if (requestClass === 'background') {
      const delay = this.delayFor(action, 'background');
      const now = this.clock.now().getTime();
      if (delay > 0 || (state && state.userWaiting > 0)) throw new BudgetWaitError(this.bucketKey(action), now + (Number.isFinite(delay) ? Math.max(delay, 1000) : DAY_MS));
      return this.count(state, now, 'background');
    }
    if (state) state.userWaiting++;
    try {
      let told = false;
      for (let delay = this.delayFor(action); delay > 0; delay = this.delayFor(action)) {
        if (signal?.aborted) throw signal.reason;
        if (!told && delay >= ALLOWANCE_WAIT_TOLD_MS && Number.isFinite(delay)) {
          told = true;
          onWait?.({ bucket: this.bucketKey(action), mayGoAt: this.clock.now().getTime() + delay });
        }
        await this.sleep(Math.min(delay, 1000));
      }
    } finally {
      if (state) state.userWaiting--;
    }
    return this.count(state, this.clock.now().getTime(), 'user');
  }

  /**
   * The remote answered a request counted at `takenAt`: it counts from now on. The
   * remote counted it when it arrived, somewhere between the two, and on a loaded
   * machine that can be seconds after it was taken; counted from the take, the next
   * request of a full window went before the remote's window had room, and met a 429
   * (a CI run of issue 33 saw an edit wait for the allowance twice).
   */
  answered(action: ThrottleAction, requestClass: RequestClass, takenAt: number): void {
    const state = this.state(action);
    if (!state) return;
    const now = this.clock.now().getTime();
    for (const times of requestClass === 'background' ? [state.sentAt, state.backgroundSentAt] : [state.sentAt]) {
      const index = times.lastIndexOf(takenAt);
      if (index < 0) continue;
      times.splice(index, 1);
      pushInOrder(times, now);
    }
  }

  /** Counts a request sent now; the time it is counted at. */
  private count(state: BucketState | undefined, now: number, requestClass: RequestClass): number {
    if (!state) return now;
    this.refresh(state, now);
    const countedAt = pushInOrder(state.sentAt, now);
    if (requestClass === 'background') {
      pushInOrder(state.backgroundSentAt, now);
      if (state.refillPerMs > 0) state.tokens -= 1;
      state.spentBackground++;
    } else {
      state.spentUser++;
    }
    return countedAt;
  }

  /** The remote said 429: nothing more of this bucket until Retry-After has passed. */
  pause(action: ThrottleAction, retryAfterSeconds: number): void {
    const state = this.state(action);
    if (!state) return;
    const seconds = Math.min(retryAfterSeconds, REMOTE_LIMITS.retryAfterMaxSeconds);
    state.pausedUntil = Math.max(state.pausedUntil, this.clock.now().getTime() + seconds * 1000);
  }

  /** The least time a number of requests of one action can take under the per-user quota (the benchmark's lower bound). */
  lowerBoundMs(action: ThrottleAction, count: number): number {
    const window = this.state(action)?.windows.find((candidate) => candidate.scope === 'user');
    if (!window || count <= window.limit) return 0;
    return Math.ceil(count / window.limit - 1) * window.windowMs;
  }

  /** Today's spend and what background may still use, per bucket that has an org quota or was used today. */
  budget(): BucketBudget[] {
    const now = this.clock.now().getTime();
    const answer: BucketBudget[] = [];
    for (const state of this.buckets.values()) {
      this.refresh(state, now);
      if (state.orgPerDay === null && state.spentUser + state.spentBackground === 0) continue;
      const delay = state.orgPerDay === null ? 0 : this.delayFor(state.key as ThrottleAction, 'background');
      answer.push({
        bucket: state.key,
        user: state.spentUser,
        background: state.spentBackground,
        orgDailyQuota: state.orgPerDay === null ? null : Math.round(state.orgPerDay),
        backgroundAllowance: state.backgroundPerDay === null ? null : Math.floor(state.backgroundPerDay),
        backgroundAvailable: state.refillPerMs > 0 ? Math.floor(state.tokens) : 0,
        nextBackgroundAt: delay > 0 && Number.isFinite(delay) ? now + delay : null,
      });
    }
    return answer;
  }

  /** What to keep in the replica so a restart does not reset today's budget. */
  snapshot(): PacerSnapshot {
    const now = this.clock.now().getTime();
    const buckets: PacerSnapshot['buckets'] = {};
    for (const state of this.buckets.values()) {
      this.refresh(state, now);
      const paused = state.pausedUntil > now;
      if (state.spentUser + state.spentBackground === 0 && state.tokens === 0 && !paused) continue;
      buckets[state.key] = {
        day: state.day, user: state.spentUser, background: state.spentBackground, tokens: state.tokens, tokensAt: state.tokensAt,
        ...(paused ? { pausedUntil: state.pausedUntil } : {}),
      };
    }
    return { savedAt: now, buckets };
  }

  /**
   * Takes back what snapshot() kept: today's spend and the token levels. The requests
   * themselves were not kept, so today's are counted as if sent at `savedAt`: the
   * windows then hold them a little longer than the remote does, never shorter.
   */
  restore(snapshot: PacerSnapshot): void {
    const now = this.clock.now().getTime();
    for (const [key, kept] of Object.entries(snapshot.buckets)) {
      const state = this.buckets.get(key);
      if (!state) continue;
      state.tokens = Math.min(state.burst, Math.max(0, kept.tokens));
      state.tokensAt = Math.min(now, kept.tokensAt);
      // A kept Retry-After, never longer than the cap from now (a clock that jumped, a hand-edited replica).
      if (typeof kept.pausedUntil === 'number' && kept.pausedUntil > now) state.pausedUntil = Math.min(kept.pausedUntil, now + REMOTE_LIMITS.retryAfterMaxSeconds * 1000);
      if (kept.day !== utcDay(now)) continue;
      state.spentUser = kept.user;
      state.spentBackground = kept.background;
      const sentAt = Math.min(now, snapshot.savedAt);
      const longest = Math.max(0, ...state.windows.map((window) => window.limit));
      state.sentAt = Array.from({ length: Math.min(longest, kept.user + kept.background) }, () => sentAt);
      state.backgroundSentAt = Array.from({ length: Math.min(longest, kept.background) }, () => sentAt);
    }
  }
}
