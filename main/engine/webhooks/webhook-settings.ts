// Webhook settings: validation of what a client writes (service.md 2.3, 4.3, 6)
// and the record's JSON.
import { z } from 'zod';
import type { WebhookRow } from '../store/tables.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { booleanField, requiredString } from '../../../shared/schemas/coercing-fields.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { WebhookJson } from '../../../shared/schemas/webhook.ts';
import { webhookEndpointProblem, webhookHeaderProblem } from '../../../shared/webhook-fields.ts';

export const endpointField = () =>
  requiredString().superRefine((endpoint, context) => {
    const problem = webhookEndpointProblem(endpoint);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

/**
 * trigger_fields / payload_fields: a list of path strings; blank ("" or []) and null
 * mean "not set". ANY string is a path (compatibility.md "Webhooks"): a real
 * integration sends `id`, `event_type_id`, `customer.email`, `project.updated_at`
 * and stops on a 400, so nothing here refuses a path. A path SolarDesk does not know
 * is stored and returned as sent; it never fires and adds nothing to a payload,
 * since delivery matches paths by model and field (shared/webhook-fields.ts).
 */
const fieldListField = () =>
  z.union([z.array(z.string(), { error: 'Expected a list of field paths.' }), z.literal(''), z.null()], {
    error: 'Expected a list of field paths, or null.',
  });

/** `headers` is a JSON-encoded object of header name to string value (compatibility.md). */
const headersField = () =>
  z.union([z.string(), z.null()], { error: 'Expected a JSON-encoded object of header names to values, as a string.' }).superRefine((text, context) => {
    if (text === null || text.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      context.addIssue({ code: 'custom', message: 'Not valid JSON. Send a JSON-encoded object such as "{\\"X-Api-Key\\": \\"abc\\"}".' });
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      context.addIssue({ code: 'custom', message: 'Must encode a JSON object of header names to values.' });
      return;
    }
    for (const [name, value] of Object.entries(parsed)) {
      const problem = webhookHeaderProblem(name, value);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }
  });

export const webhookCreateSchema = z.object({
  endpoint: endpointField(),
  enabled: booleanField(),
  debug: booleanField(),
  trigger_fields: fieldListField().optional(),
  payload_fields: fieldListField().optional(),
  headers: headersField().optional(),
});

export const webhookUpdateSchema = z.object({
  endpoint: endpointField().optional(),
  enabled: booleanField().optional(),
  debug: booleanField().optional(),
  trigger_fields: fieldListField().optional(),
  payload_fields: fieldListField().optional(),
  headers: headersField().optional(),
});

/** A blank list ("" or []) is "not set"; any other list is kept as sent (compatibility.md "Webhooks"). */
export function normaliseFieldList(value: string[] | '' | null): string[] | null {
  if (value === null || value === '' || value.length === 0) return null;
  return value;
}

export function parseFieldList(stored: string | null): string[] | null {
  return stored === null ? null : (JSON.parse(stored) as string[]);
}

export function parseHeaders(stored: string | null): Record<string, string> {
  if (!stored || stored.trim() === '') return {};
  return JSON.parse(stored) as Record<string, string>;
}

export function serializeWebhook(context: EngineContext, webhook: WebhookRow): WebhookJson {
  return {
    id: webhook.id,
    url: absoluteUrl(context, apiPaths.webhook(webhook.org_id, webhook.id)),
    org_id: webhook.org_id,
    endpoint: webhook.endpoint,
    enabled: webhook.enabled === 1,
    debug: webhook.debug === 1,
    trigger_fields: parseFieldList(webhook.trigger_fields),
    payload_fields: parseFieldList(webhook.payload_fields),
    headers: webhook.headers,
    created_date: webhook.created_date,
    modified_date: webhook.modified_date,
  };
}
