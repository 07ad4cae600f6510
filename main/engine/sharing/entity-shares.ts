// Which connected orgs an org entity (a workflow stage action, a pricing scheme...)
// is shared with: rows of entity_shares (migration 0015), set by the bulk route
// (bulk-share-routes.ts) and shown as a record's `share_with_orgs`. A leaf module:
// serializers import it without importing the routes.
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { BulkEntityType } from '../../../shared/schemas/sharing.ts';

/** For each entity id: the ids of the orgs it is shared with now (what a record's share_with_orgs shows). */
export async function entitySharedWith(db: Kysely<Database>, orgId: number, entityType: BulkEntityType, ids: readonly number[]): Promise<Map<number, number[]>> {
  const shared = new Map<number, number[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return shared;
  const rows = await db
    .selectFrom('entity_shares')
    .select(['entity_id', 'shared_org_id'])
    .where('org_id', '=', orgId)
    .where('entity_type', '=', entityType)
    .where('entity_id', 'in', [...ids])
    .orderBy('entity_id')
    .orderBy('shared_org_id')
    .execute();
  for (const row of rows) shared.get(row.entity_id)?.push(row.shared_org_id);
  return shared;
}

/** The ids of `ids` that are not workflow stage actions of this org (migration 0014). */
export async function foreignActionIds(db: Kysely<Database>, orgId: number, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = await db
    .selectFrom('workflow_actions')
    .innerJoin('workflow_stages', 'workflow_stages.id', 'workflow_actions.stage_id')
    .innerJoin('workflows', 'workflows.id', 'workflow_stages.workflow_id')
    .select('workflow_actions.id')
    .where('workflows.org_id', '=', orgId)
    .where('workflow_actions.id', 'in', [...ids])
    .execute();
  const own = new Set(found.map((row) => row.id));
  return ids.filter((id) => !own.has(id));
}
