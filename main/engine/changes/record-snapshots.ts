// The API view of a tracked record, as webhooks and the sync outbox see it: the
// record's detail JSON without the (large, plan-gated) design.
import type { Transaction } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import { loadRelations, serializeProject } from '../projects/project-serializer.ts';
import { serializeContact } from '../contacts/contacts.ts';
import { serializeEvent } from '../events/events.ts';
import { serializeWebhook } from '../webhooks/webhook-settings.ts';
import { serializeFile, withTags } from '../files/file-serializer.ts';

export type TrackedModel = 'project' | 'contact' | 'event' | 'webhook' | 'private_file';
export type RecordSnapshot = Record<string, unknown>;

export async function snapshotRecord(
  trx: Transaction<Database>,
  context: EngineContext,
  orgId: number,
  model: TrackedModel,
  id: number,
): Promise<RecordSnapshot | null> {
  switch (model) {
    case 'project': {
      const row = await trx.selectFrom('projects').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
      if (!row) return null;
      const org = await trx.selectFrom('orgs').select('name').where('id', '=', orgId).executeTakeFirstOrThrow();
      const relations = await loadRelations(trx, context, orgId, [row]);
      const snapshot = serializeProject(context, { orgName: org.name, includeDesign: false }, row, relations, 'detail');
      delete (snapshot as Partial<typeof snapshot>).design;
      return snapshot;
    }
    case 'contact': {
      const row = await trx.selectFrom('contacts').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
      return row ? serializeContact(context, row) : null;
    }
    case 'private_file': {
      const row = await trx.selectFrom('private_files').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
      if (!row) return null;
      const [file] = await withTags(trx, [row]);
      // No download link: a snapshot is compared field by field, and a link is no field of the file.
      return serializeFile(context, file!, () => '');
    }
    case 'webhook': {
      const row = await trx.selectFrom('webhooks').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
      return row ? serializeWebhook(context, row) : null;
    }
    case 'event': {
      const row = await trx.selectFrom('events').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
      return row ? serializeEvent(context, row) : null;
    }
  }
}
