// Delivers queued webhook calls: in order per webhook (a webhook's next delivery
// waits for the one before it), webhooks in parallel (a slow or dead endpoint
// holds up only itself), retried with exponential backoff and jitter, every
// attempt logged. Runs beside the HTTP server, never inside a request.
//
// Several server processes may share one PostgreSQL store, each with a worker. A
// worker claims a delivery before it posts it (a row lock skips rows another worker
// is claiming), and the claim lapses after the longest an attempt can take, so a
// process that dies mid-delivery leaves its deliveries to the others: each change
// is posted once per webhook normally, and never lost.
import fs from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import got, { type Response } from 'got';
import type { EngineContext } from '../context.ts';
import type { DeliveryRow, WebhookRow } from '../store/tables.ts';
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
  /** How often to look for due deliveries when nothing wakes the worker (other processes, retries). */
  pollIntervalMs: number;
  random?: () => number;
}

export const DEFAULT_DELIVERY_OPTIONS: DeliveryWorkerOptions = {
  allowPrivateEndpoints: false,
  retry: DEFAULT_RETRY_POLICY,
  timeoutMs: 10_000,
  concurrency: 8,
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

export class WebhookDeliveryWorker {
  /** Names this worker's claims; unique per process start. */
  readonly workerId = `${LOCAL_MACHINE}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly inFlight = new Map<number, Promise<void>>();
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

  /** Stops scanning and waits for attempts in flight (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.scanning;
    await Promise.allSettled(this.inFlight.values());
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
    // The head of each enabled webhook's queue: its oldest pending delivery. A head
    // claimed by another worker holds its webhook's queue until that worker is done.
    const heads = await db
      .selectFrom('webhook_deliveries as delivery')
      .innerJoin('webhooks', 'webhooks.id', 'delivery.webhook_id')
      .select(['delivery.id', 'delivery.webhook_id', 'delivery.next_attempt_at', 'delivery.claimed_by', 'delivery.claimed_until'])
      .where('delivery.status', '=', 'pending')
      .where('webhooks.enabled', '=', 1)
      .where('delivery.id', '=', (builder) =>
        builder
          .selectFrom('webhook_deliveries as earlier')
          .select((inner) => inner.fn.min('earlier.id').as('first'))
          .whereRef('earlier.webhook_id', '=', 'delivery.webhook_id')
          .where('earlier.status', '=', 'pending'),
      )
      .orderBy('delivery.next_attempt_at')
      .execute();
    const room = this.options.concurrency - this.inFlight.size;
    const deadClaimants = new Set(heads.map((head) => head.claimed_by).filter((owner): owner is string => owner !== null && isDeadLocalWorker(owner)));
    const due = heads
      .filter((head) => !this.inFlight.has(head.webhook_id) && head.next_attempt_at <= now)
      .filter((head) => head.claimed_until === null || head.claimed_until < now || deadClaimants.has(head.claimed_by!))
      .slice(0, Math.max(0, room));
    if (this.stopped || due.length === 0) return;
    for (const delivery of await this.claim(due.map((head) => head.id), now, [...deadClaimants])) {
      const attempt = this.attempt(delivery).finally(() => {
        this.inFlight.delete(delivery.webhook_id);
        this.wake();
      });
      this.inFlight.set(delivery.webhook_id, attempt);
    }
  }

  /** Claims those of `ids` no other live worker holds; returns the ones this worker got. */
  private async claim(ids: number[], now: string, deadClaimants: string[]): Promise<DeliveryRow[]> {
    const { db, store } = this.context;
    const until = new Date(this.context.clock.now().getTime() + this.options.timeoutMs + CLAIM_MARGIN_MS).toISOString();
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

  private async attempt(delivery: DeliveryRow): Promise<void> {
    const { db } = this.context;
    const webhook = await db.selectFrom('webhooks').selectAll().where('id', '=', delivery.webhook_id).executeTakeFirst();
    if (!webhook) return; // deleted meanwhile: its deliveries went with it
    const outcome = await this.post(webhook, delivery.body);
    const now = this.context.clock.now();
    const attemptNumber = delivery.attempts + 1;
    const firstAttemptAt = delivery.first_attempt_at ?? now.toISOString();
    const givingUp =
      !outcome.successful && (outcome.permanent || now.getTime() - Date.parse(firstAttemptAt) >= this.options.retry.giveUpAfterMs);
    const body = JSON.parse(delivery.body) as DeliveryBody;
    const notes = givingUp && !outcome.successful
      ? `${outcome.notes}; gave up after ${attemptNumber} attempt${attemptNumber === 1 ? '' : 's'}`
      : outcome.notes;

    await db.transaction().execute(async (trx) => {
      const recorded = await trx
        .updateTable('webhook_deliveries')
        .set({
          attempts: attemptNumber,
          first_attempt_at: firstAttemptAt,
          last_error: outcome.successful ? null : outcome.notes,
          status: outcome.successful ? 'delivered' : givingUp ? 'failed' : 'pending',
          next_attempt_at: outcome.successful || givingUp
            ? delivery.next_attempt_at
            : new Date(now.getTime() + retryDelayMs(this.options.retry, attemptNumber, this.options.random)).toISOString(),
          finished_at: outcome.successful || givingUp ? now.toISOString() : null,
          claimed_by: null,
          claimed_until: null,
        })
        .where('id', '=', delivery.id)
        // A claim that lapsed (this process stalled past it) belongs to another worker now; its outcome counts.
        .where('claimed_by', '=', this.workerId)
        .executeTakeFirst();
      if (Number(recorded.numUpdatedRows) === 0) return;
      await trx
        .insertInto('webhook_process_logs')
        .values({
          org_id: webhook.org_id,
          webhook_id: webhook.id,
          delivery_id: delivery.id,
          attempt: attemptNumber,
          created_date: now.toISOString(),
          successful: outcome.successful ? 1 : 0,
          model_name: body.model,
          model_pk: body.model_id,
          event_id: body.event_id,
          event_name: body.event,
          event_timestamp: body.timestamp,
          notes,
        })
        .execute();
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

