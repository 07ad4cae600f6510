// What lets a person set up a webhook without knowing the API (issue 20), beside
// the hosted service's routes: the delivery log's rows named by their record's
// title and the endpoint's answer status, a test delivery, redelivering a logged
// attempt, and the payload each attempt sent. The routes are SolarDesk extensions
// (webhook-routes.ts); admin-only and counted like the other webhook routes.
import type { Selectable } from 'kysely';
import type { WebhookRow } from '../store/tables.ts';
import type { WebhookProcessLogsTable } from '../store/event-tables.ts';
import { ApiError } from '../http/errors.ts';
import { nowIso } from '../clock.ts';
import { snapshotRecord } from '../changes/record-snapshots.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { cutToPaths } from '../../../shared/webhook-fields.ts';
import { WEBHOOK_EVENT_QUEUE_NAME, type WebhookLogJson, type WebhookLogPayloadJson, type WebhookRedeliverJson, type WebhookTestResultJson } from '../../../shared/schemas/webhook.ts';
import { parseFieldList } from './webhook-settings.ts';
import type { DeliveryBody } from './webhook-capture.ts';
import { toFlag } from '../store/portable-columns.ts';

type LogRow = Selectable<WebhookProcessLogsTable>;

/** The delivery a test delivery's log row names: none (deliveries count from 1). */
const TEST_DELIVERY_ID = 0;

/** The endpoint's status, as the worker wrote it at the head of the notes ("HTTP 503: ..."); null when it did not answer. */
export function responseStatusOf(notes: string): number | null {
  const match = /^HTTP (\d{3})\b/.exec(notes);
  return match ? Number(match[1]) : null;
}

/** Each logged record's title now, by "Model:pk": a project's title (or address), a contact's name (or email), an event's title. */
async function recordTitles(context: EngineContext, orgId: number, rows: readonly LogRow[]): Promise<Map<string, string>> {
  const idsOf = (model: string) => [...new Set(rows.filter((row) => row.model_name === model).map((row) => row.model_pk))];
  const titles = new Map<string, string>();
  const { db } = context;
  const projectIds = idsOf('Project');
  if (projectIds.length > 0) {
    for (const row of await db.selectFrom('projects').select(['id', 'title', 'address']).where('org_id', '=', orgId).where('id', 'in', projectIds).execute()) {
      titles.set(`Project:${row.id}`, row.title || row.address || `Project ${row.id}`);
    }
  }
  const contactIds = idsOf('Contact');
  if (contactIds.length > 0) {
    for (const row of await db.selectFrom('contacts').select(['id', 'first_name', 'family_name', 'email']).where('org_id', '=', orgId).where('id', 'in', contactIds).execute()) {
      titles.set(`Contact:${row.id}`, `${row.first_name} ${row.family_name}`.trim() || row.email || `Contact ${row.id}`);
    }
  }
  const eventIds = idsOf('Event');
  if (eventIds.length > 0) {
    for (const row of await db.selectFrom('events').select(['id', 'title']).where('org_id', '=', orgId).where('id', 'in', eventIds).execute()) {
      titles.set(`Event:${row.id}`, row.title || `Event ${row.id}`);
    }
  }
  return titles;
}

/**
 * The log stores the delivery body's `timestamp` (epoch seconds, as compatibility.md
 * has the body carry it); the log row shows it as an ISO 8601 date-time, as the
 * hosted log does (hosted-docs-facts.md 7). Anything else stored is shown as it is.
 */
export function isoTimestamp(stored: string): string {
  if (!/^\d{1,12}$/.test(stored)) return stored;
  return new Date(Number(stored) * 1000).toISOString();
}

export async function logRowsJson(context: EngineContext, orgId: number, rows: readonly LogRow[]): Promise<WebhookLogJson[]> {
  const titles = await recordTitles(context, orgId, rows);
  return rows.map((row) => ({
    url: absoluteUrl(context, apiPaths.webhookProcessLog(row.org_id, row.id)),
    org: absoluteUrl(context, apiPaths.org(row.org_id)),
    webhook: absoluteUrl(context, apiPaths.webhook(row.org_id, row.webhook_id)),
    created_date: row.created_date,
    // A row is written once, when its attempt ends.
    modified_date: row.created_date,
    successful: row.successful === 1,
    model_name: row.model_name,
    model_pk: row.model_pk,
    event_queue_name: WEBHOOK_EVENT_QUEUE_NAME,
    event_id: row.event_id,
    event_name: row.event_name,
    event_timestamp: isoTimestamp(row.event_timestamp),
    notes: row.notes,
    id: row.id,
    attempt: row.attempt,
    record_title: titles.get(`${row.model_name}:${row.model_pk}`) ?? null,
    response_status: responseStatusOf(row.notes),
  }));
}

export async function findLogRow(context: EngineContext, orgId: number, id: number): Promise<LogRow> {
  const row = await context.db.selectFrom('webhook_process_logs').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  if (!row) throw new ApiError(404, { detail: 'Not found.' });
  return row;
}

export async function logPayload(context: EngineContext, orgId: number, id: number): Promise<WebhookLogPayloadJson> {
  const row = await findLogRow(context, orgId, id);
  const delivery = await context.db.selectFrom('webhook_deliveries').select('body').where('id', '=', row.delivery_id).where('webhook_id', '=', row.webhook_id).executeTakeFirst();
  return {
    id: row.id,
    payload: delivery ? (JSON.parse(delivery.body) as Record<string, unknown>) : null,
    response_status: responseStatusOf(row.notes),
    notes: row.notes,
  };
}

const NOT_DELIVERING =
  'This copy of the organisation does not deliver webhooks: the server you sync with does. Test and redeliver there, or work on the embedded store.';

/** Queues the payload of a logged attempt again, at the end of its webhook's queue, with the same event_id (it is the same change). */
export async function redeliver(context: EngineContext, orgId: number, id: number): Promise<WebhookRedeliverJson> {
  if (!context.webhookWorker) throw new ApiError(409, { detail: NOT_DELIVERING });
  const row = await findLogRow(context, orgId, id);
  const webhook = await context.db.selectFrom('webhooks').select(['id', 'enabled']).where('id', '=', row.webhook_id).where('org_id', '=', orgId).executeTakeFirst();
  const delivery = await context.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', row.delivery_id).executeTakeFirst();
  if (!webhook || !delivery) throw new ApiError(410, { detail: 'This attempt’s payload is no longer kept, so it cannot be sent again.' });
  const now = nowIso(context.clock);
  await context.db
    .insertInto('webhook_deliveries')
    .values({ webhook_id: webhook.id, change_id: delivery.change_id, body: delivery.body, status: 'pending', attempts: 0, next_attempt_at: now, created_date: now })
    .execute();
  context.webhookWorker.wake();
  const enabled = webhook.enabled === 1;
  return {
    queued: true,
    webhook_enabled: enabled,
    detail: enabled
      ? 'Queued: it is sent after the deliveries already waiting, and shows in the log.'
      : 'Queued, but the webhook is off: it is sent when you turn the webhook on.',
  };
}

/**
 * A sample payload: the org's most recently changed project as this webhook would
 * send it (cut to its payload paths), as an UPDATE with event_id 0, so a receiver
 * that keeps the last event_id it applied ignores it. The header
 * `X-SolarDesk-Test: 1` says it is a test.
 */
export async function testDelivery(context: EngineContext, orgId: number, webhook: WebhookRow): Promise<WebhookTestResultJson> {
  const worker = context.webhookWorker;
  if (!worker) throw new ApiError(409, { detail: NOT_DELIVERING });
  const latest = await context.db.selectFrom('projects').select('id').where('org_id', '=', orgId).orderBy('modified_date', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  const record = latest ? await context.db.transaction().execute((trx) => snapshotRecord(trx, context, orgId, 'project', latest.id)) : null;
  const body: DeliveryBody = {
    timestamp: String(Math.floor(context.clock.now().getTime() / 1000)),
    model: 'Project',
    model_id: latest?.id ?? 0,
    identifier: typeof record?.identifier === 'string' ? record.identifier : '',
    event: 'UPDATE',
    event_id: 0,
    fields: record ? cutToPaths(record, parseFieldList(webhook.payload_fields), 'project') : {},
  };
  const started = performance.now();
  const result = await worker.sendOnce({ ...webhook, headers: withTestHeader(webhook.headers) }, JSON.stringify(body));
  // Logged like a delivery's attempt, so the log shows what the person just did. No queued delivery stands
  // behind it (delivery 0), so it has no payload to show or send again; event_id 0 marks it as a test.
  await context.db
    .insertInto('webhook_process_logs')
    .values({
      org_id: orgId,
      webhook_id: webhook.id,
      delivery_id: TEST_DELIVERY_ID,
      attempt: 1,
      created_date: nowIso(context.clock),
      successful: toFlag(result.successful),
      model_name: body.model,
      model_pk: body.model_id,
      event_id: body.event_id,
      event_name: body.event,
      event_timestamp: body.timestamp,
      notes: result.notes,
    })
    .execute();
  return { ...result, duration_ms: Math.round(performance.now() - started), payload: body as unknown as Record<string, unknown> };
}

function withTestHeader(headers: string | null): string {
  let parsed: Record<string, string> = {};
  try {
    if (headers && headers.trim() !== '') parsed = JSON.parse(headers) as Record<string, string>;
  } catch {
    // validated on write; an unreadable one sends no headers of its own
  }
  return JSON.stringify({ ...parsed, 'X-SolarDesk-Test': '1' });
}
