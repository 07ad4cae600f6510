// Connected orgs, the hosted Teams feature (hosted-docs-facts.md section 4,
// docs/access.md "Teams"). Each org sees its own side of a connection: `org` is
// itself, `org_to` and `org_name` the partner. The flow: an admin asks by the
// partner's exact name (POST connected_orgs/); the partner's admin sees the request
// in connected_orgs/pending/ and accepts it (POST connected_orgs/accept_connection/
// with the pending item's `org_to_id`); either side disables (PATCH is_active) or
// removes (DELETE) its connection. The renderer imports these schemas too.
import { z } from 'zod';
import { booleanField, integerField, requiredString } from './coercing-fields.ts';

const notifyRoles = z
  .array(integerField(), { error: 'Expected a list of role ids.' })
  .describe('ids of roles of this organisation told when the partner shares a project here');
const permission = z
  .union([z.string(), z.null()], { error: 'Send the URL of a permissions role (/api/orgs/<org>/permissions_role/<id>/), or null.' })
  .describe('URL of a permissions role of this organisation (role_type 1) used by default when sharing a project to the partner, or null');

export const connectedOrgCreateSchema = z.object({
  org_name: requiredString().describe("the partner organisation's name, exactly as it is spelled"),
  notify_roles: notifyRoles.optional(),
  is_active: booleanField().optional(),
  permission: permission.optional(),
});
export type ConnectedOrgCreate = z.output<typeof connectedOrgCreateSchema>;

/** PATCH: enable or disable this side (`is_active`), and this side's settings. */
export const connectedOrgPatchSchema = z.object({
  is_active: booleanField().optional(),
  notify_roles: notifyRoles.optional(),
  permission: permission.optional(),
});
export type ConnectedOrgPatch = z.output<typeof connectedOrgPatchSchema>;

export const connectedOrgJsonSchema = z.object({
  id: z.number().int(),
  url: z.string().describe('/api/orgs/<this org>/connected_orgs/<id>/'),
  org: z.string().describe('URL of this organisation'),
  org_to: z.string().describe('URL of the partner organisation'),
  org_name: z.string().describe("the partner's name"),
  permission: z.string().nullable(),
  notify_roles: z.array(z.number().int()),
  is_active: z.boolean().describe('this organisation has the connection enabled'),
  is_other_active: z.boolean().describe('the partner has accepted'),
  is_other_enabled: z.boolean().describe("the partner's side is enabled"),
});
export type ConnectedOrgJson = z.infer<typeof connectedOrgJsonSchema>;

/**
 * A request waiting for this org's answer. `org_to_id` is the org accepting it
 * connects this org to, seen from this org's side as in its records (`org_to` is
 * always the partner): the asking org, so it equals `org_from_id`. Copied into
 * accept_connection it names which request to accept.
 */
export const pendingConnectionJsonSchema = z.object({
  item_id: z.number().int().describe("the id this org's connection record will have"),
  org_from_id: z.number().int().describe('the organisation that asked'),
  org_from_name: z.string(),
  org_to_id: z.number().int().describe('the organisation accepting connects this one to (the asking one): send it to accept_connection'),
});
export type PendingConnectionJson = z.infer<typeof pendingConnectionJsonSchema>;

export const acceptConnectionSchema = z.object({
  org_to_id: integerField().describe('org_to_id of the pending item (the asking organisation)'),
});

export const acceptConnectionJsonSchema = z.object({
  detail: z.string(),
  connected_org: connectedOrgJsonSchema,
});
