// The service's URL shapes. Records refer to each other by URL (service.md 2.1), so
// the engine builds them and parses them back, and the renderer and sync client
// read them; all use these functions. Nothing else builds an `/api/...` path by
// hand (eslint.config.js refuses such templates elsewhere), so a shape changes here
// or nowhere.

/** The kinds of org-scoped record, by their path segment: `/api/orgs/<org>/<kind>/<id>/`. */
export type OrgRecordKind = 'projects' | 'contacts' | 'roles' | 'private_files' | 'file_tags' | 'events' | 'webhooks' | 'permissions_role' | 'document_templates';

const orgPath = (orgId: number) => `/api/orgs/${orgId}/`;
const privateFilePath = (orgId: number, id: number) => `${orgPath(orgId)}private_files/${id}/`;
const uploadPath = (orgId: number, uploadId: string) => `${orgPath(orgId)}private_files/uploads/${uploadId}/`;

export const apiPaths = {
  org: orgPath,
  /** The list of an org's records of one kind. */
  orgRecords: (orgId: number, kind: OrgRecordKind) => `${orgPath(orgId)}${kind}/`,
  /** One org-scoped record of any kind: what parseOrgReference reads back. */
  orgRecord: (orgId: number, kind: OrgRecordKind, id: number) => `${orgPath(orgId)}${kind}/${id}/`,
  projects: (orgId: number) => `${orgPath(orgId)}projects/`,
  project: (orgId: number, id: number) => `${orgPath(orgId)}projects/${id}/`,
  /** SolarDesk extension: POST ends every share link of the project (main/engine/projects/share-token.ts). */
  projectShareLinkRevoke: (orgId: number, id: number) => `${orgPath(orgId)}projects/${id}/share_link/revoke/`,
  contacts: (orgId: number) => `${orgPath(orgId)}contacts/`,
  contact: (orgId: number, id: number) => `${orgPath(orgId)}contacts/${id}/`,
  roles: (orgId: number) => `${orgPath(orgId)}roles/`,
  role: (orgId: number, id: number) => `${orgPath(orgId)}roles/${id}/`,
  workflows: (orgId: number) => `${orgPath(orgId)}workflows/`,
  workflow: (orgId: number, id: number) => `${orgPath(orgId)}workflows/${id}/`,
  /** A stage's action, as the hosted record's `url` names it (hosted-docs-facts.md 3); SolarDesk serves no route there. */
  workflowAction: (orgId: number, id: number) => `${orgPath(orgId)}actions/${id}/`,
  events: (orgId: number) => `${orgPath(orgId)}events/`,
  event: (orgId: number, id: number) => `${orgPath(orgId)}events/${id}/`,
  /** SolarDesk extension: the event as an iCalendar file (GET, text/calendar), main/engine/events/event-calendar.ts. */
  eventCalendarFile: (orgId: number, id: number) => `${orgPath(orgId)}events/${id}/ics/`,
  /** SolarDesk extension: the caller's schedule feed in the org (GET whether one exists, POST makes or replaces it, DELETE revokes it). */
  calendarFeedSettings: (orgId: number) => `${orgPath(orgId)}calendar_feed/`,
  /** SolarDesk extension: a person's schedule as iCalendar, at its secret (GET/HEAD, no Authorization header). */
  calendarFeed: (secret: string) => `/api/calendar_feeds/${encodeURIComponent(secret)}/schedule.ics`,
  webhooks: (orgId: number) => `${orgPath(orgId)}webhooks/`,
  webhook: (orgId: number, id: number) => `${orgPath(orgId)}webhooks/${id}/`,
  webhookProcessLogs: (orgId: number) => `${orgPath(orgId)}webhook_process_logs/`,
  /** One delivery attempt of the log: each row's `url`. */
  webhookProcessLog: (orgId: number, id: number) => `${orgPath(orgId)}webhook_process_logs/${id}/`,
  /** The deliveries still waiting (hosted docs: Webhooks Queue). */
  webhookQueueModels: (orgId: number) => `${orgPath(orgId)}webhook_queue_models/`,
  webhookQueueModel: (orgId: number, id: number) => `${orgPath(orgId)}webhook_queue_models/${id}/`,
  /** Sends a sample payload to the webhook's endpoint now and answers how it went (POST): SolarDesk's extension. */
  webhookTest: (orgId: number, id: number) => `${orgPath(orgId)}webhooks/${id}/test/`,
  /** What one logged attempt sent and the endpoint's answer status (GET): SolarDesk's extension. */
  webhookProcessLogPayload: (orgId: number, id: number) => `${orgPath(orgId)}webhook_process_logs/${id}/payload/`,
  /** Queues a logged attempt's payload again (POST): SolarDesk's extension. */
  webhookProcessLogRedeliver: (orgId: number, id: number) => `${orgPath(orgId)}webhook_process_logs/${id}/redeliver/`,
  /** A project's systems with their design details (GET). */
  systemDetails: (orgId: number, projectId: number) => `${orgPath(orgId)}projects/${projectId}/systems/details/`,
  /** The rendered image of one system of a project (GET, `?width=&height=`). */
  systemImage: (orgId: number, projectId: number, uuid: string) => `${orgPath(orgId)}projects/${projectId}/systems/${uuid}/image/`,
  /** The org's systems, from its projects' designs (GET, `?fieldset=list`). */
  systems: (orgId: number) => `${orgPath(orgId)}systems/`,
  /** One system of the org by the id systems/details gives (GET, `?fieldset=list`). */
  system: (orgId: number, id: number) => `${orgPath(orgId)}systems/${id}/`,
  /** Makes a document of the project (POST; `?action=save` keeps it as a private file): hosted docs "Generating Project Files". */
  generateDocument: (orgId: number, projectId: number, documentType: string) => `${orgPath(orgId)}projects/${projectId}/generate_document/${documentType}/`,
  /** The legacy spelling of generateDocument, answered the same. */
  generateDocumentPdf: (orgId: number, projectId: number, documentType: string) => `${orgPath(orgId)}projects/${projectId}/generate_document_pdf/${documentType}/`,
  /** The project's saved documents and whether each is still current (GET): SolarDesk's extension (docs/documents.md "Stale documents"). */
  generatedDocuments: (orgId: number, projectId: number) => `${orgPath(orgId)}projects/${projectId}/generated_documents/`,
  /** An org's document templates (GET list, POST): SolarDesk's extension (docs/documents.md "Templates"). */
  documentTemplates: (orgId: number) => `${orgPath(orgId)}document_templates/`,
  documentTemplate: (orgId: number, id: number) => `${orgPath(orgId)}document_templates/${id}/`,
  privateFiles: (orgId: number) => `${orgPath(orgId)}private_files/`,
  privateFile: privateFilePath,
  /** New contents for a file that keeps its id (PUT, multipart): SolarDesk's extension, not the hosted service's. */
  privateFileContents: (orgId: number, id: number) => `${privateFilePath(orgId, id)}contents/`,
  /** A file's earlier contents kept on this computer, newest first (GET): SolarDesk's extension. */
  privateFileVersions: (orgId: number, id: number) => `${privateFilePath(orgId, id)}versions/`,
  /** The bytes of one earlier version (GET, with the token). */
  privateFileVersionContents: (orgId: number, id: number, versionId: number) => `${privateFilePath(orgId, id)}versions/${versionId}/contents/`,
  /** Makes an earlier version the current contents (POST); the replaced contents become a version in turn. */
  privateFileVersionRestore: (orgId: number, id: number, versionId: number) => `${privateFilePath(orgId, id)}versions/${versionId}/restore/`,
  /** Starts a chunked upload session (POST). */
  fileUploads: (orgId: number) => `${orgPath(orgId)}private_files/uploads/`,
  fileUpload: uploadPath,
  fileUploadPart: (orgId: number, uploadId: string, part: number) => `${uploadPath(orgId, uploadId)}parts/${part}/`,
  fileUploadComplete: (orgId: number, uploadId: string) => `${uploadPath(orgId, uploadId)}complete/`,
  /** The tags an org's files may carry: the shared catalogue and the org's own tags (GET; POST makes an org tag). */
  fileTags: (orgId: number) => `${orgPath(orgId)}file_tags/`,
  /** The shared file tag catalogue (GET), hosted-docs-facts.md section 8. */
  fileTagCatalogue: () => '/api/file_tags/',
  /** One file tag, catalogue or org tag alike: what parseFileTagReference reads back. */
  fileTag: (id: number) => `/api/file_tags/${id}/`,
  /** SolarDesk's change feed: what changed after a cursor (GET `?after=&limit=`), docs/http-api.md "Change feed". */
  changes: (orgId: number) => `${orgPath(orgId)}changes/`,
  /** The change feed's push hint stream (GET, text/event-stream). */
  changeStream: (orgId: number) => `${orgPath(orgId)}changes/stream/`,
  connectedOrgs: (orgId: number) => `${orgPath(orgId)}connected_orgs/`,
  connectedOrg: (orgId: number, id: number) => `${orgPath(orgId)}connected_orgs/${id}/`,
  /** Connection requests waiting for this org's answer (GET). */
  connectedOrgsPending: (orgId: number) => `${orgPath(orgId)}connected_orgs/pending/`,
  /** Accepts a pending request (POST {org_to_id}). */
  connectedOrgsAccept: (orgId: number) => `${orgPath(orgId)}connected_orgs/accept_connection/`,
  /** Partner permissions roles (GET, POST): facts section 11. */
  permissionsRoles: (orgId: number) => `${orgPath(orgId)}permissions_role/`,
  permissionsRole: (orgId: number, id: number) => `${orgPath(orgId)}permissions_role/${id}/`,
  /** Shares or unshares org entities of one type with connected orgs (PUT). */
  bulkShare: (orgId: number, entityType: string) => `${orgPath(orgId)}bulk/${entityType}/`,
  /** A user (PATCH to make a machine user; GET). The hosted service names users by globalUser below; both resolve. */
  user: (userId: number) => `/auth/users/${userId}/`,
  /** A user as the hosted service names them (a private file's `user`, facts section 15): GET. */
  globalUser: (userId: number) => `/api/global_users/${userId}/`,
  /** The proposal data of projects (facts section 12): GET `?project_ids=1,2`. */
  userLogins: (projectIds?: readonly number[]) => (projectIds === undefined ? '/api/user_logins/' : `/api/user_logins/?project_ids=${projectIds.join(',')}`),
  /** A fresh token for the caller (GET), switched to the org `orgId` when given. */
  fetchToken: (orgId?: number) => (orgId === undefined ? '/api/fetch_token/' : `/api/fetch_token/?org_id=${orgId}`),
  /** A country: by its ISO 3166 numeric code, as the hosted service names it (36), or by ISO2 ("AU"); both resolve. */
  country: (code: string | number) => `/api/countries/${code}/`,
  roofType: (id: number | string) => `/api/roof_types/${id}/`,
} as const;

/**
 * A project's share link: the page that shows it without signing in, with the token
 * (projects/share-link.ts). `/share/<id>/` is the hosted service's shape (facts
 * section 15); `/shared/projects/<id>/`, SolarDesk's earlier one, keeps working.
 */
export const sharePaths = {
  link: (projectId: number, token: string) => `/share/${projectId}/?token=${encodeURIComponent(token)}`,
  legacyLink: (projectId: number, token: string) => `/shared/projects/${projectId}/?token=${encodeURIComponent(token)}`,
} as const;

/**
 * The sync routes the agent serves on the local API (shared/sync-api.ts says what
 * they mean). They live under the org like its records, so they are built here.
 */
export const syncPaths = {
  status: (orgId: number) => `${orgPath(orgId)}sync/status/`,
  pending: (orgId: number) => `${orgPath(orgId)}sync/pending/`,
  confirmPending: (orgId: number, id: number | string) => `${orgPath(orgId)}sync/pending/${id}/confirm/`,
  restorePending: (orgId: number, id: number | string) => `${orgPath(orgId)}sync/pending/${id}/restore/`,
  retryPending: (orgId: number, id: number | string) => `${orgPath(orgId)}sync/pending/${id}/retry/`,
  conflicts: (orgId: number) => `${orgPath(orgId)}sync/conflicts/`,
  resolveConflict: (orgId: number, id: number | string) => `${orgPath(orgId)}sync/conflicts/${id}/resolve/`,
  pause: (orgId: number) => `${orgPath(orgId)}sync/pause/`,
  resume: (orgId: number) => `${orgPath(orgId)}sync/resume/`,
  folder: (orgId: number) => `${orgPath(orgId)}sync/folder/`,
  /** Try again now a download into a project folder that failed (the Sync screen's Retry). */
  retryFolderDownload: (orgId: number, fileId: number) => `${orgPath(orgId)}sync/folder/downloads/${fileId}/retry/`,
  budget: (orgId: number) => `${orgPath(orgId)}sync/budget/`,
  refresh: (orgId: number) => `${orgPath(orgId)}sync/refresh/`,
  /** Files on demand (docs/sync.md): a project's files, here or on the remote; pin; record an open; fetch one file. */
  projectContents: (orgId: number, projectId: number | string) => `${orgPath(orgId)}sync/contents/projects/${projectId}/`,
  pinProject: (orgId: number, projectId: number | string) => `${orgPath(orgId)}sync/contents/projects/${projectId}/pin/`,
  projectOpened: (orgId: number, projectId: number | string) => `${orgPath(orgId)}sync/contents/projects/${projectId}/opened/`,
  fetchFileContents: (orgId: number, fileId: number | string) => `${orgPath(orgId)}sync/contents/files/${fileId}/fetch/`,
} as const;

/** A path under an org, split at its collection and (when it has one) record id. */
export interface OrgApiPath {
  orgId: number;
  /** The path segment after the org: `projects`, `private_files`, `sync`... */
  collection: string;
  id: number | null;
  /** What follows the collection and id, `''` for the collection or record itself. */
  rest: string;
}

// Ids are capped at 15 digits so that they stay safe integers.
const ORG_API_PATH = /^\/api\/orgs\/(\d{1,15})\/([a-z_]+)\/(?:(\d{1,15})\/)?(.*)$/s;

/**
 * The one parser of org-scoped API paths: `/api/orgs/<org>/<collection>/[<id>/]<rest>`,
 * with or without a trailing slash. Null for any other path.
 */
export function parseOrgApiPath(path: string): OrgApiPath | null {
  const match = ORG_API_PATH.exec(path.endsWith('/') ? path : `${path}/`);
  if (!match) return null;
  return { orgId: Number(match[1]), collection: match[2]!, id: match[3] === undefined ? null : Number(match[3]), rest: match[4]! };
}

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
  const path = pathOf(trimmed);
  const parsed = path === null ? null : parseOrgApiPath(path);
  if (!parsed || parsed.collection !== kind || parsed.id === null || parsed.rest !== '') return null;
  return { orgId: parsed.orgId, id: parsed.id };
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

/**
 * Reads a file tag reference: `/api/file_tags/<id>/` (absolute or relative), a bare
 * id, or the org-scoped `/api/orgs/<org>/file_tags/<id>/` SolarDesk used before
 * issue 16 (null when `orgId` is given and the path names another org).
 */
export function parseFileTagReference(reference: unknown, orgId?: number): number | null {
  if (typeof reference === 'number') return Number.isSafeInteger(reference) && reference > 0 ? reference : null;
  if (typeof reference !== 'string') return null;
  const trimmed = reference.trim();
  if (/^\d{1,15}$/.test(trimmed)) return Number(trimmed) > 0 ? Number(trimmed) : null;
  const path = pathOf(trimmed) ?? '';
  const match = /^\/api\/file_tags\/(\d{1,15})\/?$/.exec(path);
  if (match) return Number(match[1]) > 0 ? Number(match[1]) : null;
  const old = parseOrgReference(trimmed, 'file_tags');
  if (!old || (orgId !== undefined && old.orgId !== null && old.orgId !== orgId)) return null;
  return old.id;
}

/**
 * Reads a user reference, `/api/global_users/<id>/` (the hosted service's) or
 * `/auth/users/<id>/` (ours), as an absolute URL or a path; null for anything else.
 */
export function parseUserReference(reference: unknown): number | null {
  if (typeof reference !== 'string') return null;
  const match = /^\/(?:auth\/users|api\/global_users)\/(\d{1,15})\/?$/.exec(pathOf(reference.trim()) ?? '');
  return match ? Number(match[1]) : null;
}
