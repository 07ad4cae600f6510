// Throttle quotas (service.md 8), exact under concurrency and kept in the store so
// a restart is no way around a daily quota. Each scope (an action's bucket, per
// user or per org) counts hits in 60 slices of its window; a request is admitted
// only while the slices that overlap the last window hold fewer than the limit.
// Counting whole slices can only over-count, so the quota is never exceeded; at
// worst a client waits one slice (1/60 of the window) longer than it had to.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { Store } from '../store/database.ts';
import type { Clock } from '../clock.ts';
import {
  DEFAULT_THROTTLE_RATES,
  type ActionQuota,
  type ThrottleAction,
  type ThrottleRates,
  isRate,
  parseRate,
} from '../../../shared/throttle-rates.ts';

const SLICES_PER_WINDOW = 60;
const MIN_SLICE_MS = 1000;
/** PostgreSQL's SQLSTATE for the transaction it aborted to break a deadlock. */
const DEADLOCK_DETECTED = '40P01';

export interface ThrottleSubject {
  /** The user id, or the client address for routes without a user. */
  user: string;
  org: number | null;
}

export interface ThrottleDecision {
  allowed: boolean;
  /** The slices this admission counted in, so it can be taken back (refund()); empty when denied. */
  counted: CountedSlice[];
  /** The limit of the scope closest to its quota. */
  limit: number;
  remaining: number;
  /** Seconds until that scope admits again (when denied) or its count next drops. */
  resetSeconds: number;
}

export interface CountedSlice {
  key: string;
  bucketStart: number;
}

/** How often the in-memory counts of a store one process owns are written to it. */
export const THROTTLE_CHECKPOINT_MS = 1000;

interface Scope {
  key: string;
  limit: number;
  windowMs: number;
  sliceMs: number;
}

export class Throttle {
  private admissionsSincePrune = 0;
  private readonly longestWindowMs: number;
  private readonly db: Kysely<Database>;
  /** On a store one process owns: each scope's slices (start -> hits), loaded from the store on first use. */
  private readonly memory: Map<string, Map<number, number>> | null;
  private readonly loading = new Map<string, Promise<void>>();
  /** Slices counted in memory since the last checkpoint. */
  private readonly dirty = new Map<string, Set<number>>();
  private checkpointTimer: NodeJS.Timeout | null = null;
  private checkpointing: Promise<void> = Promise.resolve();
  /** Set by close(): no checkpoint is scheduled after the last. */
  private closing = false;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    readonly rates: ThrottleRates,
  ) {
    this.db = store.db;
    // One process owns a SQLite store, so it may count in memory and write the counts
    // behind; processes sharing a PostgreSQL must count in the store itself.
    this.memory = store.shared ? null : new Map();
    this.longestWindowMs = Math.max(
      ...Object.values(rates).flatMap((quota) => [quota.user, quota.org].filter(isRate).map((rate) => parseRate(rate).windowSeconds * 1000)),
    );
  }

  scopesFor(action: ThrottleAction, subject: ThrottleSubject): Scope[] {
    const quota: ActionQuota = this.rates[action];
    const bucket = quota.bucket ?? action;
    const scopes: Scope[] = [];
    const add = (rate: string | null, who: string) => {
      if (!rate || !isRate(rate)) return;
      const { limit, windowSeconds } = parseRate(rate);
      const windowMs = windowSeconds * 1000;
      scopes.push({ key: `${bucket}|${who}|${windowSeconds}`, limit, windowMs, sliceMs: Math.max(MIN_SLICE_MS, windowMs / SLICES_PER_WINDOW) });
    };
    add(quota.user, `user:${subject.user}`);
    if (subject.org !== null) add(quota.org, `org:${subject.org}`);
    return scopes;
  }

  /** Counts the request if every scope has room; otherwise admits nothing and says when to retry. */
  async admit(action: ThrottleAction, subject: ThrottleSubject): Promise<ThrottleDecision> {
    const scopes = this.scopesFor(action, subject);
    if (scopes.length === 0) return { allowed: true, counted: [], limit: 0, remaining: 0, resetSeconds: 0 };
    const now = this.clock.now().getTime();
    if (this.memory) return this.admitInMemory(this.memory, scopes, now);
    const decision = await this.admitInStore(scopes, now);
    if (decision.allowed && ++this.admissionsSincePrune >= 1000) {
      this.admissionsSincePrune = 0;
      // Housekeeping: a failure (another process pruning at the same moment) must not fail this request.
      void this.prune().catch((error: unknown) => console.error('pruning the throttle counts failed:', (error as Error).message));
    }
    return decision;
  }

  /**
   * On a store several processes share (PostgreSQL): one statement, the
   * throttle_admit function (store migration 0009), which locks one anchor row per
   * scope, sums the slices in each window and counts the request in all of them or
   * none, inside the statement's own transaction. No transaction is opened here, so
   * the locks last only as long as the statement runs on the server.
   */
  private async admitInStore(scopes: Scope[], now: number): Promise<ThrottleDecision> {
    const ordered = [...scopes].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const keys = ordered.map((scope) => scope.key);
    const limits = ordered.map((scope) => scope.limit);
    const cutoffs = ordered.map((scope) => sliceStart(now - scope.windowMs, scope.sliceMs));
    const currents = ordered.map((scope) => sliceStart(now, scope.sliceMs));
    const admit = sql<{ admitted: boolean; slice_key: string | null; slice_start: number | null; slice_hits: number | null }>`
      select * from throttle_admit(${keys}::text[], ${limits}::integer[], ${cutoffs}::bigint[], ${currents}::bigint[])`;
    const { rows } = await retryOnDeadlock(() => admit.execute(this.db));
    const admitted = rows.at(-1)?.admitted === true;
    const states = scopes.map((scope) => {
      const slices = rows
        .filter((row) => row.slice_key === scope.key)
        .map((row) => ({ bucket_start: Number(row.slice_start), hits: Number(row.slice_hits) }));
      return { scope, slices, used: slices.reduce((total, slice) => total + slice.hits, 0) };
    });
    return decide(states, now, admitted);
  }

  /**
   * The same decision as the store's, made in memory: after the scopes' slices are
   * loaded, the check and the count run without an await between them, so
   * concurrent requests are admitted exactly up to the quota. The counts reach the
   * store at the next checkpoint (THROTTLE_CHECKPOINT_MS) and when the engine closes.
   */
  private async admitInMemory(memory: Map<string, Map<number, number>>, scopes: Scope[], now: number): Promise<ThrottleDecision> {
    for (const scope of scopes) if (!memory.has(scope.key)) await this.loadScope(memory, scope.key);
    const states = scopes.map((scope) => {
      const cutoff = sliceStart(now - scope.windowMs, scope.sliceMs);
      const slices: Array<{ bucket_start: number; hits: number }> = [];
      let used = 0;
      for (const [start, hits] of memory.get(scope.key)!) {
        if (start < cutoff || hits === 0) continue;
        slices.push({ bucket_start: start, hits });
        used += hits;
      }
      slices.sort((a, b) => a.bucket_start - b.bucket_start);
      return { scope, slices, used };
    });
    const decision = decide(states, now, states.every((state) => state.used < state.scope.limit));
    for (const slice of decision.counted) this.addInMemory(memory, slice, 1);
    if (decision.allowed && ++this.admissionsSincePrune >= 1000) {
      this.admissionsSincePrune = 0;
      this.pruneMemory(memory, now);
    }
    return decision;
  }

  private loadScope(memory: Map<string, Map<number, number>>, key: string): Promise<void> {
    let loading = this.loading.get(key);
    if (!loading) {
      loading = (async () => {
        const rows = await this.db.selectFrom('throttle_buckets').select(['bucket_start', 'hits']).where('scope_key', '=', key).execute();
        // A concurrent admission may have counted while this read ran: keep its hits.
        const slices = memory.get(key) ?? new Map<number, number>();
        for (const row of rows) slices.set(Number(row.bucket_start), (slices.get(Number(row.bucket_start)) ?? 0) + row.hits);
        memory.set(key, slices);
      })().finally(() => this.loading.delete(key));
      this.loading.set(key, loading);
    }
    return loading;
  }

  private addInMemory(memory: Map<string, Map<number, number>>, { key, bucketStart }: CountedSlice, delta: number): void {
    const slices = memory.get(key);
    if (!slices) return;
    slices.set(bucketStart, Math.max(0, (slices.get(bucketStart) ?? 0) + delta));
    this.markDirty(key, bucketStart);
  }

  /** Marks a slice's count to be written at the next checkpoint, and schedules one. */
  private markDirty(key: string, bucketStart: number): void {
    let dirtySlices = this.dirty.get(key);
    if (!dirtySlices) this.dirty.set(key, (dirtySlices = new Set()));
    dirtySlices.add(bucketStart);
    if (this.closing) return;
    this.checkpointTimer ??= setTimeout(() => {
      this.checkpointTimer = null;
      void this.checkpoint().catch((error: unknown) => console.error('writing the throttle counts failed:', (error as Error).message));
    }, THROTTLE_CHECKPOINT_MS).unref();
  }

  /**
   * Takes back an admission whose request ended up costing nothing (a 304 Not
   * Modified answer). Lowering a count can only admit a later request sooner, never
   * one past the quota: the count stays at least what was really served.
   */
  async refund(counted: readonly CountedSlice[]): Promise<void> {
    if (counted.length === 0) return;
    if (this.memory) {
      for (const slice of counted) this.addInMemory(this.memory, slice, -1);
      return;
    }
    // One statement for every slice; a count never goes below zero.
    await retryOnDeadlock(() => sql`
      update throttle_buckets set hits = hits - 1
      from unnest(${counted.map((slice) => slice.key)}::text[], ${counted.map((slice) => slice.bucketStart)}::bigint[]) as taken(scope_key, bucket_start)
      where throttle_buckets.scope_key = taken.scope_key and throttle_buckets.bucket_start = taken.bucket_start and throttle_buckets.hits > 0`.execute(this.db));
  }

  /** Writes the in-memory counts changed since the last checkpoint to the store (one transaction). */
  checkpoint(): Promise<void> {
    // After a failed checkpoint, not stuck: the next one still runs (the failure went to its caller).
    this.checkpointing = this.checkpointing.catch(() => {}).then(async () => {
      const memory = this.memory;
      if (!memory || this.dirty.size === 0) return;
      const values = [...this.dirty].flatMap(([key, starts]) =>
        [...starts].map((bucketStart) => ({ scope_key: key, bucket_start: bucketStart, hits: memory.get(key)?.get(bucketStart) ?? 0 })),
      );
      this.dirty.clear();
      try {
        await this.db.transaction().execute(async (trx) => {
          for (let start = 0; start < values.length; start += 200) {
            await trx
              .insertInto('throttle_buckets')
              .values(values.slice(start, start + 200))
              .onConflict((conflict) => conflict.columns(['scope_key', 'bucket_start']).doUpdateSet({ hits: sql`excluded.hits` }))
              .execute();
          }
        });
      } catch (error) {
        // Not written (a full disk, say): the counts stay in memory, so they are marked
        // to be written again at the next checkpoint rather than lost from the store.
        for (const { scope_key: key, bucket_start: bucketStart } of values) this.markDirty(key, bucketStart);
        throw error;
      }
    });
    return this.checkpointing;
  }

  /** Writes what is still in memory; the engine calls it as it closes, before the store closes. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
    await this.checkpoint();
  }

  private pruneMemory(memory: Map<string, Map<number, number>>, now: number): void {
    const horizon = now - this.longestWindowMs - this.longestWindowMs / SLICES_PER_WINDOW;
    for (const slices of memory.values()) for (const start of slices.keys()) if (start < horizon) slices.delete(start);
    void this.prune().catch(() => {});
  }

  /** Drops slices no window can reach any more. */
  async prune(): Promise<void> {
    const horizon = this.clock.now().getTime() - this.longestWindowMs - this.longestWindowMs / SLICES_PER_WINDOW;
    // Not the anchor rows (bucket_start -1, PostgreSQL: throttle_admit locks them): deleting
    // one that an admission holds would wait for it, in no order, and could deadlock with it.
    await this.db.deleteFrom('throttle_buckets').where('bucket_start', '<', horizon).where('bucket_start', '>=', 0).execute();
  }
}

/**
 * Runs one statement again when PostgreSQL broke a deadlock by failing it (it had
 * changed nothing then). Refunds lock slice rows in no particular order while an
 * admission holding anchors locks them too; such a deadlock is rare and harmless.
 */
async function retryOnDeadlock<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if ((error as { code?: string }).code !== DEADLOCK_DETECTED || attempt >= 3) throw error;
    }
  }
}

function sliceStart(time: number, sliceMs: number): number {
  return Math.floor(time / sliceMs) * sliceMs;
}

interface ScopeState {
  scope: Scope;
  /** The scope's slices with hits in its window, oldest first, before this request. */
  slices: Array<{ bucket_start: number; hits: number }>;
  used: number;
}

/** The answer for a request `admitted` (counted in every scope) or not, from the scopes' counts before it. */
function decide(states: ScopeState[], now: number, admitted: boolean): ThrottleDecision {
  if (!admitted) {
    const full = states.filter((state) => state.used >= state.scope.limit);
    // On a shared store the verdict comes from the store; the counts read with it agree.
    const blocking = full.length > 0 ? full : states;
    const retryAt = Math.max(...blocking.map((state) => whenCountDropsBelow(state.slices, state.used, state.scope, now)));
    return { allowed: false, counted: [], limit: blocking[0]!.scope.limit, remaining: 0, resetSeconds: Math.max(1, Math.ceil((retryAt - now) / 1000)) };
  }
  const tightest = states.reduce((a, b) => (b.scope.limit - b.used < a.scope.limit - a.used ? b : a));
  const oldest = tightest.slices[0] ? tightest.slices[0].bucket_start : sliceStart(now, tightest.scope.sliceMs);
  return {
    allowed: true,
    counted: states.map(({ scope }) => ({ key: scope.key, bucketStart: sliceStart(now, scope.sliceMs) })),
    limit: tightest.scope.limit,
    remaining: Math.max(0, tightest.scope.limit - tightest.used - 1),
    resetSeconds: Math.max(1, Math.ceil((oldest + tightest.scope.sliceMs + tightest.scope.windowMs - now) / 1000)),
  };
}

/** The time at which enough of the oldest slices have left the window for the count to fall below the limit. */
function whenCountDropsBelow(slices: Array<{ bucket_start: number; hits: number }>, used: number, scope: Scope, now: number): number {
  let remaining = used;
  for (const slice of slices) {
    remaining -= slice.hits;
    if (remaining < scope.limit) return Number(slice.bucket_start) + scope.sliceMs + scope.windowMs;
  }
  return now + scope.windowMs; // a limit of 0: never, so say "a whole window"
}

/**
 * Reads a --throttle-config file's JSON: the same shape as the built-in table,
 * any subset of actions, each overriding `user` and/or `org`.
 */
export function mergeThrottleRates(overrides: unknown): ThrottleRates {
  const merged: Record<string, ActionQuota> = { ...DEFAULT_THROTTLE_RATES };
  if (overrides === undefined || overrides === null) return merged as ThrottleRates;
  if (typeof overrides !== 'object' || Array.isArray(overrides)) throw new Error('the throttle config must be a JSON object of action names to {user, org} rates');
  for (const [action, value] of Object.entries(overrides)) {
    if (!(action in DEFAULT_THROTTLE_RATES)) {
      throw new Error(`unknown throttle action "${action}"; the actions are: ${Object.keys(DEFAULT_THROTTLE_RATES).join(', ')}`);
    }
    if (typeof value !== 'object' || value === null) throw new Error(`"${action}" must be an object like {"user": "10/min", "org": "10000/day"}`);
    const quota = { ...merged[action]! } as { user: string | null; org: string | null; bucket?: string };
    for (const scope of ['user', 'org'] as const) {
      if (!(scope in value)) continue;
      const rate = (value as Record<string, unknown>)[scope];
      if (rate !== null && !isRate(rate)) throw new Error(`"${action}.${scope}" must be a rate like "10/min" (units: sec, min, hour, day) or null`);
      quota[scope] = rate as string | null;
    }
    merged[action] = quota as ActionQuota;
  }
  return merged as ThrottleRates;
}
