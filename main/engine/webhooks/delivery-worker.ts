// Delivers queued webhook calls: in order per webhook, webhooks in parallel (a slow
// or dead endpoint holds up only itself), retried with exponential backoff and
// jitter, every attempt logged. Runs beside the HTTP server, never inside a request.
//
// Per webhook, a lane claims a window of its queue's head (up to `pipelineWindow`
// deliveries) and sends them on one kept-alive HTTP/1.1 connection (undici's Client,
// pipelined-connection.ts), pipelined: the requests go out back to back on one byte stream, so the endpoint reads them in
// queue order, and their answers come back in that order. Outcomes are recorded in
// batches as the answers arrive. A connection is first proven to stay open (one
// answer) before more than one request rides on it. A failure stops the lane: the
// failed delivery waits for its retry, and nothing after it is sent until then
// (docs/webhooks.md "Order" says what the endpoint can see when it refuses one).
//
// Several server processes may share one PostgreSQL store, each with a worker. A
// worker claims deliveries before it posts them (a row lock skips rows another worker
// is claiming); the claim is renewed as answers arrive and lapses when its worker
// stops answering for it, so a process that dies mid-delivery leaves its deliveries
// to the others: each change is posted once per webhook normally, and never lost.
import type { EngineContext } from '../context.ts';
import type { Insertable } from 'kysely';
import type { DeliveryRow, WebhookRow } from '../store/tables.ts';
import type { WebhookProcessLogsTable } from '../store/event-tables.ts';
import { backoffDelayMs } from '../../../shared/backoff.ts';
import { nowIso } from '../clock.ts';
import { assertPublicHost, publicOnlyLookup } from './address-guard.ts';
import { isDeadLocalWorker, newWorkerId } from './delivery-claimants.ts';
import { describeFailure, OutcomeRecorder, type Attempted, type Outcome } from './delivery-outcomes.ts';
import { PipelinedConnection, type PipelinedConnectionOptions } from './pipelined-connection.ts';
import { parseHeaders } from './webhook-settings.ts';
import type { DeliveryBody } from './webhook-capture.ts';
import { countOf } from '../../../shared/words.ts';
import { toFlag } from '../store/portable-columns.ts';

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
  /**
   * Deliver to loopback and private addresses. A function is asked at each connection:
   * the app's setting can change while the engine runs (Settings, "Webhooks to this
   * computer and the local network").
   */
  allowPrivateEndpoints: boolean | (() => boolean);
  /** What a refused private endpoint's note tells the person to do, after a semicolon: the server names its flag, the app its setting. */
  privateEndpointAdvice: string;
  retry: RetryPolicy;
  /** Per attempt: the longest wait for the endpoint's next answer byte. */
  timeoutMs: number;
  /** Webhooks delivered to at the same time. */
  concurrency: number;
  /** Deliveries of one webhook claimed at once and in flight together on its connection. */
  pipelineWindow: number;
  /** How often to look for due deliveries when nothing wakes the worker (other processes, retries). */
  pollIntervalMs: number;
  random?: () => number;
  /** PEM certificates of private authorities trusted for https endpoints besides the system's (see PipelinedConnectionOptions). */
  extraTrustedCertificates?: readonly string[];
  /** Told after a delivery's outcome committed: delivered, given up, or to be tried again (the app's activity log). */
  onDeliveryOutcome?: (outcome: DeliveryOutcomeNotice) => void;
}

/** One delivery attempt's outcome, as a host's listener hears it. */
export interface DeliveryOutcomeNotice {
  orgId: number;
  webhookId: number;
  /** The change event's name (`project.updated`...). */
  event: string;
  successful: boolean;
  givingUp: boolean;
  notes: string;
}

export const DEFAULT_DELIVERY_OPTIONS: DeliveryWorkerOptions = {
  allowPrivateEndpoints: false,
  privateEndpointAdvice: 'start the server with --allow-private-webhook-endpoints to deliver to it.',
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

/** Time a claim holds past the attempt's own timeout: posting, then recording the outcome. */
const CLAIM_MARGIN_MS = 15_000;

export class WebhookDeliveryWorker {
  /** Names this worker's claims; unique per process start. */
  readonly workerId = newWorkerId();
  /** The lane of each webhook being delivered to. */
  private readonly inFlight = new Map<number, Promise<void>>();
  /** Each webhook's connection, kept alive between its lanes while its endpoint stays the same. */
  private readonly connections = new Map<number, { endpoint: string; allowsPrivate: boolean; connection: PipelinedConnection }>();
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
    await this.context.db.updateTable('webhook_deliveries').set({ claimed_by: null, claimed_until: null, processing_started_at: null }).where('claimed_by', 'is not', null).execute();
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
    for (const { connection } of this.connections.values()) connection.close();
    this.connections.clear();
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
   * its head and sends them in order on the webhook's connection, recording each
   * outcome as its answer arrives. Sends nothing more after a failure, or at stop().
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
    const claimed = new Map((await this.claim(wanted, now, this.claimUntil(), deadClaimants)).map((row) => [row.id, row]));
    // In order, up to the first one not claimed (another worker's) or not yet due.
    const run: DeliveryRow[] = [];
    for (const id of wanted) {
      const delivery = claimed.get(id);
      if (!delivery || delivery.next_attempt_at > now) break;
      run.push(delivery);
      // A retry goes alone: nothing newer is sent until the endpoint has taken it.
      if (delivery.attempts > 0) break;
    }
    if (run.length > 0) await PipelinedConnection.load();
    const unsent = new Set(claimed.keys());
    const answered = new Set<number>();
    // Each batch of outcomes renews the claim on the window's deliveries not yet answered.
    const recorder = new OutcomeRecorder((attempts) => this.record(attempts, [...claimed.keys()].filter((id) => !answered.has(id))));
    try {
      const webhook = run.length > 0 ? await db.selectFrom('webhooks').selectAll().where('id', '=', webhookId).executeTakeFirst() : undefined;
      if (!webhook || webhook.enabled !== 1) return; // deleted (its deliveries went with it) or disabled meanwhile
      const answers: Array<{ delivery: DeliveryRow; answer: Promise<Outcome> }> = [];
      let failed = false;
      const settle = async (count: number) => {
        for (const { delivery, answer } of answers.splice(0, count)) {
          const outcome = await answer;
          answered.add(delivery.id);
          recorder.add({ orgId: webhook.org_id, delivery, outcome, at: clock.now() });
          if (!outcome.successful) failed = true;
        }
      };
      for (const delivery of run) {
        if (this.stopped || failed || recorder.failed) break;
        const connection = this.connectionFor(webhook);
        // One request at a time until the connection has shown it stays open after an answer.
        if (connection && !connection.keptAlive && connection.inFlight > 0) await settle(answers.length);
        if (failed || this.stopped) break;
        unsent.delete(delivery.id);
        answers.push({ delivery, answer: this.send(webhook, delivery.body) });
      }
      await settle(answers.length);
    } finally {
      try {
        await recorder.flushed();
      } finally {
        if (unsent.size > 0) await this.release([...unsent]);
      }
    }
  }

  private claimUntil(): string {
    return new Date(this.context.clock.now().getTime() + this.options.timeoutMs + CLAIM_MARGIN_MS).toISOString();
  }

  /** The webhook's open connection, or a new one; undefined when its endpoint is refused (send() says why). */
  private connectionFor(webhook: WebhookRow): PipelinedConnection | undefined {
    const current = this.connections.get(webhook.id);
    // A connection opened while private endpoints were allowed is not reused once they are not (and the other way round).
    const allowsPrivate = this.allowsPrivateEndpoints();
    if (current && current.endpoint === webhook.endpoint && current.allowsPrivate === allowsPrivate && current.connection.usable) return current.connection;
    current?.connection.close();
    let url: URL;
    try {
      url = new URL(webhook.endpoint);
      if (!allowsPrivate) assertPublicHost(url.hostname);
    } catch {
      this.connections.delete(webhook.id);
      return undefined;
    }
    const connection = new PipelinedConnection(url, { ...this.connectionOptions(), window: this.options.pipelineWindow });
    this.connections.set(webhook.id, { endpoint: webhook.endpoint, allowsPrivate, connection });
    return connection;
  }

  /** Claims those of `ids` no other live worker holds; returns the ones this worker got. */
  private async claim(ids: number[], now: string, until: string, deadClaimants: string[]): Promise<DeliveryRow[]> {
    const { db, store } = this.context;
    return db
      .updateTable('webhook_deliveries')
      .set({ claimed_by: this.workerId, claimed_until: until, processing_started_at: now })
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
      .set({ claimed_by: null, claimed_until: null, processing_started_at: null })
      .where('id', 'in', ids)
      .where('claimed_by', '=', this.workerId)
      .execute();
  }

  /** Records attempts' outcomes and logs in one transaction, and renews the claim on `stillClaimed` (the window's unanswered deliveries). */
  private async record(attempts: readonly Attempted[], stillClaimed: readonly number[]): Promise<void> {
    const notices: DeliveryOutcomeNotice[] = [];
    await this.context.db.transaction().execute(async (trx) => {
      const logs: Insertable<WebhookProcessLogsTable>[] = [];
      for (const { orgId, delivery, outcome, at } of attempts) {
        const attemptNumber = delivery.attempts + 1;
        const firstAttemptAt = delivery.first_attempt_at ?? at.toISOString();
        const givingUp =
          !outcome.successful && (outcome.permanent || at.getTime() - Date.parse(firstAttemptAt) >= this.options.retry.giveUpAfterMs);
        const notes = givingUp && !outcome.successful
          ? // Notes that end a sentence (a refusal's advice) take the clause before their full stop.
            `${outcome.notes.replace(/\.$/, '')}; gave up after ${countOf(attemptNumber, 'attempt')}`
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
            processing_started_at: null,
          })
          .where('id', '=', delivery.id)
          // A claim that lapsed (this process stalled past it) belongs to another worker now; its outcome counts.
          .where('claimed_by', '=', this.workerId)
          .executeTakeFirst();
        if (Number(recorded.numUpdatedRows) === 0) continue;
        const body = JSON.parse(delivery.body) as DeliveryBody;
        notices.push({ orgId, webhookId: delivery.webhook_id, event: body.event, successful: outcome.successful, givingUp, notes });
        logs.push({
          org_id: orgId,
          webhook_id: delivery.webhook_id,
          delivery_id: delivery.id,
          attempt: attemptNumber,
          created_date: at.toISOString(),
          successful: toFlag(outcome.successful),
          model_name: body.model,
          model_pk: body.model_id,
          event_id: body.event_id,
          event_name: body.event,
          event_timestamp: body.timestamp,
          notes,
        });
      }
      if (logs.length > 0) await trx.insertInto('webhook_process_logs').values(logs).execute();
      const renewed = stillClaimed;
      if (renewed.length > 0) {
        // Deliveries still in flight or waiting in this window: their claim lasts while answers keep coming.
        await trx
          .updateTable('webhook_deliveries')
          .set({ claimed_until: this.claimUntil() })
          .where('id', 'in', renewed)
          .where('status', '=', 'pending')
          .where('claimed_by', '=', this.workerId)
          .execute();
      }
    });
    // After the commit: a listener that fails is the listener's own fault, not the delivery's.
    for (const notice of notices) {
      try {
        this.options.onDeliveryOutcome?.(notice);
      } catch (error) {
        console.error('SolarDesk: a delivery outcome listener failed:', error);
      }
    }
  }

  /**
   * One POST of `body` to the webhook's endpoint now, on a connection of its own
   * (the queue's order and connection are left alone), under the same address
   * guard, headers and timeout as deliveries: a test delivery. Not logged.
   */
  async sendOnce(webhook: WebhookRow, body: string): Promise<{ successful: boolean; status: number | null; notes: string }> {
    let connection: PipelinedConnection | undefined;
    try {
      await PipelinedConnection.load();
      const url = new URL(webhook.endpoint);
      if (!this.allowsPrivateEndpoints()) assertPublicHost(url.hostname);
      connection = new PipelinedConnection(url, { ...this.connectionOptions(), window: 1 });
      const response = await connection.post(this.headersOf(webhook), body);
      const successful = response.status >= 200 && response.status < 300;
      return { successful, status: response.status, notes: successful ? `HTTP ${response.status}` : `HTTP ${response.status}: ${response.body}` };
    } catch (error) {
      return { successful: false, status: null, notes: describeFailure(error, this.options.privateEndpointAdvice).notes };
    } finally {
      connection?.close();
    }
  }

  private allowsPrivateEndpoints(): boolean {
    const allow = this.options.allowPrivateEndpoints;
    return typeof allow === 'function' ? allow() : allow;
  }

  /** What every connection to an endpoint shares: the timeout, the address guard and the trusted authorities. */
  private connectionOptions(): Omit<PipelinedConnectionOptions, 'window'> {
    return {
      timeoutMs: this.options.timeoutMs,
      ...(this.allowsPrivateEndpoints() ? {} : { lookup: publicOnlyLookup as never }),
      ...(this.options.extraTrustedCertificates ? { extraTrustedCertificates: this.options.extraTrustedCertificates } : {}),
    };
  }

    private headersOf(webhook: WebhookRow): Record<string, string> {
    return { ...parseHeaders(webhook.headers), 'content-type': 'application/json', 'user-agent': 'SolarDesk-Webhooks/1' };
  }

  private async send(webhook: WebhookRow, body: string): Promise<Outcome> {
    try {
      const connection = this.connectionFor(webhook);
      if (!connection) {
        // Only a refused or unreadable endpoint has no connection: say which.
        assertPublicHost(new URL(webhook.endpoint).hostname);
        throw new Error('invalid endpoint');
      }
      const response = await connection.post(this.headersOf(webhook), body);
      const status = response.status;
      if (status >= 200 && status < 300) return { successful: true, notes: `HTTP ${status}` };
      return { successful: false, permanent: false, notes: `HTTP ${status}: ${response.body}` };
    } catch (error) {
      return describeFailure(error, this.options.privateEndpointAdvice);
    }
  }
}
