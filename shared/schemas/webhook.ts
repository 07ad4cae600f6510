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
});
export type WebhookLogJson = z.infer<typeof webhookLogJsonSchema>;
