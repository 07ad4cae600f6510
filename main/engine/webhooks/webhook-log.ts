// Reading the delivery log and the queue (hosted-docs-facts.md 7; hosted docs:
// Webhooks Logs, Webhooks Queue): the log's `search`, and the queue's entries from
// the delivery rows still pending (delivery-worker.ts writes both).
import { sql, type Expression, type SqlBool } from 'kysely';
import type { EngineContext } from '../context.ts';
import { absoluteUrl } from '../context.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { searchTerms } from '../../../shared/search-terms.ts';
import type { WebhookQueueModelJson } from '../../../shared/schemas/webhook.ts';
import { likePattern } from '../projects/project-service.ts';

/**
 * A search looks through the org's newest LOG_SEARCH_WINDOW attempts, not the whole
 * log: the log only grows (every attempt is a row, kept), and a term is a
 * substring anywhere in the row, which no index serves. So a search costs at
 * most a walk of this many rows of the (org_id, id) index, however long the log.
 * 100,000 attempts is weeks of a busy org's deliveries; docs/webhooks.md says so.
 */
export const LOG_SEARCH_WINDOW = 100_000;

export interface LogQuery {
  orgId: number;
  /** Only this webhook's attempts. */
  webhookId?: number;
  search?: string;
  limit: number;
  offset: number;
}

/**
 * The org's log rows, newest first. `search`: split into terms as DRF's
 * SearchFilter does (shared/search-terms.ts); a row matches when every term is,
 * case-insensitively and literally, in one of its model name, event name, notes,
 * record id (model_pk), event id, row id, or its webhook's endpoint.
 */
export async function readLogRows(context: EngineContext, query: LogQuery) {
  const { db } = context;
  let select = db.selectFrom('webhook_process_logs').selectAll().where('org_id', '=', query.orgId);
  if (query.webhookId !== undefined) select = select.where('webhook_id', '=', query.webhookId);
  const terms = searchTerms(query.search ?? '');
  if (terms.length > 0) {
    const oldest = await db
      .selectFrom('webhook_process_logs')
      .select('id')
      .where('org_id', '=', query.orgId)
      .orderBy('id', 'desc')
      .offset(LOG_SEARCH_WINDOW - 1)
      .limit(1)
      .executeTakeFirst();
    if (oldest) select = select.where('id', '>=', oldest.id);
    const endpoints = await db.selectFrom('webhooks').select(['id', 'endpoint']).where('org_id', '=', query.orgId).execute();
    select = select.where((builder) =>
      builder.and(
        terms.map((term) => {
          const pattern = likePattern(term);
          const like = (column: Expression<unknown>) => sql<SqlBool>`lower(${column}) like ${pattern} escape '\\'`;
          const lowered = term.toLowerCase();
          const webhookIds = endpoints.filter((webhook) => webhook.endpoint.toLowerCase().includes(lowered)).map((webhook) => webhook.id);
          return builder.or([
            like(sql.ref('model_name')),
            like(sql.ref('event_name')),
            like(sql.ref('notes')),
            like(sql`cast(model_pk as text)`),
            like(sql`cast(event_id as text)`),
            like(sql`cast(id as text)`),
            ...(webhookIds.length > 0 ? [builder('webhook_id', 'in', webhookIds)] : []),
          ]);
        }),
      ),
    );
  }
  return select.orderBy('id', 'desc').limit(query.limit).offset(query.offset).execute();
}

/** The delivery body fields the queue shows, read in SQL so a page of big bodies is not parsed in JavaScript. */
function bodyField(context: EngineContext, field: 'model' | 'model_id' | 'event' | 'identifier') {
  return context.store.dialect === 'postgres'
    ? sql<string | null>`(webhook_deliveries.body::jsonb ->> ${field})`
    : sql<string | null>`json_extract(webhook_deliveries.body, ${`$.${field}`})`;
}

function queueSelect(context: EngineContext, orgId: number) {
  return context.db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhooks', 'webhooks.id', 'webhook_deliveries.webhook_id')
    .select([
      'webhook_deliveries.id',
      'webhook_deliveries.webhook_id',
      'webhook_deliveries.attempts',
      'webhook_deliveries.next_attempt_at',
      'webhook_deliveries.processing_started_at',
      'webhooks.org_id',
    ])
    .select(bodyField(context, 'model').as('model'))
    .select(bodyField(context, 'model_id').as('model_id'))
    .select(bodyField(context, 'event').as('event'))
    .select(bodyField(context, 'identifier').as('identifier'))
    .where('webhooks.org_id', '=', orgId)
    .where('webhook_deliveries.status', '=', 'pending');
}

type QueueRow = Awaited<ReturnType<ReturnType<typeof queueSelect>['executeTakeFirstOrThrow']>>;

function queueJson(context: EngineContext, row: QueueRow): WebhookQueueModelJson {
  return {
    url: absoluteUrl(context, apiPaths.webhookQueueModel(row.org_id, row.id)),
    org: absoluteUrl(context, apiPaths.org(row.org_id)),
    webhook: absoluteUrl(context, apiPaths.webhook(row.org_id, row.webhook_id)),
    number_of_attempts: row.attempts,
    next_attempt_at: row.next_attempt_at,
    processing_started_at: row.processing_started_at,
    model_name: row.model ?? '',
    model_pk: Number(row.model_id ?? 0),
    event: row.event ?? '',
    foreign_identifier: row.identifier ?? '',
    id: row.id,
  };
}

/** The org's deliveries still waiting (or being sent), oldest first: the order each webhook's queue is sent in. */
export async function readQueue(context: EngineContext, orgId: number, page: { limit: number; offset: number }): Promise<WebhookQueueModelJson[]> {
  const rows = await queueSelect(context, orgId).orderBy('webhook_deliveries.id').limit(page.limit).offset(page.offset).execute();
  return rows.map((row) => queueJson(context, row));
}

/** One waiting delivery; undefined once it was delivered or given up (it is no longer in the queue). */
export async function readQueueEntry(context: EngineContext, orgId: number, id: number): Promise<WebhookQueueModelJson | undefined> {
  const row = await queueSelect(context, orgId).where('webhook_deliveries.id', '=', id).executeTakeFirst();
  return row ? queueJson(context, row) : undefined;
}
