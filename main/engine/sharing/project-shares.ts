// Projects shared with connected orgs (hosted-docs-facts.md section 11,
// docs/access.md "Teams"). A project's `shared_with` entries are rows of
// project_shares (migration 0015). The partner org sees a project while:
//   - its entry says is_shared,
//   - both sides of the connection have accepted and are enabled,
//   - the permissions role in force (the entry's, else the connection's
//     `permission` on the owner's side; none: everything) lets it view the project,
// and then only read-only, through its own org path, narrowed by that role.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, ProjectShareRow } from '../store/tables.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import { canSeeAllProjects } from '../auth/actor.ts';
import { nowIso } from '../clock.ts';
import type { FieldErrors } from '../http/errors.ts';
import { isConnectionActive, resolvePermissionRole } from '../connected-orgs/connection-state.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { sharedWithSchema, type SharedWithJson } from '../../../shared/schemas/sharing.ts';
import { parsePermissions, type ProjectPermissions } from '../../../shared/schemas/permissions-role.ts';
import type { ChangeActor, RecordChangeEvent } from '../changes/change-feed.ts';

/** The ids of the projects of other orgs that org `orgId` sees now, as a subquery (`projects.id in (...)`). */
export function sharedProjectIdsFor(orgId: number) {
  return sql<number>`(select ps.project_id from project_shares as ps
      inner join projects as shared_project on shared_project.id = ps.project_id
      inner join connected_orgs as owner_side on owner_side.org_id = shared_project.org_id and owner_side.org_to_id = ps.org_id
      inner join connected_orgs as partner_side on partner_side.org_id = ps.org_id and partner_side.org_to_id = shared_project.org_id
      left join permissions_roles as role_in_force on role_in_force.id = coalesce(ps.permission_role_id, owner_side.permission_role_id)
    where ps.org_id = ${orgId} and ps.is_shared = 1
      and owner_side.accepted = 1 and owner_side.is_active = 1 and partner_side.accepted = 1 and partner_side.is_active = 1
      and (role_in_force.id is null or role_in_force.project_view = 1))`;
}

/**
 * Whether the actor sees projects shared to its org at all: shared projects are
 * seen by the users of the partner org who see every project of their own org
 * (admins and `sees_all_projects` roles): the partner's permissions can only narrow.
 */
export function seesSharedProjects(actor: Actor): boolean {
  return canSeeAllProjects(actor.role);
}

/** Whether any project is shared to the org (is_shared entries): the lists add the shared branch only then. */
export async function hasSharesTo(db: Kysely<Database>, orgId: number): Promise<boolean> {
  const row = await db.selectFrom('project_shares').select('project_id').where('org_id', '=', orgId).where('is_shared', '=', 1).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The project of another org the actor sees as shared, or undefined. */
export async function findSharedProject(db: Kysely<Database>, actor: Actor, id: number) {
  if (!seesSharedProjects(actor)) return undefined;
  return db
    .selectFrom('projects')
    .selectAll()
    .where('projects.id', '=', id)
    .where('projects.org_id', '!=', actor.org.id)
    .where(sql<boolean>`projects.id in ${sharedProjectIdsFor(actor.org.id)}`)
    .executeTakeFirst();
}

export async function loadProjectShares(db: Kysely<Database>, projectIds: readonly number[]): Promise<Map<number, ProjectShareRow[]>> {
  const shares = new Map<number, ProjectShareRow[]>();
  if (projectIds.length === 0) return shares;
  const rows = await db.selectFrom('project_shares').selectAll().where('project_id', 'in', [...projectIds]).orderBy('project_id').orderBy('position').execute();
  for (const row of rows) {
    const list = shares.get(row.project_id) ?? [];
    list.push(row);
    shares.set(row.project_id, list);
  }
  return shares;
}

/** A project's `shared_with` as answered; the partner sees only its own entry. */
export function sharedWithJson(context: EngineContext, ownerOrgId: number, shares: readonly ProjectShareRow[], partnerOrgId?: number): SharedWithJson[] {
  return shares
    .filter((share) => partnerOrgId === undefined || share.org_id === partnerOrgId)
    .map((share) => ({
      org_id: share.org_id,
      permission: share.permission_role_id === null ? null : absoluteUrl(context, apiPaths.permissionsRole(ownerOrgId, share.permission_role_id)),
      is_shared: share.is_shared === 1,
    }));
}

export interface ResolvedShare {
  org_id: number;
  permission_role_id: number | null;
  is_shared: 0 | 1;
}

/**
 * Checks a write's `shared_with` (a list of {org_id, permission, is_shared}): each
 * org named once; an entry that shares needs an active connection with that org;
 * a permission must be a Teams permissions role of this org. Adds to `errors`.
 */
export async function resolveSharedWith(context: EngineContext, actor: Actor, input: unknown, errors: FieldErrors): Promise<ResolvedShare[] | undefined> {
  const parsed = sharedWithSchema.safeParse(input);
  if (!parsed.success) {
    errors.shared_with = [parsed.error.issues[0]?.message ?? 'Expected a list of {org_id, permission, is_shared}.'];
    return undefined;
  }
  const messages: string[] = [];
  const shares: ResolvedShare[] = [];
  const seen = new Set<number>();
  for (const entry of parsed.data) {
    if (seen.has(entry.org_id)) {
      messages.push(`Organisation ${entry.org_id} is named twice: send one entry per organisation.`);
      continue;
    }
    seen.add(entry.org_id);
    const isShared = entry.is_shared !== false;
    if (entry.org_id === actor.org.id) {
      messages.push('A project cannot be shared with its own organisation.');
      continue;
    }
    if (isShared && !(await isConnectionActive(context.db, actor.org.id, entry.org_id))) {
      messages.push(
        `Organisation ${entry.org_id} has no active connection with this one. Connect first (connected_orgs/: ask by its exact name, ` +
          'have its admin accept), and make sure both sides are enabled; then share again.',
      );
      continue;
    }
    let permissionRoleId: number | null = null;
    if (entry.permission !== undefined && entry.permission !== null && entry.permission !== '') {
      const resolved = await resolvePermissionRole(context.db, actor.org.id, entry.permission);
      if (typeof resolved === 'string') {
        messages.push(resolved);
        continue;
      }
      permissionRoleId = resolved;
    }
    shares.push({ org_id: entry.org_id, permission_role_id: permissionRoleId, is_shared: isShared ? 1 : 0 });
  }
  if (messages.length > 0) {
    errors.shared_with = messages;
    return undefined;
  }
  return shares;
}

/**
 * Replaces the project's shares; answers the partner orgs whose entry went (their
 * feeds must hear of it; the orgs still listed hear of the project's change by the
 * feed listener below).
 */
export async function setProjectShares(trx: Transaction<Database>, context: EngineContext, projectId: number, shares: readonly ResolvedShare[]): Promise<number[]> {
  const before = await trx.selectFrom('project_shares').selectAll().where('project_id', '=', projectId).execute();
  const now = nowIso(context.clock);
  await trx.deleteFrom('project_shares').where('project_id', '=', projectId).execute();
  if (shares.length > 0) {
    await trx
      .insertInto('project_shares')
      .values(
        shares.map((share, position) => ({
          project_id: projectId,
          ...share,
          position,
          created_date: before.find((row) => row.org_id === share.org_id)?.created_date ?? now,
          modified_date: now,
        })),
      )
      .execute();
  }
  return before.filter((row) => !shares.some((share) => share.org_id === row.org_id)).map((row) => row.org_id);
}

/**
 * The permissions role in force for each project shared to `partnerOrgId` (null:
 * none, so no narrowing): the entry's role, else the owner's default for the connection.
 */
export async function partnerPermissions(db: Kysely<Database>, partnerOrgId: number, projectIds: readonly number[]): Promise<Map<number, ProjectPermissions | null>> {
  const result = new Map<number, ProjectPermissions | null>();
  if (projectIds.length === 0) return result;
  const rows = await db
    .selectFrom('project_shares as ps')
    .innerJoin('projects as p', 'p.id', 'ps.project_id')
    .leftJoin('connected_orgs as owner_side', (join) => join.onRef('owner_side.org_id', '=', 'p.org_id').onRef('owner_side.org_to_id', '=', 'ps.org_id'))
    .leftJoin('permissions_roles as role', (join) => join.on(sql<boolean>`role.id = coalesce(ps.permission_role_id, owner_side.permission_role_id)`))
    .select(['ps.project_id', 'role.permissions'])
    .where('ps.org_id', '=', partnerOrgId)
    .where('ps.project_id', 'in', [...projectIds])
    .execute();
  for (const row of rows) {
    if (row.permissions === null) {
      result.set(row.project_id, null);
      continue;
    }
    const parsed = parsePermissions(row.permissions);
    // A stored role that no longer parses shows nothing but the project itself.
    result.set(row.project_id, 'error' in parsed ? { project: { view: 1, create: 0, edit: 0, delete: 0 } } : parsed.permissions);
  }
  return result;
}

/** Whether the role in force lets the partner view `area` (no role: yes). */
export function partnerMayView(permissions: ProjectPermissions | null, area: string): boolean {
  return permissions === null || permissions[area]?.view === 1;
}

/**
 * Whether org `partnerOrgId` sees the project now (shared, connection active, role
 * lets it view the project) with its design: what its share link shows (issue 25,
 * item 5). Asked each time the link is opened, so the link follows the sharing.
 */
export async function partnerSeesDesign(db: Kysely<Database>, partnerOrgId: number, projectId: number): Promise<boolean> {
  const seen = await db
    .selectFrom('projects')
    .select('projects.id')
    .where('projects.id', '=', projectId)
    .where('projects.org_id', '!=', partnerOrgId)
    .where(sql<boolean>`projects.id in ${sharedProjectIdsFor(partnerOrgId)}`)
    .executeTakeFirst();
  if (!seen) return false;
  const permissions = (await partnerPermissions(db, partnerOrgId, [projectId])).get(projectId) ?? null;
  return partnerMayView(permissions, 'design');
}

/**
 * Tells partner orgs' change feeds that shared projects may have appeared, changed
 * or gone: for each (partner, project), a change_log row in the partner's log,
 * `update` when the partner sees the project now, else `delete`; then the engine's
 * feed hears it as the partner org's. Written after the owner's write committed, in
 * the partner's own write order (its `org-writes` lock), never inside another
 * org's lock (no two orgs' locks are ever held together). A crash between the two
 * loses the partner's row; its desktop then learns on its next full read.
 */
export async function notifyPartners(context: EngineContext, entries: ReadonlyArray<{ partnerOrgId: number; projectId: number }>, by: ChangeActor): Promise<void> {
  const byPartner = new Map<number, Set<number>>();
  for (const { partnerOrgId, projectId } of entries) {
    const set = byPartner.get(partnerOrgId) ?? new Set<number>();
    set.add(projectId);
    byPartner.set(partnerOrgId, set);
  }
  for (const [partnerOrgId, projectSet] of byPartner) {
    const projectIds = [...projectSet];
    const events = await context.db.transaction().execute(async (trx) => {
      await context.store.lock(trx, [`org-writes:${partnerOrgId}`]);
      // One read: each project's date, and whether the partner still sees it (SQLite answers 0/1, PostgreSQL a boolean).
      const found = await trx
        .selectFrom('projects')
        .select(['projects.id', 'projects.modified_date', sql<boolean | number>`projects.id in ${sharedProjectIdsFor(partnerOrgId)}`.as('visible')])
        .where('projects.id', 'in', projectIds)
        .execute();
      const visible = new Set(found.filter((row) => Boolean(row.visible)).map((row) => row.id));
      const modified = new Map(found.map((row) => [row.id, row.modified_date]));
      const now = nowIso(context.clock);
      const rows = projectIds.map((projectId) => ({
        org_id: partnerOrgId,
        model: 'project',
        record_id: projectId,
        op: visible.has(projectId) ? 'update' : 'delete',
        project_id: projectId,
        modified_date: modified.get(projectId) ?? now,
        logged_at: now,
      }));
      await trx.insertInto('change_log').values(rows).execute();
      return rows.map(
        (row): RecordChangeEvent => ({ model: 'project', id: row.record_id, op: row.op as 'update' | 'delete', orgId: partnerOrgId, by, projectId: row.record_id }),
      );
    });
    context.changes.announce(events);
  }
}

/** Every (partner, project) shared between the two orgs, either way: what a change of their connection touches. */
export async function sharesBetween(db: Kysely<Database>, orgA: number, orgB: number): Promise<Array<{ partnerOrgId: number; projectId: number }>> {
  const rows = await db
    .selectFrom('project_shares as ps')
    .innerJoin('projects as p', 'p.id', 'ps.project_id')
    .select(['ps.org_id', 'ps.project_id'])
    .where((builder) =>
      builder.or([
        builder.and([builder('p.org_id', '=', orgA), builder('ps.org_id', '=', orgB)]),
        builder.and([builder('p.org_id', '=', orgB), builder('ps.org_id', '=', orgA)]),
      ]),
    )
    .execute();
  return rows.map((row) => ({ partnerOrgId: row.org_id, projectId: row.project_id }));
}

/**
 * The change feed's listener (engine.ts): a committed change of an org's project,
 * or of a record on one, is also news for the orgs the project is shared with.
 */
export function partnerFeedListener(context: EngineContext) {
  return (changes: readonly RecordChangeEvent[]): void => {
    const projects = new Map<number, { orgId: number; by: ChangeActor }>();
    for (const change of changes) {
      const projectId = change.model === 'project' ? change.id : change.projectId;
      if (projectId !== null) projects.set(projectId, { orgId: change.orgId, by: change.by });
    }
    if (projects.size === 0) return;
    void (async () => {
      const rows = await context.db
        .selectFrom('project_shares')
        .innerJoin('projects', 'projects.id', 'project_shares.project_id')
        .select(['project_shares.org_id', 'project_shares.project_id', 'projects.org_id as owner_org_id'])
        .where('project_shares.project_id', 'in', [...projects.keys()])
        .execute();
      // Only the owner's changes are passed on: what notifyPartners announces as a partner's is not passed on again.
      const entries = rows
        .filter((row) => projects.get(row.project_id)!.orgId === row.owner_org_id)
        .map((row) => ({ partnerOrgId: row.org_id, projectId: row.project_id }));
      if (entries.length === 0) return;
      const first = projects.values().next().value!;
      await notifyPartners(context, entries, first.by);
    })().catch((error: unknown) => console.error('SolarDesk: could not tell partner organisations of a shared project change:', error));
  };
}

