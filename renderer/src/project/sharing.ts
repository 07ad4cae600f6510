// A project's sharing with connected organisations, as the views show it
// (hosted-docs-facts.md section 11): `shared_with` lists [{org_id, permission,
// is_shared}], `org_id` an id or an org URL, and an entry with `is_shared: false`
// is hidden again. A project whose `org_id` is not the signed-in org belongs to a
// partner that shared it here: the views show it read-only.
import { parseOrgIdReference } from '../../../shared/api-paths.ts';

export interface ShareEntry {
  orgId: number;
  /** URL of a permissions role (role_type 1), or null for the connection's default. */
  permission: string | null;
  isShared: boolean;
}

/** Every readable entry of `shared_with`, hidden ones included (they are sent back as they are). */
export function shareEntries(sharedWith: unknown): ShareEntry[] {
  if (!Array.isArray(sharedWith)) return [];
  const entries: ShareEntry[] = [];
  for (const item of sharedWith as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const record = item as { org_id?: unknown; permission?: unknown; is_shared?: unknown };
    const orgId = parseOrgIdReference(record.org_id);
    if (orgId === null) continue;
    entries.push({ orgId, permission: typeof record.permission === 'string' && record.permission !== '' ? record.permission : null, isShared: record.is_shared !== false });
  }
  return entries;
}

/** The orgs the project is shown to now. */
export function sharedOrgIds(sharedWith: unknown): number[] {
  return shareEntries(sharedWith)
    .filter((entry) => entry.isShared)
    .map((entry) => entry.orgId);
}

/** True when the project belongs to another org (a partner shared it with the signed-in org). */
export function isPartnerProject(project: { org_id: number }, signedInOrgId: number | null | undefined): boolean {
  return signedInOrgId !== null && signedInOrgId !== undefined && project.org_id !== signedInOrgId;
}

/** "Shared with A and B" names, from the partners' names by org id; an org not known by name reads "organisation <id>". */
export function orgNamesOf(orgIds: readonly number[], names: ReadonlyMap<number, string>): string {
  const list = orgIds.map((id) => names.get(id) ?? `organisation ${id}`);
  if (list.length <= 1) return list.join('');
  return `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
}

/**
 * The `shared_with` to send so `orgId` is shown the project (with `permission`) or
 * hidden again: the other entries go back as they were.
 */
export function withShare(sharedWith: unknown, orgId: number, change: { isShared: boolean; permission?: string | null }): Record<string, unknown>[] {
  const entries = shareEntries(sharedWith);
  const existing = entries.find((entry) => entry.orgId === orgId);
  const next: ShareEntry = { orgId, permission: change.permission === undefined ? (existing?.permission ?? null) : change.permission, isShared: change.isShared };
  const merged = existing ? entries.map((entry) => (entry.orgId === orgId ? next : entry)) : [...entries, next];
  return merged.map((entry) => ({ org_id: entry.orgId, permission: entry.permission, is_shared: entry.isShared }));
}
