// Webhook settings: the agent pushes them and pulls them; the remote delivers (a
// replica queues no deliveries).
import { sameJson } from '../../../shared/webhook-fields.ts';
import { MODEL_PATHS, type RecordView } from '../sync-models.ts';
import type { RemoteWebhook } from '../remote-records.ts';
import { ownOrgVerdict } from '../record-orgs.ts';
import { EPOCH } from '../replica-rows.ts';
import { DEFAULT_QUOTA, type ReplicaWrite, type SyncModel, everyField, valueAsTyped, viewFieldsBody } from './sync-model.ts';
import { toFlag } from '../../engine/store/portable-columns.ts';

const WEBHOOK_FIELDS = ['endpoint', 'enabled', 'debug', 'trigger_fields', 'payload_fields', 'headers'] as const;

const webhookView = (json: Record<string, unknown>): RecordView => Object.fromEntries(WEBHOOK_FIELDS.map((field) => [field, json[field] ?? null]));

async function upsertWebhook({ trx, sync, keep }: ReplicaWrite, webhook: RemoteWebhook): Promise<void> {
  const merged = { ...webhook, ...keep };
  const row = {
    id: webhook.id,
    org_id: sync.orgId,
    endpoint: merged.endpoint ?? '',
    enabled: toFlag(merged.enabled),
    debug: toFlag(merged.debug),
    trigger_fields: merged.trigger_fields == null ? null : JSON.stringify(merged.trigger_fields),
    payload_fields: merged.payload_fields == null ? null : JSON.stringify(merged.payload_fields),
    headers: merged.headers ?? null,
    created_date: webhook.created_date ?? EPOCH,
    modified_date: webhook.modified_date ?? EPOCH,
  };
  await trx.insertInto('webhooks').values(row).onConflict((conflict) => conflict.column('id').doUpdateSet(row)).execute();
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
    const columns = Object.fromEntries(
      Object.entries(view).map(([field, value]) => [
        field,
        field === 'trigger_fields' || field === 'payload_fields' ? (value === null ? null : JSON.stringify(value)) : typeof value === 'boolean' ? Number(value) : value,
      ]),
    );
    await trx.updateTable('webhooks').set(columns).where('id', '=', id).execute();
  },
  orgVerdict: async (sync, record) => ownOrgVerdict(sync, record),
  store: (write, record) => upsertWebhook(write, record as RemoteWebhook),
  async remove(trx, id) {
    await trx.deleteFrom('webhooks').where('id', '=', id).execute();
  },
};
