// The API view of a tracked record, as webhooks and the sync outbox see it: the
// record's detail JSON without the (large, plan-gated) design.
import type { Transaction } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import { loadRelations, serializeProject } from '../projects/project-serializer.ts';
import { serializeContact } from '../contacts/contacts.ts';

export type TrackedModel = 'project' | 'contact' | 'event';
export type RecordSnapshot = Record<string, unknown>;

type EventSerializer = (trx: Transaction<Database>, context: EngineContext, orgId: number, id: number) => Promise<RecordSnapshot | null>;
let serializeEventSnapshot: EventSerializer = async () => null;

/** The events module registers how an event looks (it lives with the webhooks issue's code). */
export function setEventSnapshot(serializer: EventSerializer): void {
  serializeEventSnapshot = serializer;
}

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
      delete snapshot.design;
      return snapshot;
    }
    case 'contact': {
      const row = await trx.selectFrom('contacts').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
      return row ? serializeContact(context, row) : null;
    }
    case 'event':
      return serializeEventSnapshot(trx, context, orgId, id);
  }
}
