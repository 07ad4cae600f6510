// Whether two orgs may share now, and which Teams permissions role a URL names: the
// two questions sharing (sharing/project-shares.ts) asks of connections. A module of
// its own so connected-orgs.ts (which tells partners when a connection changes) and
// project-shares.ts do not import each other.
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';
import { parseOrgReference } from '../../../shared/api-paths.ts';

/** Whether the two orgs have an active connection now. */
export async function isConnectionActive(db: Kysely<Database>, orgId: number, partnerId: number): Promise<boolean> {
  const rows = await db
    .selectFrom('connected_orgs')
    .select(['org_id', 'accepted', 'is_active'])
    .where((builder) =>
      builder.or([
        builder.and([builder('org_id', '=', orgId), builder('org_to_id', '=', partnerId)]),
        builder.and([builder('org_id', '=', partnerId), builder('org_to_id', '=', orgId)]),
      ]),
    )
    .execute();
  return rows.length === 2 && rows.every((row) => row.accepted === 1 && row.is_active === 1);
}

/** The id of a permissions role of this org named by URL (or id), or an error message. */
export async function resolvePermissionRole(db: Kysely<Database>, orgId: number, reference: unknown): Promise<number | string> {
  const parsed = parseOrgReference(reference, 'permissions_role');
  if (!parsed || (parsed.orgId !== null && parsed.orgId !== orgId)) {
    return 'Send the URL of a permissions role of this organisation (/api/orgs/<org>/permissions_role/<id>/), or null.';
  }
  const role = await db.selectFrom('permissions_roles').select(['id', 'role_type']).where('org_id', '=', orgId).where('id', '=', parsed.id).executeTakeFirst();
  if (!role) return 'Invalid hyperlink - Object does not exist.';
  if (role.role_type !== 1) return 'This permissions role is an ordinary custom role (role_type 0): a connection needs a Teams role (role_type 1).';
  return role.id;
}
