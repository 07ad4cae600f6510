// Webhooks (service.md 4.3) and their delivery log, as the API answers them.
import { z } from 'zod';

export const webhookJsonSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  org_id: z.number().int(),
  endpoint: z.string(),
  enabled: z.boolean(),
  debug: z.boolean(),
  trigger_fields: z.array(z.string()).nullable().describe('null: every field triggers'),
  payload_fields: z.array(z.string()).nullable().describe('null: the payload carries every field'),
  headers: z.string().nullable(),
  created_date: z.string(),
  modified_date: z.string(),
});
export type WebhookJson = z.infer<typeof webhookJsonSchema>;

/** What the log's and the queue's `event_queue_name` says: deliveries wait in the webhook queue (hosted docs: Webhooks Logs). */
export const WEBHOOK_EVENT_QUEUE_NAME = 'WebhookQueueModel';

/** One delivery attempt of GET /webhook_process_logs/ (hosted docs: Webhooks Logs), in the hosted field order. */
export const webhookLogJsonSchema = z.object({
  url: z.string().describe('URL of this log row'),
  org: z.string().describe('URL of the organisation'),
  webhook: z.string().describe('URL of the webhook'),
  created_date: z.string(),
  modified_date: z.string().describe('a row is written once, so it is its created_date'),
  successful: z.boolean(),
  model_name: z.string().describe('Project, Contact, Event...'),
  model_pk: z.number().int(),
  event_queue_name: z.string().describe(`"${WEBHOOK_EVENT_QUEUE_NAME}"`),
  event_id: z.number().int(),
  event_name: z.string().describe('CREATE, UPDATE or DELETE'),
  event_timestamp: z.string().describe('when the change was made, an ISO 8601 date-time'),
  notes: z.string(),
  id: z.number().int(),
  // SolarDesk's own fields (the hosted service's rows lack them):
  attempt: z.number().int().describe('SolarDesk extension: which attempt of its delivery this row is, from 1'),
  record_title: z.string().nullable().optional().describe('SolarDesk extension: the title of the record (a project’s title, a contact’s name); null once it is deleted'),
  response_status: z.number().int().nullable().optional().describe('SolarDesk extension: the HTTP status the endpoint answered; null when it did not answer'),
});
/** The columns of the log's CSV (format=csv): every field, in the JSON's order. */
export const WEBHOOK_LOG_CSV_COLUMNS = Object.keys(webhookLogJsonSchema.shape) as (keyof z.infer<typeof webhookLogJsonSchema>)[];
export type WebhookLogJson = z.infer<typeof webhookLogJsonSchema>;

/** One delivery still waiting, of GET /webhook_queue_models/ (hosted docs: Webhooks Queue). */
export const webhookQueueModelJsonSchema = z.object({
  url: z.string().describe('URL of this queue entry'),
  org: z.string().describe('URL of the organisation'),
  webhook: z.string().describe('URL of the webhook'),
  number_of_attempts: z.number().int().describe('attempts made so far; 0 before the first'),
  next_attempt_at: z.string().describe('when it is due to be sent (again), ISO 8601'),
  processing_started_at: z.string().nullable().describe('when a worker started sending it; null while it waits'),
  model_name: z.string(),
  model_pk: z.number().int(),
  event: z.string().describe('CREATE, UPDATE or DELETE'),
  foreign_identifier: z.string().describe('the record’s identifier, as in the delivery body'),
  id: z.number().int(),
});
export type WebhookQueueModelJson = z.infer<typeof webhookQueueModelJsonSchema>;
export const WEBHOOK_QUEUE_CSV_COLUMNS = Object.keys(webhookQueueModelJsonSchema.shape) as (keyof WebhookQueueModelJson)[];

/** POST /webhooks/<id>/test/ (SolarDesk extension): how a sample delivery went. */
export const webhookTestResultJsonSchema = z.object({
  successful: z.boolean(),
  status: z.number().int().nullable().describe('the HTTP status the endpoint answered; null when it did not answer'),
  duration_ms: z.number().int(),
  notes: z.string(),
  payload: z.record(z.string(), z.unknown()).describe('the body that was sent'),
});
export type WebhookTestResultJson = z.infer<typeof webhookTestResultJsonSchema>;

/** GET /webhook_process_logs/<id>/payload/ (SolarDesk extension): what one attempt sent, and the answer. */
export const webhookLogPayloadJsonSchema = z.object({
  id: z.number().int(),
  payload: z.record(z.string(), z.unknown()).nullable().describe('the body sent; null when it is no longer kept'),
  response_status: z.number().int().nullable(),
  notes: z.string(),
});
export type WebhookLogPayloadJson = z.infer<typeof webhookLogPayloadJsonSchema>;

/** POST /webhook_process_logs/<id>/redeliver/ (SolarDesk extension): the payload is queued again. */
export const webhookRedeliverJsonSchema = z.object({
  queued: z.literal(true),
  webhook_enabled: z.boolean(),
  detail: z.string(),
});
export type WebhookRedeliverJson = z.infer<typeof webhookRedeliverJsonSchema>;
