// PUT /api/orgs/<org>/bulk/<entity_type>/ (hosted-docs-facts.md section 11,
// "Sharing entities to a connected org (bulk)"): shares or unshares org entities
// (pricing schemes, actions...) with connected orgs. The settings are rows of
// entity_shares (migration 0015). SolarDesk stores most of these entities nowhere
// yet, so their ids are kept as sent (positive integers); the workflow stage
// actions are checked against the org's own (entity-shares.ts).
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { notFound, validationError, type FieldErrors } from '../http/errors.ts';
import { nowIso } from '../clock.ts';
import { requireOrgAdmin } from '../connected-orgs/connected-orgs.ts';
import { isConnectionActive } from '../connected-orgs/connection-state.ts';
import { entitySharedWith, foreignActionIds } from './entity-shares.ts';
import { BULK_ENTITY_TYPES, bulkShareJsonSchema, bulkShareSchema, type BulkEntityType } from '../../../shared/schemas/sharing.ts';

const tags = ['connected orgs'];

export function registerBulkShareRoutes(app: TypedApp, context: EngineContext): void {
  app.put(
    '/bulk/:entity_type/',
    {
      schema: {
        tags,
        summary: `Share or unshare entities of one type with connected organisations (admins). Types: ${BULK_ENTITY_TYPES.join(', ')}`,
        params: z.object({ org_id: z.string(), entity_type: z.string() }),
        body: bulkShareSchema,
        response: { 200: bulkShareJsonSchema },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const entityType = request.params.entity_type;
      if (!(BULK_ENTITY_TYPES as readonly string[]).includes(entityType)) {
        throw notFound(`Unknown entity type "${entityType}". Known types: ${BULK_ENTITY_TYPES.join(', ')}.`);
      }
      requireOrgAdmin(actor);
      const type = entityType as BulkEntityType;
      const { resource, ids, share_with_ids: shareWith = [], unshare_with_ids: unshareWith = [] } = request.body;
      const errors: FieldErrors = {};
      if (resource !== type) errors.resource = [`"resource" must name the same entity type as the path: "${type}".`];
      const entityIds = [...new Set(ids)];
      if (entityIds.length === 0) errors.ids = ['Name at least one entity id.'];
      else if (entityIds.some((id) => id < 1)) errors.ids = ['Every id must be a positive integer.'];
      else if (type === 'actions') {
        const foreign = await foreignActionIds(context.db, actor.org.id, entityIds);
        if (foreign.length > 0) errors.ids = [`No workflow action of this organisation has the id ${foreign.join(', ')}.`];
      }
      if (shareWith.length === 0 && unshareWith.length === 0) errors.non_field_errors = ['Send share_with_ids, unshare_with_ids or both.'];
      const both = shareWith.filter((id) => unshareWith.includes(id));
      if (both.length > 0) errors.unshare_with_ids = [`Organisation ${both.join(', ')} is in both share_with_ids and unshare_with_ids.`];
      const notConnected: number[] = [];
      for (const orgId of new Set(shareWith)) {
        if (orgId === actor.org.id || !(await isConnectionActive(context.db, actor.org.id, orgId))) notConnected.push(orgId);
      }
      if (notConnected.length > 0) {
        errors.share_with_ids = [
          `Organisation ${notConnected.join(', ')} has no active connection with this one. Connect first (connected_orgs/), and make sure both sides are enabled.`,
        ];
      }
      if (unshareWith.some((id) => id < 1)) errors.unshare_with_ids = ['Every id must be a positive integer.'];
      if (Object.keys(errors).length > 0) throw validationError(errors);

      const now = nowIso(context.clock);
      await context.db.transaction().execute(async (trx) => {
        if (unshareWith.length > 0) {
          await trx
            .deleteFrom('entity_shares')
            .where('org_id', '=', actor.org.id)
            .where('entity_type', '=', type)
            .where('entity_id', 'in', entityIds)
            .where('shared_org_id', 'in', [...new Set(unshareWith)])
            .execute();
        }
        const rows = entityIds.flatMap((entityId) =>
          [...new Set(shareWith)].map((sharedOrgId) => ({ org_id: actor.org.id, entity_type: type, entity_id: entityId, shared_org_id: sharedOrgId, created_date: now })),
        );
        if (rows.length > 0) {
          await trx
            .insertInto('entity_shares')
            .values(rows)
            .onConflict((conflict) => conflict.columns(['org_id', 'entity_type', 'entity_id', 'shared_org_id']).doNothing())
            .execute();
        }
      });
      const shared = await entitySharedWith(context.db, actor.org.id, type, entityIds);
      return { resource: type, ids: entityIds, shared_with: Object.fromEntries([...shared].map(([id, orgs]) => [String(id), orgs])) };
    },
  );
}
