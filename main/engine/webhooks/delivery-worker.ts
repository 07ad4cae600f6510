// Delivers queued webhook calls: in order per webhook, webhooks in parallel (a slow
// or dead endpoint holds up only itself), retried with exponential backoff and
// jitter, every attempt logged. Runs beside the HTTP server, never inside a request.
//
// Per webhook, a lane claims a window of its queue's head (up to `pipelineWindow`
// deliveries) and posts them one after another over a kept-alive connection: the
// next is posted as soon as the endpoint has accepted the one before, while that
// one's outcome is being recorded. A later delivery is never posted while an
// earlier one waits for its answer, so the endpoint receives them in order, and a
// failed delivery stops its lane until its retry succeeds or is given up.
//
// Several server processes may share one PostgreSQL store, each with a worker. A
// worker claims deliveries before it posts them (a row lock skips rows another worker
// is claiming), and the claim lapses after the longest a window may take, so a
// process that dies mid-delivery leaves its deliveries to the others: each change
// is posted once per webhook normally, and never lost.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import got, { type Response } from 'got';
import type { EngineContext } from '../context.ts';
import type { Insertable } from 'kysely';
import type { DeliveryRow, WebhookProcessLogsTable, WebhookRow } from '../store/tables.ts';
import { backoffDelayMs } from '../../../shared/backoff.ts';
import { nowIso } from '../clock.ts';
import { PrivateAddressError, assertPublicHost, publicOnlyLookup } from './address-guard.ts';
import { parseHeaders } from './webhook-settings.ts';
import type { DeliveryBody } from './webhook-capture.ts';

export interface RetryPolicy {
  /** The first retry comes this long after the first failure (± jitter); service promise: within 10 s. */
  firstDelayMs: number;
  /** Backoff doubles up to this. */
  maxDelayMs: number;
  /** After this long since the first attempt, a delivery is given up. */
  giveUpAfterMs: number;
  /** ± this fraction of each delay, so many failing webhooks do not retry in lockstep. */
  jitter: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  firstDelayMs: 5_000,
  maxDelayMs: 60 * 60_000,
  giveUpAfterMs: 24 * 60 * 60_000,
  jitter: 0.3,
};

export interface DeliveryWorkerOptions {
  allowPrivateEndpoints: boolean;
  retry: RetryPolicy;
  /** Per attempt. */
  timeoutMs: number;
  /** Webhooks delivered to at the same time. */
  concurrency: number;
  /** Deliveries of one webhook claimed at once and posted back to back (each after the one before was accepted). */
  pipelineWindow: number;
  /** How often to look for due deliveries when nothing wakes the worker (other processes, retries). */
  pollIntervalMs: number;
  random?: () => number;
}

export const DEFAULT_DELIVERY_OPTIONS: DeliveryWorkerOptions = {
  allowPrivateEndpoints: false,
  retry: DEFAULT_RETRY_POLICY,
  timeoutMs: 10_000,
  concurrency: 8,
  pipelineWindow: 32,
  pollIntervalMs: 1_000,
};

/** The wait before retry number `retry` (1 for the first retry). */
export function retryDelayMs(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  return backoffDelayMs({ firstDelayMs: policy.firstDelayMs, factor: 2, maxDelayMs: policy.maxDelayMs, jitter: policy.jitter }, retry, random);
}

type Outcome = { successful: true; notes: string } | { successful: false; notes: string; permanent: boolean };

/**
 * This machine as its processes see one another: the hostname and, on Linux, the
 * pid namespace, because containers can share a hostname without seeing each
 * other's processes.
 */
const LOCAL_MACHINE = (() => {
  let namespace = '';
  try {
    namespace = fs.readlinkSync('/proc/self/ns/pid').replace(/\D/g, '');
  } catch {
    // not Linux: the hostname alone
  }
  return namespace ? `${os.hostname()}/${namespace}` : os.hostname();
})();

/** Time a claim holds past the attempt's own timeout: posting, then recording the outcome. */
const CLAIM_MARGIN_MS = 15_000;
/** A lane posts its next delivery only while the claim outlasts that attempt by this much (time to record it). */
const RECORD_MARGIN_MS = 5_000;

interface Attempted {
  orgId: number;
  delivery: DeliveryRow;
  outcome: Outcome;
  at: Date;
}

export class WebhookDeliveryWorker {
  /** Names this worker's claims; unique per process start. */
  readonly workerId = `${LOCAL_MACHINE}:${process.pid}:${randomBytes(4).toString('hex')}`;
  /** The lane of each webhook being delivered to. */
  private readonly inFlight = new Map<number, Promise<void>>();
  /** Connections kept alive between a webhook's deliveries (a new one per delivery cost more than the post). */
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private rescanRequested = false;
  private stopped = false;

  constructor(
    private readonly context: EngineContext,
    private readonly options: DeliveryWorkerOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /**
   * A store no other process uses (SQLite) can drop every claim at start: they are
   * all from an earlier run of this process, which has ended. Shared stores wait
   * for each claim to lapse instead, as its owner may still be working on it.
   */
  async releaseStaleClaims(): Promise<void> {
    if (this.context.store.shared) return;
    await this.context.db.updateTable('webhook_deliveries').set({ claimed_by: null, claimed_until: null }).where('claimed_by', 'is not', null).execute();
  }

  /** Look for due deliveries now (called after a change is queued). */
  wake(): void {
    if (this.stopped) return;
    if (this.scanning) {
      this.rescanRequested = true;
      return;
    }
    clearTimeout(this.timer);
    this.scanning = this.scan()
      .catch((error: unknown) => {
        // The store may be closing; the next scan tries again.
        if (!this.stopped) console.error('webhook delivery scan failed:', error);
      })
      .finally(() => {
        this.scanning = undefined;
        if (this.stopped) return;
        if (this.rescanRequested) {
          this.rescanRequested = false;
          this.wake();
        } else {
          this.timer = setTimeout(() => this.wake(), this.options.pollIntervalMs);
          this.timer.unref?.();
        }
      });
  }

  /** Stops scanning and waits for the lanes in flight (each stops before its next post). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.scanning;
    await Promise.allSettled(this.inFlight.values());
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** Resolves when nothing is in flight; for tests and benchmarks. */
  async idle(): Promise<void> {
    while (this.scanning || this.inFlight.size > 0) {
      await this.scanning;
      await Promise.allSettled(this.inFlight.values());
    }
  }

  private async scan(): Promise<void> {
    const { db } = this.context;
    const now = nowIso(this.context.clock);
    const room = this.options.concurrency - this.inFlight.size;
    if (room <= 0) return;
    // The head of each enabled webhook's queue: its oldest pending delivery (one
    // index probe per webhook, whatever the backlog). A head claimed by another
    // worker holds its webhook's queue until that worker is done.
    const queues = await db
      .selectFrom('webhooks')
      .select((builder) => [
        'webhooks.id',
        builder
          .selectFrom('webhook_deliveries')
          .select((inner) => inner.fn.min('webhook_deliveries.id').as('first'))
          .whereRef('webhook_deliveries.webhook_id', '=', 'webhooks.id')
          .where('webhook_deliveries.status', '=', 'pending')
          .as('head_id'),
      ])
      .where('webhooks.enabled', '=', 1)
      .execute();
    const headIds = queues.filter((queue) => queue.head_id !== null && !this.inFlight.has(queue.id)).map((queue) => Number(queue.head_id));
    if (this.stopped || headIds.length === 0) return;
    const heads = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'webhook_id', 'next_attempt_at', 'claimed_by', 'claimed_until'])
      .where('id', 'in', headIds)
      .orderBy('next_attempt_at')
      .orderBy('id')
      .execute();
    const deadClaimants = new Set(heads.map((head) => head.claimed_by).filter((owner): owner is string => owner !== null && isDeadLocalWorker(owner)));
    const due = heads
      .filter((head) => head.next_attempt_at <= now)
      .filter((head) => head.claimed_until === null || head.claimed_until < now || deadClaimants.has(head.claimed_by!))
      .slice(0, room);
    for (const head of due) {
      if (this.stopped) return;
      const lane = this.runLane(head.webhook_id, head.id, [...deadClaimants])
        .catch((error: unknown) => {
          if (!this.stopped) console.error(`webhook ${head.webhook_id} delivery failed:`, error);
        })
        .finally(() => {
          this.inFlight.delete(head.webhook_id);
          this.wake();
        });
      this.inFlight.set(head.webhook_id, lane);
    }
  }

  /**
   * One window of a webhook's queue: claims up to `pipelineWindow` deliveries from
   * its head, posts them in order, each once the one before was accepted, and
   * records each outcome while the next is in flight. Stops at the first failure
   * (that delivery waits for its retry, the rest of the window for it), at stop(),
   * and before a post the claim might not cover.
   */
  private async runLane(webhookId: number, headId: number, deadClaimants: string[]): Promise<void> {
    const { db, clock } = this.context;
    const now = nowIso(clock);
    const window = await db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', webhookId)
      .where('status', '=', 'pending')
      .where('id', '>=', headId)
      .orderBy('id')
      .limit(Math.max(1, this.options.pipelineWindow))
      .execute();
    const wanted = window.map((row) => row.id);
    if (wanted[0] !== headId) return; // the head was delivered or claimed meanwhile
    const claimedUntil = new Date(clock.now().getTime() + this.options.timeoutMs + CLAIM_MARGIN_MS);
    const claimed = new Map((await this.claim(wanted, now, claimedUntil.toISOString(), deadClaimants)).map((row) => [row.id, row]));
    // In order, up to the first one not claimed (another worker's) or not yet due.
    const run: DeliveryRow[] = [];
    for (const id of wanted) {
      const delivery = claimed.get(id);
      if (!delivery || delivery.next_attempt_at > now) break;
      run.push(delivery);
    }
    const unposted = new Set(claimed.keys());
    const recorder = new OutcomeRecorder((attempts) => this.record(attempts));
    try {
      const webhook = run.length > 0 ? await db.selectFrom('webhooks').selectAll().where('id', '=', webhookId).executeTakeFirst() : undefined;
      if (!webhook || webhook.enabled !== 1) return; // deleted (its deliveries went with it) or disabled meanwhile
      for (const delivery of run) {
        if (this.stopped || recorder.failed || clock.now().getTime() + this.options.timeoutMs + RECORD_MARGIN_MS > claimedUntil.getTime()) break;
        unposted.delete(delivery.id);
        const outcome = await this.post(webhook, delivery.body);
        recorder.add({ orgId: webhook.org_id, delivery, outcome, at: clock.now() });
        if (!outcome.successful) break;
      }
    } finally {
      try {
        await recorder.flushed();
      } finally {
        if (unposted.size > 0) await this.release([...unposted]);
      }
    }
  }

  /** Claims those of `ids` no other live worker holds; returns the ones this worker got. */
  private async claim(ids: number[], now: string, until: string, deadClaimants: string[]): Promise<DeliveryRow[]> {
    const { db, store } = this.context;
    return db
      .updateTable('webhook_deliveries')
      .set({ claimed_by: this.workerId, claimed_until: until })
      .where('id', 'in', (builder) =>
        builder
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('id', 'in', ids)
          .where('status', '=', 'pending')
          .where((free) =>
            free.or([
              free('claimed_until', 'is', null),
              free('claimed_until', '<', now),
              ...(deadClaimants.length > 0 ? [free('claimed_by', 'in', deadClaimants)] : []),
            ]),
          )
          // Rows another worker is claiming this instant are passed over, not waited for.
          // SQLite has one writer at a time and no row locks to skip.
          .$if(store.dialect === 'postgres', (query) => query.forUpdate().skipLocked()),
      )
      .returningAll()
      .execute();
  }

  /** Gives back claims on deliveries this worker did not post, for the next window. */
  private async release(ids: number[]): Promise<void> {
    await this.context.db
      .updateTable('webhook_deliveries')
      .set({ claimed_by: null, claimed_until: null })
      .where('id', 'in', ids)
      .where('claimed_by', '=', this.workerId)
      .execute();
  }

  /** Records attempts' outcomes and logs in one transaction. */
  private async record(attempts: readonly Attempted[]): Promise<void> {
    await this.context.db.transaction().execute(async (trx) => {
      const logs: Insertable<WebhookProcessLogsTable>[] = [];
      for (const { orgId, delivery, outcome, at } of attempts) {
        const attemptNumber = delivery.attempts + 1;
        const firstAttemptAt = delivery.first_attempt_at ?? at.toISOString();
        const givingUp =
          !outcome.successful && (outcome.permanent || at.getTime() - Date.parse(firstAttemptAt) >= this.options.retry.giveUpAfterMs);
        const notes = givingUp && !outcome.successful
          ? `${outcome.notes}; gave up after ${attemptNumber} attempt${attemptNumber === 1 ? '' : 's'}`
          : outcome.notes;
        const recorded = await trx
          .updateTable('webhook_deliveries')
          .set({
            attempts: attemptNumber,
            first_attempt_at: firstAttemptAt,
            last_error: outcome.successful ? null : outcome.notes,
            status: outcome.successful ? 'delivered' : givingUp ? 'failed' : 'pending',
            next_attempt_at: outcome.successful || givingUp
              ? delivery.next_attempt_at
              : new Date(at.getTime() + retryDelayMs(this.options.retry, attemptNumber, this.options.random)).toISOString(),
            finished_at: outcome.successful || givingUp ? at.toISOString() : null,
            claimed_by: null,
            claimed_until: null,
          })
          .where('id', '=', delivery.id)
          // A claim that lapsed (this process stalled past it) belongs to another worker now; its outcome counts.
          .where('claimed_by', '=', this.workerId)
          .executeTakeFirst();
        if (Number(recorded.numUpdatedRows) === 0) continue;
        const body = JSON.parse(delivery.body) as DeliveryBody;
        logs.push({
          org_id: orgId,
          webhook_id: delivery.webhook_id,
          delivery_id: delivery.id,
          attempt: attemptNumber,
          created_date: at.toISOString(),
          successful: outcome.successful ? 1 : 0,
          model_name: body.model,
          model_pk: body.model_id,
          event_id: body.event_id,
          event_name: body.event,
          event_timestamp: body.timestamp,
          notes,
        });
      }
      if (logs.length > 0) await trx.insertInto('webhook_process_logs').values(logs).execute();
    });
  }

  private async post(webhook: WebhookRow, body: string): Promise<Outcome> {
    try {
      if (!this.options.allowPrivateEndpoints) assertPublicHost(new URL(webhook.endpoint).hostname);
      const response: Response<string> = await got.post(webhook.endpoint, {
        body,
        headers: { ...parseHeaders(webhook.headers), 'content-type': 'application/json', 'user-agent': 'SolarDesk-Webhooks/1' },
        timeout: { request: this.options.timeoutMs },
        retry: { limit: 0 },
        followRedirect: false,
        throwHttpErrors: false,
        agent: this.agents,
        ...(this.options.allowPrivateEndpoints ? {} : { dnsLookup: publicOnlyLookup as never }),
      });
      const status = response.statusCode;
      if (status >= 200 && status < 300) return { successful: true, notes: `HTTP ${status}` };
      return { successful: false, permanent: false, notes: `HTTP ${status}: ${response.body.slice(0, 200)}` };
    } catch (error) {
      return describeFailure(error);
    }
  }
}

/**
 * Writes a lane's outcomes in the background, a batch at a time: the outcome of one
 * delivery is recorded while the next is posted, and whatever piled up meanwhile
 * goes in the next batch.
 */
class OutcomeRecorder {
  private waiting: Attempted[] = [];
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(private readonly write: (attempts: readonly Attempted[]) => Promise<void>) {}

  add(attempt: Attempted): void {
    this.waiting.push(attempt);
    if (this.waiting.length === 1) this.writing = this.writing.then(() => this.writeWaiting());
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Resolves when every outcome added is written; throws the first write's failure. */
  async flushed(): Promise<void> {
    await this.writing;
    if (this.failure !== undefined) throw this.failure;
  }

  private async writeWaiting(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0 || this.failure !== undefined) return;
    try {
      await this.write(batch);
    } catch (error) {
      // Left claimed: the claim lapses (or a restart drops it) and the deliveries are posted again.
      this.failure = error;
    }
  }
}

/**
 * A claim made by a process on this machine that is no longer running (killed,
 * crashed, or this server before a restart) need not wait for its claim to lapse.
 * Claims from other machines always wait: their processes cannot be seen from here.
 */
function isDeadLocalWorker(workerId: string): boolean {
  const [machine, pidText] = workerId.split(':');
  const pid = Number(pidText);
  if (machine !== LOCAL_MACHINE || !Number.isSafeInteger(pid) || pid <= 0) return false;
  // Another engine in this same process (tests run several) is alive by definition.
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: alive, but another user's.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function describeFailure(error: unknown): Outcome {
  const cause = (error as { cause?: unknown }).cause;
  const privateAddress = error instanceof PrivateAddressError ? error : cause instanceof PrivateAddressError ? cause : undefined;
  if (privateAddress) {
    return {
      successful: false,
      permanent: true,
      notes: `refused: ${privateAddress.message}. Start the server with --allow-private-webhook-endpoints to deliver to it.`,
    };
  }
  const code = (error as { code?: string }).code;
  if (code === 'ETIMEDOUT') return { successful: false, permanent: false, notes: 'timed out waiting for the endpoint' };
  return { successful: false, permanent: false, notes: `connection error: ${code ?? (error as Error).message}` };
}

