// The pull gives way to the person using the app (issue 30: "what a user waits for
// goes first"). The desktop's local API and the pull share one thread and the
// store's one connection: a record's merge holds both for a millisecond or two, and
// a pull merges one record after another, so the screen's requests waited behind
// it (p95 6.5-7.5 ms against 0.3 ms idle).
//
// The agent tells a ForegroundActivity of every local API request as it starts and
// as it is answered. Before each merge the pull asks `giveWay()`: it lets what has
// reached the sockets be read, then waits while a request is being served or one
// started or ended within QUIET_MS (the gap between a screen's reads of one burst),
// and goes on after MAX_WAIT_MS at most: a screen that asks without pause slows the
// pull to about ten records a second but never stops it.
//
// Both times are short on purpose, because the screen's reads are also the pull's
// own doing: the open list reads again what `records.changed` says a pull changed.
// A request still served after SERVING_AT_MOST_MS (a file streamed) stops holding the
// pull back. A long list page does hold it, up to MAX_WAIT_MS: letting the pull in
// after 10 ms made its writes invalidate the page's rows mid-read, and a first sync
// with the list open took 4.33 times the sync alone in one run, 2.64-3.92 otherwise.
// The core gathers a pull's changes into one `records.changed` a tenth of a second
// (core-runtime.ts, gatherPulledChanges); without that, a first sync with the list
// open took 25 times as long here (docs/benchmarks.md, session 20).
//
// Real time, not the agent's clock: this is about sharing the CPU now, and a test's
// stopped clock must not stop the pull.
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

/** How long after a local request the pull still waits for the next one: the gap within a screen's burst of reads. */
export const QUIET_MS = 2;
/** The longest the pull waits for the local API, per record. */
export const MAX_WAIT_MS = 100;
/** A request served longer than this (a long list page, a download) stops holding the pull back. */
export const SERVING_AT_MOST_MS = 1000;

export interface GiveWayTimes {
  quietMs: number;
  maxWaitMs: number;
  servingAtMostMs: number;
}

const GIVE_WAY_TIMES: GiveWayTimes = { quietMs: QUIET_MS, maxWaitMs: MAX_WAIT_MS, servingAtMostMs: SERVING_AT_MOST_MS };

export class ForegroundActivity {
  private readonly times: GiveWayTimes;
  /** When each request being served started. */
  private readonly serving = new Map<object, number>();
  private whenNoneServed: { promise: Promise<void>; resolve: () => void } | null = null;
  /** When a request last started or was answered. */
  private lastActivityAt = Number.NEGATIVE_INFINITY;

  /** `times`: tests lengthen or shorten them, so that what they check cannot depend on the machine's speed. */
  constructor(times: Partial<GiveWayTimes> = {}) {
    this.times = { ...GIVE_WAY_TIMES, ...times };
  }

  /** A local request started. */
  started(request: object): void {
    this.lastActivityAt = performance.now();
    this.serving.set(request, this.lastActivityAt);
  }

  /** A local request was answered, or given up. */
  finished(request: object): void {
    this.lastActivityAt = performance.now();
    if (!this.serving.delete(request)) return;
    if (!this.isServing()) this.wakeWaiters();
  }

  /** Whether the screen is asking: a request is being served, or one started or ended within QUIET_MS. */
  private isBusy(): boolean {
    return this.isServing() || performance.now() - this.lastActivityAt < this.times.quietMs;
  }

  /** Whether a request is being served (one served too long is forgotten). */
  isServing(): boolean {
    return this.servedForAtMost() !== null;
  }

  /**
   * How long until the requests being served stop holding the pull back, once each
   * has been served SERVING_AT_MOST_MS; null when none is (the longer ones are forgotten).
   */
  private servedForAtMost(): number | null {
    const now = performance.now();
    let latest: number | null = null;
    for (const [request, startedAt] of this.serving) {
      const left = startedAt + this.times.servingAtMostMs - now;
      if (left <= 0) this.serving.delete(request);
      else latest = Math.max(latest ?? 0, left);
    }
    return latest;
  }

  /**
   * Resolves once what reached this process's sockets has been read and the local
   * API is not busy (isBusy), or after MAX_WAIT_MS.
   */
  async giveWay(): Promise<void> {
    const started = performance.now();
    for (;;) {
      await letWaitingIoIn();
      const left = this.times.maxWaitMs - (performance.now() - started);
      if (!this.isBusy() || left <= 0) return;
      const servedFor = this.servedForAtMost();
      if (servedFor !== null) {
        // Woken when the last request is answered, or when the ones served stop counting.
        this.whenNoneServed ??= withResolvers();
        // The timer is ended when the answer comes first: none is left behind a wait.
        const timer = new AbortController();
        await Promise.race([this.whenNoneServed.promise, sleep(Math.min(left, servedFor), undefined, { signal: timer.signal }).catch(() => {})]);
        timer.abort();
      } else {
        await sleep(Math.min(left, this.times.quietMs));
      }
    }
  }

  private wakeWaiters(): void {
    this.whenNoneServed?.resolve();
    this.whenNoneServed = null;
  }
}

function withResolvers(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * Lets what reached this process's sockets be handled before going on. One turn of
 * setImmediate resumes in the same turn of the event loop, before sockets are read
 * again; the second resumes only after the loop has read them.
 */
export async function letWaitingIoIn(): Promise<void> {
  await nextTurn();
  await nextTurn();
}
