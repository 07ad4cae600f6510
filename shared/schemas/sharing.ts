// Sharing with connected orgs (hosted-docs-facts.md section 11, docs/access.md
// "Teams"): a project's `shared_with` entries, and the bulk entity sharing route.
import { z } from 'zod';
import { booleanField, integerField } from './coercing-fields.ts';

/** One entry of a project's `shared_with`, as written (PUT or PATCH of the project). */
export const sharedWithEntrySchema = z.object(
  {
    org_id: integerField().describe('the connected organisation'),
    permission: z
      .union([z.string(), z.null()], { error: 'Send the URL of a permissions role (/api/orgs/<org>/permissions_role/<id>/), or null.' })
      .optional()
      .describe("URL of a permissions role of the owning org; default: the connection's `permission`"),
    is_shared: booleanField().optional().describe('default true; false hides the project from the org again'),
  },
  { error: 'Each entry must be an object {org_id, permission, is_shared}.' },
);
export const sharedWithSchema = z.array(sharedWithEntrySchema, { error: 'Expected a list of items.' });
export type SharedWithEntry = z.output<typeof sharedWithEntrySchema>;

/** One entry of a project's `shared_with`, as answered. */
export interface SharedWithJson {
  org_id: number;
  permission: string | null;
  is_shared: boolean;
}

/** The entity types the bulk route shares (hosted docs: "Sharing entities to a connected org (bulk)"). */
export const BULK_ENTITY_TYPES = [
  'pricing_schemes',
  'costings',
  'adders',
  'payment_options',
  'actions',
  'component_module_activations',
  'component_inverter_activations',
  'component_battery_activations',
  'component_other_activations',
  'project_configurations',
  'battery_schemes',
  'proposal_templates',
  'contracts',
  'testimonials',
  'incentives',
  'document_templates',
] as const;
export type BulkEntityType = (typeof BULK_ENTITY_TYPES)[number];

const idList = (what: string) => z.array(integerField(), { error: `Expected a list of ${what}.` });

export const bulkShareSchema = z.object({
  share_with_ids: idList('connected organisation ids').optional().describe('connected organisations to share the entities with'),
  unshare_with_ids: idList('connected organisation ids').optional().describe('organisations to stop sharing them with'),
  resource: z.string({ error: 'This field is required: the entity type, as in the path.' }).describe('the entity type, the same as in the path'),
  ids: idList('entity ids').describe('ids of entities of this organisation'),
});

export const bulkShareJsonSchema = z.object({
  resource: z.string(),
  ids: z.array(z.number().int()),
  shared_with: z.record(z.string(), z.array(z.number().int())).describe('for each entity id: the organisations it is shared with now'),
});
