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

/** One delivery attempt of GET /webhook_process_logs/. */
export const webhookLogJsonSchema = z.object({
  id: z.number().int(),
  webhook: z.string().describe('URL of the webhook'),
  created_date: z.string(),
  successful: z.boolean(),
  model_name: z.string(),
  model_pk: z.number().int(),
  event_id: z.number().int(),
  event_name: z.string(),
  event_timestamp: z.string(),
  notes: z.string(),
  attempt: z.number().int(),
  // SolarDesk's own fields (the hosted service's rows lack them):
  record_title: z.string().nullable().optional().describe('SolarDesk extension: the title of the record (a project’s title, a contact’s name); null once it is deleted'),
  response_status: z.number().int().nullable().optional().describe('SolarDesk extension: the HTTP status the endpoint answered; null when it did not answer'),
});
export type WebhookLogJson = z.infer<typeof webhookLogJsonSchema>;

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
