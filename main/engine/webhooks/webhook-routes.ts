// /api/orgs/<org>/webhooks/ and /webhook_process_logs/ (service.md 4.3,
// compatibility.md "Webhooks"). Only the org's admins see or change them: the
// headers often carry an integration's credentials.
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { type Actor, actorOf } from '../auth/actor.ts';
import { forbidden, notFound } from '../http/errors.ts';
import { idParam, pageOffset, pagingQuery, searchParam } from '../http/list-query.ts';
import { sendCsv } from '../http/csv.ts';
import { LOG_SEARCH_WINDOW, readLogRows, readQueue, readQueueEntry } from './webhook-log.ts';
import { conditionalWriteSchema, readIfMatch, versionTag } from '../http/preconditions.ts';
import { parseOrgReference } from '../../../shared/api-paths.ts';
import { SOLARDESK_EXTENSION_TAG, extensionDescription } from '../http/extensions.ts';
import { findLogRow, logPayload, logRowsJson, redeliver, testDelivery } from './webhook-tools.ts';
import { serializeWebhook, webhookCreateSchema, webhookUpdateSchema } from './webhook-settings.ts';
import { createWebhook, deleteWebhook, updateWebhook } from './webhook-service.ts';
import {
  WEBHOOK_LOG_CSV_COLUMNS,
  WEBHOOK_QUEUE_CSV_COLUMNS,
  webhookJsonSchema,
  webhookLogJsonSchema,
  webhookQueueModelJsonSchema,
  webhookLogPayloadJsonSchema,
  webhookRedeliverJsonSchema,
  webhookTestResultJsonSchema,
} from '../../../shared/schemas/webhook.ts';

const params = z.object({ org_id: z.string(), id: idParam });
const tags = ['webhooks'];
const extensionTags = ['webhooks', SOLARDESK_EXTENSION_TAG];

function adminOf(request: FastifyRequest): Actor {
  const actor = actorOf(request);
  if (actor.role.is_admin !== 1) throw forbidden('Only an admin of the organisation may see or change its webhooks.');
  return actor;
}

export function registerWebhookRoutes(app: TypedApp, context: EngineContext): void {
  const findWebhook = async (orgId: number, id: number) => {
    const webhook = await context.db.selectFrom('webhooks').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    if (!webhook) throw notFound();
    return webhook;
  };

  app.get('/webhooks/', { schema: { tags, summary: 'List the org’s webhooks', querystring: z.object(pagingQuery), response: { 200: z.array(webhookJsonSchema) } } }, async (request) => {
    const actor = adminOf(request);
    const { page, limit } = request.query;
    const rows = await context.db.selectFrom('webhooks').selectAll().where('org_id', '=', actor.org.id).orderBy('id').limit(limit).offset(pageOffset({ page, limit })).execute();
    return rows.map((webhook) => serializeWebhook(context, webhook));
  });

  app.post('/webhooks/', { schema: { tags, summary: 'Create a webhook', body: webhookCreateSchema, response: { 201: webhookJsonSchema } } }, async (request, reply) => {
    const webhook = await createWebhook(context, adminOf(request), request.body);
    return reply.code(201).send(serializeWebhook(context, webhook));
  });

  app.get('/webhooks/:id/', { schema: { tags, summary: 'Get a webhook', params, response: { 200: webhookJsonSchema } } }, async (request, reply) => {
    const webhook = await findWebhook(adminOf(request).org.id, request.params.id);
    reply.header('etag', versionTag(webhook.modified_date));
    return serializeWebhook(context, webhook);
  });

  app.patch('/webhooks/:id/', { schema: { tags, summary: 'Update a webhook', params, body: webhookUpdateSchema, ...conditionalWriteSchema, response: { 200: webhookJsonSchema } } }, async (request, reply) => {
    const actor = adminOf(request);
    const webhook = await findWebhook(actor.org.id, request.params.id);
    const updated = await updateWebhook(context, actor, webhook, request.body, readIfMatch(request.headers['if-match']));
    reply.header('etag', versionTag(updated.modified_date));
    return serializeWebhook(context, updated);
  });

  app.delete('/webhooks/:id/', { schema: { tags, summary: 'Delete a webhook and its pending deliveries', params } }, async (request, reply) => {
    const actor = adminOf(request);
    await deleteWebhook(context, actor, await findWebhook(actor.org.id, request.params.id));
    return reply.code(204).send();
  });

  const formatParam = z.enum(['json', 'csv']).optional().describe('csv: the same rows as CSV (text/csv, a header row)');

  app.get(
    '/webhook_process_logs/',
    {
      schema: {
        tags,
        summary: 'Delivery attempts, newest first (filter by webhook, search, format=csv)',
        description:
          `\`search\`: words found (case-insensitively) in a row's model name, event name, notes, record id, event id, row id or webhook endpoint, every word in some field; ` +
          `it looks through the newest ${LOG_SEARCH_WINDOW} attempts. \`format=csv\` answers the same rows as text/csv.`,
        querystring: z.object({ ...pagingQuery, webhook: z.string().optional(), search: searchParam(), format: formatParam }),
        response: { 200: z.array(webhookLogJsonSchema) },
      },
    },
    async (request, reply) => {
      const actor = adminOf(request);
      const { page, limit, webhook, search, format } = request.query;
      let webhookId: number | undefined;
      let rows: Awaited<ReturnType<typeof readLogRows>> = [];
      // The org is the admin's whatever the reference says: the query is scoped to it already.
      if (webhook !== undefined) webhookId = parseOrgReference(webhook, 'webhooks')?.id ?? -1;
      if (webhookId !== -1) rows = await readLogRows(context, { orgId: actor.org.id, webhookId, search, limit, offset: pageOffset({ page, limit }) });
      const json = await logRowsJson(context, actor.org.id, rows);
      if (format === 'csv') return sendCsv(reply, 'webhook_process_logs.csv', WEBHOOK_LOG_CSV_COLUMNS, json);
      return json;
    },
  );

  app.get('/webhook_process_logs/:id/', { schema: { tags, summary: 'One delivery attempt', params, response: { 200: webhookLogJsonSchema } } }, async (request) => {
    const actor = adminOf(request);
    const [row] = await logRowsJson(context, actor.org.id, [await findLogRow(context, actor.org.id, request.params.id)]);
    return row!;
  });

  app.get(
    '/webhook_queue_models/',
    {
      schema: {
        tags,
        summary: 'Deliveries still waiting to be sent, oldest first (format=csv)',
        querystring: z.object({ ...pagingQuery, format: formatParam }),
        response: { 200: z.array(webhookQueueModelJsonSchema) },
      },
    },
    async (request, reply) => {
      const actor = adminOf(request);
      const { page, limit, format } = request.query;
      const json = await readQueue(context, actor.org.id, { limit, offset: pageOffset({ page, limit }) });
      if (format === 'csv') return sendCsv(reply, 'webhook_queue_models.csv', WEBHOOK_QUEUE_CSV_COLUMNS, json);
      return json;
    },
  );

  app.get('/webhook_queue_models/:id/', { schema: { tags, summary: 'One delivery still waiting', params, response: { 200: webhookQueueModelJsonSchema } } }, async (request) => {
    const actor = adminOf(request);
    const entry = await readQueueEntry(context, actor.org.id, request.params.id);
    if (!entry) throw notFound();
    return entry;
  });

  app.post(
    '/webhooks/:id/test/',
    {
      schema: {
        tags: extensionTags,
        summary: 'Send a sample payload to the webhook’s endpoint now',
        description: extensionDescription(
          'POSTs the org’s most recently changed project, cut to the webhook’s payload fields, as an UPDATE with event_id 0 and the header X-SolarDesk-Test: 1, with the webhook’s headers and under the same private-address rule as deliveries. Answers how the endpoint answered and how long it took; not logged, not retried.',
        ),
        params,
        response: { 200: webhookTestResultJsonSchema },
      },
    },
    async (request) => {
      const actor = adminOf(request);
      return testDelivery(context, actor.org.id, await findWebhook(actor.org.id, request.params.id));
    },
  );

  app.get(
    '/webhook_process_logs/:id/payload/',
    {
      schema: {
        tags: extensionTags,
        summary: 'What one logged attempt sent, and the endpoint’s answer status',
        description: extensionDescription('The exact JSON body POSTed; null once it is no longer kept.'),
        params,
        response: { 200: webhookLogPayloadJsonSchema },
      },
    },
    async (request) => logPayload(context, adminOf(request).org.id, request.params.id),
  );

  app.post(
    '/webhook_process_logs/:id/redeliver/',
    {
      schema: {
        tags: extensionTags,
        summary: 'Send a logged attempt’s payload again',
        description: extensionDescription(
          'Queues the same body (same event_id: it is the same change) at the end of the webhook’s queue; the new attempts show in the log. A disabled webhook holds it until enabled.',
        ),
        params,
        response: { 202: webhookRedeliverJsonSchema },
      },
    },
    async (request, reply) => reply.code(202).send(await redeliver(context, adminOf(request).org.id, request.params.id)),
  );
}
