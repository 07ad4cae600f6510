// The service's URL shapes. Records refer to each other by URL (service.md 2.1), so
// the engine builds them and parses them back, and the renderer and sync client
// read them; all use these functions.

export const apiPaths = {
  org: (orgId: number) => `/api/orgs/${orgId}/`,
  projects: (orgId: number) => `/api/orgs/${orgId}/projects/`,
  project: (orgId: number, id: number) => `/api/orgs/${orgId}/projects/${id}/`,
  contacts: (orgId: number) => `/api/orgs/${orgId}/contacts/`,
  contact: (orgId: number, id: number) => `/api/orgs/${orgId}/contacts/${id}/`,
  roles: (orgId: number) => `/api/orgs/${orgId}/roles/`,
  role: (orgId: number, id: number) => `/api/orgs/${orgId}/roles/${id}/`,
  workflows: (orgId: number) => `/api/orgs/${orgId}/workflows/`,
  user: (userId: number) => `/auth/users/${userId}/`,
  country: (iso2: string) => `/api/countries/${iso2}/`,
  roofType: (id: number) => `/api/roof_types/${id}/`,
} as const;

/** The kinds of org-scoped record a reference URL can point at, by their path segment. */
export type OrgRecordKind = 'projects' | 'contacts' | 'roles' | 'private_files' | 'file_tags' | 'events';

const ORG_RECORD_PATH = /^\/api\/orgs\/(\d{1,15})\/([a-z_]+)\/(\d{1,15})\/?$/;

/**
 * Reads a reference to an org-scoped record: an absolute URL on any host, a
 * relative path, or a bare id (compatibility.md: the project filter takes all
 * three). Returns null when it is none of these or points at another kind.
 */
export function parseOrgReference(
  reference: unknown,
  kind: OrgRecordKind,
): { orgId: number | null; id: number } | null {
  if (typeof reference === 'number') return Number.isSafeInteger(reference) && reference > 0 ? { orgId: null, id: reference } : null;
  if (typeof reference !== 'string') return null;
  const trimmed = reference.trim();
  if (/^\d{1,15}$/.test(trimmed)) return { orgId: null, id: Number(trimmed) };
  let path = trimmed;
  if (/^https?:\/\//i.test(trimmed)) {
    try {
      path = new URL(trimmed).pathname;
    } catch {
      return null;
    }
  }
  const match = ORG_RECORD_PATH.exec(path);
  if (!match || match[2] !== kind) return null;
  return { orgId: Number(match[1]), id: Number(match[3]) };
}

/** Reads `/api/roof_types/<id>/` (absolute or relative) or a bare id. */
export function parseRoofTypeReference(reference: unknown): number | null {
  if (typeof reference === 'number') return Number.isSafeInteger(reference) ? reference : null;
  if (typeof reference !== 'string') return null;
  const match = /(?:^|\/api\/roof_types\/)(\d{1,9})\/?$/.exec(reference.trim());
  return match ? Number(match[1]) : null;
}
