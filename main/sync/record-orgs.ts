// Records keep their org (issue 34 "Ids from a remote are checked", issue 36 items 3
// and 4). The remote is not trusted to say which org a record belongs to: a record
// of another org is refused and never stored, unless it is a project that org
// shares here through a connection the remote lists on its documented sharing
// route (`connected_orgs/`, docs/access.md "Teams"), and a project this replica
// holds as the org's own never becomes another org's. Nothing here creates an org,
// a connection or a share from a project's fields: the owner org's name and the
// connection come from the connection list (models/project.ts prepareSharedProject).
// Each model says which verdict is its own (models/, `orgVerdict`).
import { apiPaths, parseOrgIdReference, parseOrgReference } from '../../shared/api-paths.ts';
import type { SyncContext } from './sync-context.ts';
import type { RemotePrivateFile, RemoteProject, RemoteRecord } from './remote-records.ts';
import { throwUnlessAnswered } from './remote-errors.ts';

/** An org that shares projects here, as the remote's connection list names it. */
export interface SharingOrg {
  id: number;
  name: string;
}

/** What the replica may do with a pulled record: write it (a shared project with its verified owner), or refuse it with why. */
export type OrgVerdict = { ok: true; sharedBy: SharingOrg | null } | { ok: false; reason: string };

/** How long a read of the connection list answers for which orgs share here (its quota is 100 a day per user and per org). */
const CONNECTIONS_FRESH_MS = 10 * 60_000;
/** An org the list did not name is looked for again no sooner than this (a connection made just now). */
const UNKNOWN_OWNER_RECHECK_MS = 60_000;
const CONNECTIONS_PAGE = 1000;

interface KnownConnections {
  readAt: number;
  active: Map<number, SharingOrg>;
}

/** The connection list as last read, per replica database (a cycle's context is a fresh object each time). */
const connectionsOf = new WeakMap<object, KnownConnections>();

/**
 * The orgs whose connection with this one is active on both sides, as the remote's
 * `connected_orgs/` lists them; read again when older than CONNECTIONS_FRESH_MS, or
 * (at most once a minute) when a project names an org it did not list.
 */
async function activeConnection(sync: SyncContext, ownerOrgId: number): Promise<SharingOrg | null> {
  const now = sync.clock.now().getTime();
  const known = connectionsOf.get(sync.db);
  const fresh = known && now - known.readAt < CONNECTIONS_FRESH_MS;
  if (known && fresh && (known.active.has(ownerOrgId) || now - known.readAt < UNKNOWN_OWNER_RECHECK_MS)) return known.active.get(ownerOrgId) ?? null;
  const outcome = await sync.remote.request({
    method: 'GET',
    path: apiPaths.connectedOrgs(sync.orgId),
    query: { fieldset: 'list', limit: CONNECTIONS_PAGE },
    action: 'connected_org_list',
    requestClass: sync.requestClass ?? 'user',
  });
  throwUnlessAnswered(outcome); // busy or offline: the pull is tried again later
  const active = new Map<number, SharingOrg>();
  if (outcome.kind === 'ok' && Array.isArray(outcome.body)) {
    for (const item of outcome.body as unknown[]) {
      if (typeof item !== 'object' || item === null) continue;
      const connection = item as Record<string, unknown>;
      const partner = parseOrgIdReference(connection.org_to);
      const enabled = connection.is_active !== false && connection.is_other_active !== false && connection.is_other_enabled !== false;
      if (partner !== null && partner !== sync.orgId && enabled) active.set(partner, { id: partner, name: typeof connection.org_name === 'string' ? connection.org_name : '' });
    }
  }
  connectionsOf.set(sync.db, { readAt: now, active });
  return active.get(ownerOrgId) ?? null;
}

/** The org a record names, by `org_id` or by its `org` URL; null when it names none. */
function orgNamedBy(record: RemoteRecord): number | null {
  const { org_id: orgId, org } = record as { org_id?: unknown; org?: unknown };
  if (typeof orgId === 'number') return orgId;
  return org === undefined || org === null ? null : parseOrgIdReference(org);
}

async function replicaProjectOrg(sync: SyncContext, projectId: number): Promise<number | null> {
  const row = await sync.db.selectFrom('projects').select('org_id').where('id', '=', projectId).executeTakeFirst();
  return row?.org_id ?? null;
}

export async function projectVerdict(sync: SyncContext, project: RemoteProject): Promise<OrgVerdict> {
  const named = orgNamedBy(project);
  const heldBy = await replicaProjectOrg(sync, project.id);
  if (named === null || named === sync.orgId) {
    if (heldBy !== null && heldBy !== sync.orgId) return { ok: false, reason: `refused: the remote now names org ${sync.orgId} as its owner, but org ${heldBy} shares it here` };
    return { ok: true, sharedBy: null };
  }
  if (heldBy === sync.orgId) return { ok: false, reason: `refused: it is this organisation's own project, and the remote named org ${named} as its owner` };
  const owner = await activeConnection(sync, named);
  if (!owner) return { ok: false, reason: `refused: it belongs to org ${named}, which has no active connection with this organisation` };
  return { ok: true, sharedBy: owner };
}

/** A file keeps its last known project unless the remote names one this replica holds (the org's own, or one shared here). */
export async function fileVerdict(sync: SyncContext, file: RemotePrivateFile): Promise<OrgVerdict> {
  const named = orgNamedBy(file);
  const reference = file.project === undefined || file.project === null ? null : parseOrgReference(file.project, 'projects');
  if (file.project !== undefined && file.project !== null && reference === null) return { ok: false, reason: 'refused: its project is not a project reference' };
  const projectOrg = reference === null ? null : await replicaProjectOrg(sync, reference.id);
  if (reference !== null && projectOrg === null) return { ok: false, reason: `refused: its project ${reference.id} is not one this organisation can see; it keeps its last known project` };
  const allowed = new Set([sync.orgId, ...(projectOrg === null ? [] : [projectOrg])]);
  if (reference?.orgId != null && !allowed.has(reference.orgId)) return { ok: false, reason: `refused: its project is named under org ${reference.orgId}; it keeps its last known project` };
  if (named !== null && !allowed.has(named)) return { ok: false, reason: `refused: it belongs to org ${named}, not to this organisation` };
  return { ok: true, sharedBy: null };
}

/** A record of the org's own (a contact, an event, a webhook): refused when it names another org. */
export function ownOrgVerdict(sync: SyncContext, record: RemoteRecord): OrgVerdict {
  const named = orgNamedBy(record);
  return named === null || named === sync.orgId ? { ok: true, sharedBy: null } : { ok: false, reason: `refused: it belongs to org ${named}, not to this organisation` };
}
