// Webhook settings: the agent pushes them and pulls them; the remote delivers (a
// replica queues no deliveries).
import { sameJson } from '../../../shared/webhook-fields.ts';
import { MODEL_PATHS, type RecordView } from '../sync-models.ts';
import type { RemoteWebhook } from '../remote-records.ts';
import { ownOrgVerdict } from '../record-orgs.ts';
import { EPOCH } from '../replica-rows.ts';
import { DEFAULT_QUOTA, type ReplicaWrite, type SyncModel, everyField, valueAsTyped, viewFieldsBody } from './sync-model.ts';
import { type WebhookSettings, webhookColumnsOf } from '../../engine/webhooks/webhook-columns.ts';
import { allButId } from '../upsert-set.ts';

const WEBHOOK_FIELDS = ['endpoint', 'enabled', 'debug', 'trigger_fields', 'payload_fields', 'headers'] as const;

const webhookView = (json: Record<string, unknown>): RecordView => Object.fromEntries(WEBHOOK_FIELDS.map((field) => [field, json[field] ?? null]));

/** Every setting of a remote webhook (or a view of one), as the engine's mapper takes them. */
function settingsOf(json: Record<string, unknown>): WebhookSettings {
  const list = (value: unknown) => (Array.isArray(value) ? (value as string[]) : null);
  return {
    endpoint: String(json.endpoint ?? ''),
    enabled: Boolean(json.enabled),
    debug: Boolean(json.debug),
    trigger_fields: list(json.trigger_fields),
    payload_fields: list(json.payload_fields),
    headers: typeof json.headers === 'string' ? json.headers : null,
  };
}

/** Only the settings a view names: a settled conflict or local values sets those alone. */
const namedSettings = (view: RecordView): Partial<WebhookSettings> =>
  Object.fromEntries(Object.entries(settingsOf(view)).filter(([field]) => Object.hasOwn(view, field)));

async function upsertWebhook({ trx, sync, keep }: ReplicaWrite, webhook: RemoteWebhook): Promise<void> {
  const row = {
    id: webhook.id,
    org_id: sync.orgId,
    ...webhookColumnsOf(settingsOf({ ...webhook, ...keep })),
    created_date: webhook.created_date ?? EPOCH,
    modified_date: webhook.modified_date ?? EPOCH,
  };
  await trx.insertInto('webhooks').values(row).onConflict((conflict) => conflict.column('id').doUpdateSet(allButId(row))).execute();
}

export const webhookModel: SyncModel = {
  model: 'webhook',
  path: MODEL_PATHS.webhook,
  quota: DEFAULT_QUOTA,
  view: webhookView,
  pushableFields: everyField,
  updateBody: async (_sync, json, fields) => viewFieldsBody(webhookView(json), fields),
  createBody: async (_sync, _group, json) => webhookView(json),
  async findLostCreate({ view, list }) {
    if (!view) return null;
    const webhooks = await list({ limit: 1000 });
    return webhooks.find((webhook) => sameJson(webhookView(webhook), view)) ?? null;
  },
  checkValue: valueAsTyped,
  async applyView(trx, id, view) {
    await trx.updateTable('webhooks').set(webhookColumnsOf(namedSettings(view))).where('id', '=', id).execute();
  },
  orgVerdict: async (sync, record) => ownOrgVerdict(sync, record),
  store: (write, record) => upsertWebhook(write, record as RemoteWebhook),
  async remove(trx, id) {
    await trx.deleteFrom('webhooks').where('id', '=', id).execute();
  },
};
