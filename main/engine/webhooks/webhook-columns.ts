// A webhook's one mapper from its settings to its columns (issue 26): the engine's
// writes (webhook-service.ts) and the replica's copies of the remote's webhooks
// (main/sync/models/webhook.ts) both store through webhookColumnsOf. The rules of
// a write (defaults on create, blank is null on update) are the service's, applied
// before; the way back, row to JSON, is serializeWebhook (webhook-settings.ts).
import type { WebhookRow } from '../store/tables.ts';
import { toFlag } from '../store/portable-columns.ts';

export type WebhookColumns = Partial<Pick<WebhookRow, 'endpoint' | 'enabled' | 'debug' | 'trigger_fields' | 'payload_fields' | 'headers'>>;

/** A webhook's settings as the API names them, once checked. */
export interface WebhookSettings {
  endpoint: string;
  enabled: boolean;
  debug: boolean;
  /** Field paths; null is "not set". */
  trigger_fields: readonly string[] | null;
  payload_fields: readonly string[] | null;
  /** A JSON-encoded object of header names to values, kept as sent. */
  headers: string | null;
}

/** The columns of the settings `settings` holds; one left out (undefined) sets nothing. Lists are stored as JSON text. */
export function webhookColumnsOf(settings: WebhookSettings): Required<WebhookColumns>;
export function webhookColumnsOf(settings: Partial<WebhookSettings>): WebhookColumns;
export function webhookColumnsOf(settings: Partial<WebhookSettings>): WebhookColumns {
  const columns: WebhookColumns = {};
  const listColumn = (list: readonly string[] | null) => (list === null ? null : JSON.stringify(list));
  if (settings.endpoint !== undefined) columns.endpoint = settings.endpoint;
  if (settings.enabled !== undefined) columns.enabled = toFlag(settings.enabled);
  if (settings.debug !== undefined) columns.debug = toFlag(settings.debug);
  if (settings.trigger_fields !== undefined) columns.trigger_fields = listColumn(settings.trigger_fields);
  if (settings.payload_fields !== undefined) columns.payload_fields = listColumn(settings.payload_fields);
  if (settings.headers !== undefined) columns.headers = settings.headers;
  return columns;
}
