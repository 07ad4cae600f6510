// Writing webhook settings. Every write is one writeTracked() transaction, so a
// replica's outbox sends the settings to the remote that delivers them. Only an
// org's admins may write them, and the endpoint's address rules are the request
// schema's (webhook-settings.ts): both are the routes' to check. The client's
// precondition (If-Match) is read by the routes and checked here, inside the
// write's transaction.
import type { z } from 'zod';
import type { WebhookRow } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import type { SnapshotSource } from '../changes/record-snapshots.ts';
import { writeTracked } from '../changes/tracked-write.ts';
import { actorScope } from '../changes/change-feed.ts';
import { checkPrecondition, type IfMatch, nextVersion } from '../http/preconditions.ts';
import { nowIso } from '../clock.ts';
import { DEFAULT_PAYLOAD_FIELDS, DEFAULT_TRIGGER_FIELDS } from '../../../shared/webhook-fields.ts';
import { normaliseFieldList, serializeWebhook, type webhookCreateSchema, type webhookUpdateSchema } from './webhook-settings.ts';
import { type WebhookColumns, webhookColumnsOf } from './webhook-columns.ts';

export type WebhookCreate = z.infer<typeof webhookCreateSchema>;
export type WebhookUpdate = z.infer<typeof webhookUpdateSchema>;

/** What change capture compares: the webhook's API view. */
export const webhookSnapshots: SnapshotSource = {
  model: 'webhook',
  async read(trx, context, orgId, id) {
    const row = await trx.selectFrom('webhooks').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
    return row ? serializeWebhook(context, row) : null;
  },
  projectOf: () => null,
};

export async function createWebhook(context: EngineContext, actor: Actor, input: WebhookCreate): Promise<WebhookRow> {
  const now = nowIso(context.clock);
  // service.md 6 rule 4: blank lists on create take the defaults.
  const triggers = normaliseFieldList(input.trigger_fields ?? null) ?? [...DEFAULT_TRIGGER_FIELDS];
  const payload = normaliseFieldList(input.payload_fields ?? null) ?? [...DEFAULT_PAYLOAD_FIELDS];
  return writeTracked(context, actorScope(actor), async (trx, track) => {
    const created = await trx
      .insertInto('webhooks')
      .values({
        org_id: actor.org.id,
        ...webhookColumnsOf({ endpoint: input.endpoint, enabled: input.enabled, debug: input.debug, trigger_fields: triggers, payload_fields: payload, headers: input.headers ?? null }),
        created_date: now,
        modified_date: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await track.webhook(created.id, { created: true });
    return created;
  });
}

/** The stored columns of the fields `input` carries. */
function storedChanges(input: WebhookUpdate): WebhookColumns {
  return webhookColumnsOf({
    endpoint: input.endpoint,
    enabled: input.enabled,
    debug: input.debug,
    // service.md 6 rule 4: on an existing webhook, blank or null is stored as null.
    trigger_fields: input.trigger_fields === undefined ? undefined : normaliseFieldList(input.trigger_fields),
    payload_fields: input.payload_fields === undefined ? undefined : normaliseFieldList(input.payload_fields),
    headers: input.headers === '' ? null : input.headers,
  });
}

/** Sets the fields `input` carries; `ifMatch`: the client's precondition. */
export async function updateWebhook(context: EngineContext, actor: Actor, webhook: WebhookRow, input: WebhookUpdate, ifMatch: IfMatch | null): Promise<WebhookRow> {
  const changes = storedChanges(input);
  const updated = await writeTracked(context, actorScope(actor), async (trx, track) => {
    const version = await checkPrecondition(trx, 'webhooks', webhook.id, ifMatch);
    await track.webhook(webhook.id);
    return trx
      .updateTable('webhooks')
      .set({ ...changes, modified_date: nextVersion(context.clock, version) })
      .where('id', '=', webhook.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  context.webhookWorker?.wake(); // an enabled webhook may have deliveries waiting
  return updated;
}

/** Deletes the webhook; its pending deliveries go with it (the table's cascade). */
export async function deleteWebhook(context: EngineContext, actor: Actor, webhook: WebhookRow): Promise<void> {
  await writeTracked(context, actorScope(actor), async (trx, track) => {
    await track.webhook(webhook.id);
    await trx.deleteFrom('webhooks').where('id', '=', webhook.id).execute();
  });
}
