// The sync loop: push what the user did, then pull what changed elsewhere; again
// after every local write, every poll interval, and as soon as the remote is
// reachable after being offline. One state at a time, each change reported.
import type { SyncContext } from './sync-context.ts';
import { pushOutbox } from './push.ts';
import { describeSyncStop, RemoteBusyError, RemoteUnreachableError, SignInRequiredError } from './remote-errors.ts';
import { pullAll } from './pull.ts';
import { countOutbox, hasChangesToPush, nextDueAt } from './outbox.ts';
import { getSyncState, setSyncState } from './sync-context.ts';
import { backoffDelayMs } from '../../shared/backoff.ts';

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
  /** After a 429 or 5xx during a pull: when to try again. */
  private busyRetryMs: number | null = null;
  private readonly statusListeners = new Set<() => void>();

  constructor(
    private readonly sync: SyncContext,
    private readonly options: SyncEngineOptions,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.paused = (await getSyncState(this.sync.db, 'paused')) === 'true';
    this.setState(this.paused ? 'paused' : 'idle', null);
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
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

  /** Sync soon: a local write was made, or the user asked. */
  wake(): void {
    // Whatever woke the loop (a queued change, a settled conflict) changed what waits, even when paused.
    this.statusChanged();
    if (this.stopped || this.paused) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.cycle().finally(() => {
      this.running = undefined;
      if (this.again && !this.stopped && !this.paused && this.state !== 'offline' && this.state !== 'needs_sign_in') {
        this.again = false;
        this.wake();
      } else {
        this.again = false;
        this.schedule();
      }
    });
  }

  async pause(): Promise<void> {
    this.paused = true;
    await setSyncState(this.sync.db, 'paused', 'true');
    clearTimeout(this.timer);
    await this.running;
    this.setState('paused', null);
  }

  async resume(): Promise<void> {
    this.paused = false;
    await setSyncState(this.sync.db, 'paused', 'false');
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
      last_synced_at: (await getSyncState(db, 'last_synced_at')) ?? null,
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

  private async cycle(): Promise<void> {
    if (this.stopped || this.paused) return;
    this.setState('syncing', null);
    this.sync.unreadable.clear();
    try {
      const stop = () => this.stopped || this.paused;
      // With local changes waiting, pull first: a push must never overwrite a remote
      // change it has not seen (that is a conflict to show, not to lose).
      const hadPending = await this.hasPendingChanges();
      if (hadPending) await pullAll(this.sync);
      const pushed = await pushOutbox(this.sync, stop);
      if (!hadPending || pushed > 0) await pullAll(this.sync);
      this.reachable = true;
      this.offlineRetries = 0;
      await setSyncState(this.sync.db, 'last_synced_at', this.sync.clock.now().toISOString());
      // Records skipped as unreadable did not stop the cycle; the status says which (the agent logs it).
      this.setState(this.paused ? 'paused' : 'idle', this.paused ? null : this.sync.unreadable.summary());
    } catch (error) {
      // Said as sentences (remote-errors.ts), with when the next try comes.
      const remoteUrl = this.sync.remote.baseUrl;
      if (error instanceof RemoteUnreachableError) {
        this.reachable = false;
        this.setState('offline', describeSyncStop(error, remoteUrl, this.offlineRetryDelay(this.offlineRetries + 1)));
      } else if (error instanceof RemoteBusyError) {
        // Reachable but busy: the pacer already holds the throttled bucket for Retry-After.
        this.reachable = true;
        this.busyRetryMs = error.retryAfterMs ?? this.options.offlineRetryMs;
        this.setState('idle', describeSyncStop(error, remoteUrl, this.busyRetryMs));
      } else if (error instanceof SignInRequiredError) {
        this.setState('needs_sign_in', describeSyncStop(error, remoteUrl, null));
      } else {
        this.setState('error', describeSyncStop(error, remoteUrl, this.offlineRetryDelay(this.offlineRetries + 1)));
      }
    }
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
        delay = Math.min(delay, this.busyRetryMs);
        this.busyRetryMs = null;
      }
      this.nextAttemptAt = this.sync.clock.now().getTime() + delay;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.nextAttemptAt = null;
        this.wake();
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
