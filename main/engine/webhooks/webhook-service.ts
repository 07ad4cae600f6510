// Writing webhook settings. Every write is one writeTracked() transaction, so a
// replica's outbox sends the settings to the remote that delivers them.
import type { SnapshotSource } from '../changes/record-snapshots.ts';
import { serializeWebhook } from './webhook-settings.ts';

/** What change capture compares: the webhook's API view. */
export const webhookSnapshots: SnapshotSource = {
  model: 'webhook',
  async read(trx, context, orgId, id) {
    const row = await trx.selectFrom('webhooks').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
    return row ? serializeWebhook(context, row) : null;
  },
  projectOf: () => null,
};
