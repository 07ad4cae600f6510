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
  privateFiles: (orgId: number) => `/api/orgs/${orgId}/private_files/`,
  privateFile: (orgId: number, id: number) => `/api/orgs/${orgId}/private_files/${id}/`,
  fileUpload: (orgId: number, uploadId: string) => `/api/orgs/${orgId}/private_files/uploads/${uploadId}/`,
  fileTags: (orgId: number) => `/api/orgs/${orgId}/file_tags/`,
  fileTag: (orgId: number, id: number) => `/api/orgs/${orgId}/file_tags/${id}/`,
  connectedOrgs: (orgId: number) => `/api/orgs/${orgId}/connected_orgs/`,
  connectedOrg: (orgId: number, id: number) => `/api/orgs/${orgId}/connected_orgs/${id}/`,
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
  const match = ORG_RECORD_PATH.exec(pathOf(trimmed) ?? '');
  if (!match || match[2] !== kind) return null;
  return { orgId: Number(match[1]), id: Number(match[3]) };
}

/** The path of an absolute URL on any host, or the text itself (a relative path); null for a broken URL. */
function pathOf(reference: string): string | null {
  if (!/^https?:\/\//i.test(reference)) return reference;
  try {
    return new URL(reference).pathname;
  } catch {
    return null;
  }
}

/**
 * A list of references to records of one kind in the org `orgId` -> their ids,
 * without repeats; null when any is malformed or names another org's record.
 */
export function parseOrgReferenceIds(references: readonly unknown[], kind: OrgRecordKind, orgId: number): number[] | null {
  const ids = new Set<number>();
  for (const reference of references) {
    const parsed = parseOrgReference(reference, kind);
    if (!parsed || (parsed.orgId !== null && parsed.orgId !== orgId)) return null;
    ids.add(parsed.id);
  }
  return [...ids];
}

/** Reads an org reference: its id, or `/api/orgs/<id>/` as an absolute URL or a path. */
export function parseOrgIdReference(reference: unknown): number | null {
  if (typeof reference === 'number') return Number.isSafeInteger(reference) && reference > 0 ? reference : null;
  if (typeof reference !== 'string') return null;
  const trimmed = reference.trim();
  if (/^\d{1,15}$/.test(trimmed)) return Number(trimmed);
  const match = /^\/api\/orgs\/(\d{1,15})\/?$/.exec(pathOf(trimmed) ?? '');
  return match ? Number(match[1]) : null;
}

/** Reads `/api/roof_types/<id>/` (absolute or relative) or a bare id. */
export function parseRoofTypeReference(reference: unknown): number | null {
  if (typeof reference === 'number') return Number.isSafeInteger(reference) ? reference : null;
  if (typeof reference !== 'string') return null;
  const match = /(?:^|\/api\/roof_types\/)(\d{1,9})\/?$/.exec(reference.trim());
  return match ? Number(match[1]) : null;
}
