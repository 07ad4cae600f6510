// Turns a tracked write's changes into webhook deliveries, in the write's own
// transaction: a change that committed always has its deliveries queued, so a
// crash right after answering still delivers it (at least once) after restart.
import type { Transaction } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import { nowIso } from '../clock.ts';
import type { ChangeCapture, RecordChange, TrackedModel } from '../changes/tracked-write.ts';
import {
  WEBHOOK_MODELS,
  WEBHOOK_MODEL_NAMES,
  cutToPaths,
  modelIsListed,
  pathChanged,
  pathsForModel,
  type WebhookModel,
} from '../../../shared/webhook-fields.ts';
import { parseFieldList } from './webhook-settings.ts';

export type WebhookEvent = 'CREATE' | 'UPDATE' | 'DELETE';

export interface DeliveryBody {
  timestamp: string;
  model: string;
  model_id: number;
  identifier: string;
  event: WebhookEvent;
  event_id: number;
  fields?: Record<string, unknown>;
}

export interface ParsedWebhook {
  id: number;
  triggers: string[] | null;
  payload: string[] | null;
}

/** Whether a webhook's trigger_fields fire for this change (service.md 6 rule 1). */
export function triggers(webhook: Pick<ParsedWebhook, 'triggers'>, change: RecordChange, event: WebhookEvent): boolean {
  const model = change.model as WebhookModel;
  if (!modelIsListed(webhook.triggers, model)) return false;
  if (event !== 'UPDATE') return true;
  const before = change.before as Record<string, unknown>;
  const after = change.after as Record<string, unknown>;
  return pathsForModel(webhook.triggers, model).some((path) => pathChanged(before, after, path));
}

export function eventOf(change: RecordChange): WebhookEvent {
  if (change.before === null) return 'CREATE';
  if (change.after === null) return 'DELETE';
  return 'UPDATE';
}

/** Read once per write, as they were when it began: its change capture asks which fields they read, then which fire. */
const enabledInWrite = new WeakMap<Transaction<Database>, Promise<ParsedWebhook[]>>();

function enabledWebhooks(trx: Transaction<Database>, orgId: number): Promise<ParsedWebhook[]> {
  let enabled = enabledInWrite.get(trx);
  if (!enabled) {
    enabled = trx
      .selectFrom('webhooks')
      .select(['id', 'trigger_fields', 'payload_fields'])
      .where('org_id', '=', orgId)
      .where('enabled', '=', 1)
      .orderBy('id')
      .execute()
      .then((rows) => rows.map((row) => ({ id: row.id, triggers: parseFieldList(row.trigger_fields), payload: parseFieldList(row.payload_fields) })));
    enabledInWrite.set(trx, enabled);
  }
  return enabled;
}

/**
 * The top-level fields of a model's record these webhooks compare or send: none
 * when no webhook fires for the model, every one for `model.*` or a model sent
 * whole (absent from payload_fields).
 */
export function fieldsReadBy(webhooks: readonly ParsedWebhook[], model: TrackedModel): ReadonlySet<string> | 'all' {
  const fields = new Set<string>();
  if (!(WEBHOOK_MODELS as readonly string[]).includes(model)) return fields;
  const webhookModel = model as WebhookModel;
  for (const webhook of webhooks) {
    if (!modelIsListed(webhook.triggers, webhookModel)) continue;
    if (!modelIsListed(webhook.payload, webhookModel)) return 'all';
    for (const [head] of [...pathsForModel(webhook.triggers, webhookModel), ...pathsForModel(webhook.payload, webhookModel)]) {
      if (head === undefined || head === '*') return 'all';
      fields.add(head);
    }
  }
  return fields;
}

export function createWebhookCapture(context: EngineContext, onQueued: () => void): ChangeCapture {
  return {
    phase: 'deliver',
    async fieldsRead(trx, orgId, model) {
      return fieldsReadBy(await enabledWebhooks(trx, orgId), model);
    },
    async capture(trx: Transaction<Database>, orgId: number, changes: RecordChange[]) {
      const webhooks = await enabledWebhooks(trx, orgId);
      if (webhooks.length === 0) return;
      let queued = 0;
      for (const change of changes) {
        if (change.before === null && change.after === null) continue;
        const event = eventOf(change);
        const matching = webhooks.filter((webhook) => triggers(webhook, change, event));
        if (matching.length === 0) continue;
        queued += await queueDeliveries(trx, context, orgId, change, event, matching);
      }
      if (queued > 0) onQueued();
    },
  };
}

async function queueDeliveries(
  trx: Transaction<Database>,
  context: EngineContext,
  orgId: number,
  change: RecordChange,
  event: WebhookEvent,
  webhooks: ParsedWebhook[],
): Promise<number> {
  const now = context.clock.now();
  const occurredAt = now.toISOString();
  const { id: eventId } = await trx
    .insertInto('webhook_changes')
    .values({ org_id: orgId, model: change.model, model_id: change.id, event, occurred_at: occurredAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  const record = (change.after ?? change.before) as Record<string, unknown>;
  const model = change.model as WebhookModel;
  const rows = webhooks.map((webhook) => {
    const body: DeliveryBody = {
      timestamp: String(Math.floor(now.getTime() / 1000)),
      model: WEBHOOK_MODEL_NAMES[model],
      model_id: change.id,
      identifier: typeof record.identifier === 'string' ? record.identifier : '',
      event,
      event_id: eventId,
      ...(event === 'DELETE' ? {} : { fields: cutToPaths(change.after as Record<string, unknown>, webhook.payload, model) }),
    };
    return {
      webhook_id: webhook.id,
      change_id: eventId,
      body: JSON.stringify(body),
      status: 'pending' as const,
      attempts: 0,
      next_attempt_at: occurredAt,
      created_date: nowIso(context.clock),
    };
  });
  await trx.insertInto('webhook_deliveries').values(rows).execute();
  return rows.length;
}
