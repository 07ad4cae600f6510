// The sync loop: push what the user did, then pull what changed elsewhere; again
// after every local write, every poll interval, and as soon as the remote is
// reachable after being offline. One state at a time, each change reported.
//
// Each cycle has a class (docs/sync.md "Budget"): a person asking to sync (wake(),
// the first cycle, requestPull('user')) pulls as user work; a local write pushes
// as user work and pulls the cheap way; a timed poll and a push hint pull in the
// background, within the budget, and give way as soon as user work waits.
import type { SyncContext } from './sync-context.ts';
import { pushOutbox } from './push.ts';
import { describeSyncStop, RemoteBusyError, RemoteUnreachableError, SignInRequiredError } from './remote-errors.ts';
import { pullAll } from './pull.ts';
import { type BudgetWait, pullPlanned } from './pull-plan.ts';
import type { PacerSnapshot } from './quota-pacer.ts';
import { countOutbox, hasChangesToPush, nextDueAt } from './outbox.ts';
import { busyUntil as keptBusyUntil, isPaused, keepBudget, keepBusyUntil, keptBudget, lastSyncedAt, setLastSyncedAt, setPaused } from './sync-state.ts';
import { backoffDelayMs } from '../../shared/backoff.ts';
import { BUSY_BACKOFF, REMOTE_LIMITS } from './remote-limits.ts';

export type SyncState = 'idle' | 'syncing' | 'offline' | 'paused' | 'needs_sign_in' | 'error';

export interface SyncStatus {
  state: SyncState;
  pending: number;
  conflicts: number;
  last_synced_at: string | null;
  next_attempt_at: string | null;
  remote_reachable: boolean;
  /** What the state is about, in words (the offline reason, the error). */
  detail: string | null;
}

/** Why a pull was asked for: a push hint from the remote (background), or a person (user). */
export type PullReason = 'hint' | 'user';

/** What one cycle does: the whole pull or the planned one, as user or background work, and which projects to read afresh. */
interface CycleRequest {
  mode: 'full' | 'planned';
  requestClass: 'user' | 'background';
  projectIds: Set<number>;
  changed: boolean;
}


function mergeRequests(a: CycleRequest | null, b: CycleRequest): CycleRequest {
  if (!a) return b;
  return {
    mode: a.mode === 'full' || b.mode === 'full' ? 'full' : 'planned',
    requestClass: a.requestClass === 'user' || b.requestClass === 'user' ? 'user' : 'background',
    projectIds: new Set([...a.projectIds, ...b.projectIds]),
    changed: a.changed || b.changed,
  };
}

export interface SyncEngineOptions {
  pollIntervalMs: number;
  /** While offline, how soon to try again (doubling up to the poll interval). */
  offlineRetryMs: number;
  onStateChange?: (state: SyncState, detail: string | null) => void;
}

export class SyncEngine {
  private state: SyncState = 'idle';
  private detail: string | null = null;
  private reachable = false;
  private stopped = true;
  private paused = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private nextAttemptAt: number | null = null;
  /** Cycles in a row that ended offline or in error, each followed by a retry. */
  private offlineRetries = 0;
  /** After a 429, a 5xx or an unreadable answer: when to try again. */
  private busyRetryMs: number | null = null;
  /** Cycles in a row the remote answered busy (5xx, unreadable) without a Retry-After: the backoff's step. */
  private busyRetries = 0;
  /** Whether the replica keeps a wait (sync-state.ts busyUntil) that a good cycle must clear. */
  private busyKept = false;
  private readonly statusListeners = new Set<() => void>();
  /** What the next cycle is asked to do (merged while one runs); null: a timed poll. */
  private requested: CycleRequest | null = null;
  /** The request of the cycle running now, and of the last one that ended offline or in error (its retry repeats it). */
  private current: CycleRequest | null = null;
  private failed: CycleRequest | null = null;
  /** Work the last background pull left for want of budget. */
  private waiting: BudgetWait[] = [];

  constructor(
    private readonly sync: SyncContext,
    private readonly options: SyncEngineOptions,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    const kept = await keptBudget(this.sync.db);
    if (kept) {
      try {
        this.sync.remote.pacer.restore(JSON.parse(kept) as PacerSnapshot);
      } catch {
        // an unreadable budget starts afresh (empty): background waits, never overspends
      }
    }
    this.paused = await isPaused(this.sync.db);
    // A wait the remote asked for before a restart still holds (the pacer holds its bucket too).
    const busyUntil = Date.parse((await keptBusyUntil(this.sync.db)) ?? '');
    const busyFor = busyUntil - this.sync.clock.now().getTime();
    this.busyKept = busyFor > 0;
    if (!this.paused && busyFor > 0) {
      this.requested = mergeRequests(this.requested, { mode: 'full', requestClass: 'user', projectIds: new Set(), changed: false });
      this.busyRetryMs = Math.min(busyFor, REMOTE_LIMITS.retryAfterMaxSeconds * 1000);
      this.setState('idle', describeSyncStop(new RemoteBusyError('throttled by the remote', this.busyRetryMs), this.sync.remote.baseUrl, this.busyRetryMs));
      this.schedule();
      return;
    }
    this.setState(this.paused ? 'paused' : 'idle', null);
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.saveBudget();
  }

  /** Keeps today's spend and the budget's levels in the replica (sync_state), so a restart does not reset them. */
  async saveBudget(): Promise<void> {
    await keepBudget(this.sync.db, JSON.stringify(this.sync.remote.pacer.snapshot()));
  }

  /** Work the last background pull left for want of budget, and when each may go. */
  budgetWaits(): BudgetWait[] {
    return [...this.waiting];
  }

  /**
   * Pull soon. `user`: a person waits (a project opened or refreshed): the named
   * projects' records and files are read afresh, as user work, before anything
   * else. `hint`: the remote said something changed (a push hint): the next pull
   * skips the one-row probes and walks the changes, in the background, within the
   * budget; named projects get their records and files looked at.
   */
  requestPull(reason: PullReason, scope: { projectIds?: number[] } = {}): void {
    this.enqueue({ mode: 'planned', requestClass: reason === 'user' ? 'user' : 'background', projectIds: new Set(scope.projectIds ?? []), changed: reason === 'hint' });
  }

  /**
   * Hears each time status() may answer differently: a new state, or a change
   * queued, settled or held (the counts). Returns an unsubscribe function.
   */
  watchStatus(listener: () => void): () => void {
    const entry = () => listener();
    this.statusListeners.add(entry);
    return () => this.statusListeners.delete(entry);
  }

  /** Tells status listeners to look again; also for changes made outside the loop (a deletion held in a project folder). */
  statusChanged(): void {
    for (const listener of [...this.statusListeners]) listener();
  }

  /**
   * Sync soon. `user` (default): a person asked (sync now, a settled conflict,
   * resume): the whole pull, as user work. `local_write`: a change was queued here:
   * it goes up as user work, and the pull around it is the planned one.
   */
  wake(reason: 'user' | 'local_write' = 'user'): void {
    this.enqueue({ mode: reason === 'user' ? 'full' : 'planned', requestClass: 'user', projectIds: new Set(), changed: false });
  }

  private enqueue(request: CycleRequest | null): void {
    if (request) this.requested = mergeRequests(this.requested, request);
    // Whatever woke the loop (a queued change, a settled conflict) changed what waits, even when paused.
    this.statusChanged();
    if (this.stopped || this.paused) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    const run = this.requested ?? this.failed ?? { mode: 'planned', requestClass: 'background', projectIds: new Set<number>(), changed: false };
    this.requested = null;
    this.failed = null;
    this.current = run;
    this.running = this.cycle(run).finally(() => {
      this.current = null;
      this.running = undefined;
      // After the remote asked to wait (a 429, a 5xx), what was asked meanwhile waits for the retry too: at once, its
      // first request would wait in the pacer (syncing for up to an hour), or ask a failing remote again.
      if (this.again && !this.stopped && !this.paused && this.state !== 'offline' && this.state !== 'needs_sign_in' && this.busyRetryMs === null) {
        this.again = false;
        this.enqueue(null);
      } else {
        this.again = false;
        this.schedule();
      }
    });
  }

  async pause(): Promise<void> {
    this.paused = true;
    await setPaused(this.sync.db, true);
    clearTimeout(this.timer);
    await this.running;
    this.setState('paused', null);
  }

  async resume(): Promise<void> {
    this.paused = false;
    await setPaused(this.sync.db, false);
    this.setState('idle', null);
    this.wake();
  }

  /** Resolves once the current cycle, if any, has finished (tests and benchmarks). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  async status(): Promise<SyncStatus> {
    const { db } = this.sync;
    const pending = await countOutbox(db);
    const conflicts = await db.selectFrom('sync_conflicts').select((builder) => builder.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    const nextDue = await nextDueAt(this.sync.db);
    const nextAttempt = this.nextAttemptAt ? new Date(this.nextAttemptAt).toISOString() : null;
    return {
      state: this.state,
      pending,
      conflicts: Number(conflicts.count),
      last_synced_at: await lastSyncedAt(db),
      next_attempt_at: [nextAttempt, nextDue].filter((value): value is string => value !== null).sort()[0] ?? null,
      remote_reachable: this.reachable,
      detail: this.detail,
    };
  }

  private setState(state: SyncState, detail: string | null): void {
    if (state === this.state && detail === this.detail) return;
    this.state = state;
    this.detail = detail;
    this.options.onStateChange?.(state, detail);
    this.statusChanged();
  }

  private async cycle(run: CycleRequest): Promise<void> {
    if (this.stopped || this.paused) return;
    this.setState('syncing', null);
    this.sync.unreadable.clear();
    try {
      const stop = () => this.stopped || this.paused;
      // A background pull gives way as soon as user work is asked for: it ends, and the user's cycle runs next.
      const pullContext = {
        ...this.sync,
        requestClass: run.requestClass,
        shouldYield: () => this.stopped || this.paused || (run.requestClass === 'background' && this.requested?.requestClass === 'user'),
      };
      let reached = false;
      const pull = async () => {
        if (run.mode === 'full') {
          await pullAll(pullContext);
          reached = true;
          return;
        }
        const planned = await pullPlanned(pullContext, { projectIds: [...run.projectIds], changed: run.changed });
        reached ||= planned.reachedRemote;
        if (run.requestClass === 'background' || planned.waiting.length) this.waiting = planned.waiting;
        run = { ...run, projectIds: new Set(), changed: false }; // asked for once
      };
      // With local changes waiting, pull first: a push must never overwrite a remote
      // change it has not seen (that is a conflict to show, not to lose).
      const hadPending = await this.hasPendingChanges();
      if (hadPending) await pull();
      const pushed = await pushOutbox(this.sync, stop);
      if (pushed > 0) reached = true;
      if (!hadPending || pushed > 0) await pull();
      if (reached) this.reachable = true;
      this.offlineRetries = 0;
      if (this.busyKept) await keepBusyUntil(this.sync.db, '');
      this.busyKept = false;
      this.busyRetries = 0;
      await setLastSyncedAt(this.sync.db, this.sync.clock.now().toISOString());
      // Records skipped as unreadable did not stop the cycle; the status says which (the agent logs it).
      this.setState(this.paused ? 'paused' : 'idle', this.paused ? null : this.sync.unreadable.summary());
    } catch (error) {
      // Its retry repeats what failed (a background retry would wait for budget, and never learn the remote is back).
      this.failed = mergeRequests(this.failed, run);
      // Said as sentences (remote-errors.ts), with when the next try comes.
      const remoteUrl = this.sync.remote.baseUrl;
      if (error instanceof RemoteUnreachableError) {
        this.reachable = false;
        this.setState('offline', describeSyncStop(error, remoteUrl, this.offlineRetryDelay(this.offlineRetries + 1)));
      } else if (error instanceof RemoteBusyError) {
        // Reachable but busy: the pacer already holds the throttled bucket for Retry-After (capped, remote-client.ts).
        // Without one (a 5xx, an unreadable answer), each try in a row waits about twice as long, up to a few minutes:
        // the requests it spent count against the budget like any other, so a failing remote must not eat it.
        this.reachable = true;
        this.busyRetries++;
        this.busyRetryMs = error.retryAfterMs ?? backoffDelayMs({ ...BUSY_BACKOFF, firstDelayMs: this.options.offlineRetryMs }, this.busyRetries);
        // Kept, so a restart waits out the rest rather than asking again at once.
        await keepBusyUntil(this.sync.db, new Date(this.sync.clock.now().getTime() + this.busyRetryMs).toISOString()).catch(() => undefined);
        this.busyKept = true;
        this.setState('idle', describeSyncStop(error, remoteUrl, this.busyRetryMs));
      } else if (error instanceof SignInRequiredError) {
        this.setState('needs_sign_in', describeSyncStop(error, remoteUrl, null));
      } else {
        this.setState('error', describeSyncStop(error, remoteUrl, this.offlineRetryDelay(this.offlineRetries + 1)));
      }
    }
    await this.saveBudget().catch(() => undefined);
  }

  private async hasPendingChanges(): Promise<boolean> {
    return hasChangesToPush(this.sync.db);
  }

  /** The next cycle: soon when offline, at the next retry due, or at the poll interval. */
  private schedule(): void {
    if (this.stopped || this.paused || this.state === 'needs_sign_in') return;
    void this.nextDueDelay().then((dueIn) => {
      if (this.stopped || this.paused || this.running) return;
      let delay = this.options.pollIntervalMs;
      if (this.state === 'offline' || this.state === 'error') {
        delay = this.offlineRetryDelay(++this.offlineRetries);
      } else if (dueIn !== null) delay = Math.min(delay, Math.max(dueIn, 50));
      if (this.busyRetryMs !== null) {
        // The remote asked to wait (or keeps failing): that wait, even past the poll interval; a person's wake still goes at once.
        delay = this.busyRetryMs;
        this.busyRetryMs = null;
      }
      this.nextAttemptAt = this.sync.clock.now().getTime() + delay;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.nextAttemptAt = null;
        this.enqueue(null); // a timed poll (or the retry of what failed)
      }, delay);
      this.timer.unref?.();
    });
  }

  /**
   * offlineRetryMs, then doubling up to the poll interval. The first retry keeps
   * offlineRetryMs even when the poll interval is shorter (a sub-second --sync-interval).
   */
  private offlineRetryDelay(retry: number): number {
    const { offlineRetryMs, pollIntervalMs } = this.options;
    return retry === 1 ? offlineRetryMs : backoffDelayMs({ firstDelayMs: offlineRetryMs, factor: 2, maxDelayMs: pollIntervalMs }, retry);
  }

  private async nextDueDelay(): Promise<number | null> {
    const next = await nextDueAt(this.sync.db);
    return next ? Date.parse(next) - this.sync.clock.now().getTime() : null;
  }
}
