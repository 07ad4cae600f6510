// Connected orgs, the hosted Teams feature (hosted-docs-facts.md section 4,
// docs/access.md "Teams"). A connection is two rows, one per side (migration 0015):
//   ask      the asking side's row (accepted) and the asked side's (not yet) are made
//   accept   the asked side's row becomes accepted
//   PATCH    is_active of one side: sharing pauses both ways while either is off
//   DELETE   both rows go, and every sharing setting between the two orgs
// A connection is "active" (projects shared over it are seen) while both sides have
// accepted and both are enabled: activeConnectionBetween().
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { ConnectedOrgRow, Database } from '../store/tables.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import { nowIso } from '../clock.ts';
import { fieldError, forbidden, nonFieldError, notFound, validationError, type FieldErrors } from '../http/errors.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { notifyPartners, sharesBetween } from '../sharing/project-shares.ts';
import { resolvePermissionRole } from './connection-state.ts';
import { byUser } from '../changes/change-feed.ts';
import type { ConnectedOrgCreate, ConnectedOrgJson, ConnectedOrgPatch, PendingConnectionJson } from '../../../shared/schemas/connected-org.ts';

export type ConnectionSide = ConnectedOrgRow & {
  partner_name: string;
  other_accepted: number;
  other_is_active: number;
};

export function requireOrgAdmin(actor: Actor): void {
  if (actor.role.is_admin !== 1) {
    throw forbidden('Only admins of this organisation can set up or change its connections with other organisations. Ask an admin.');
  }
}

/** This org's sides of its connections, each with the partner's side and name. */
function sidesOf(db: Kysely<Database>, orgId: number) {
  return db
    .selectFrom('connected_orgs as mine')
    .innerJoin('connected_orgs as theirs', (join) => join.onRef('theirs.org_id', '=', 'mine.org_to_id').onRef('theirs.org_to_id', '=', 'mine.org_id'))
    .innerJoin('orgs as partner', 'partner.id', 'mine.org_to_id')
    .selectAll('mine')
    .select(['partner.name as partner_name', 'theirs.accepted as other_accepted', 'theirs.is_active as other_is_active'])
    .where('mine.org_id', '=', orgId);
}

/** Connections listed to this org: those it has agreed to (its own requests too, until the partner accepts). */
export function connectionsOf(db: Kysely<Database>, orgId: number) {
  return sidesOf(db, orgId).where('mine.accepted', '=', 1);
}

/** `orPending`: also a request waiting for this org's answer (its item_id), which DELETE declines. */
export async function getConnection(db: Kysely<Database>, orgId: number, id: number, orPending = false): Promise<ConnectionSide> {
  const row = await (orPending ? sidesOf(db, orgId) : connectionsOf(db, orgId)).where('mine.id', '=', id).executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export function serializeConnection(context: EngineContext, row: ConnectionSide): ConnectedOrgJson {
  return {
    id: row.id,
    url: absoluteUrl(context, apiPaths.connectedOrg(row.org_id, row.id)),
    org: absoluteUrl(context, apiPaths.org(row.org_id)),
    org_to: absoluteUrl(context, apiPaths.org(row.org_to_id)),
    org_name: row.partner_name,
    permission: row.permission_role_id === null ? null : absoluteUrl(context, apiPaths.permissionsRole(row.org_id, row.permission_role_id)),
    notify_roles: parseRoleIds(row.notify_roles),
    is_active: row.is_active === 1,
    is_other_active: row.other_accepted === 1,
    is_other_enabled: row.other_is_active === 1,
  };
}

function parseRoleIds(text: string): number[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((id): id is number => Number.isSafeInteger(id)) : [];
  } catch {
    return [];
  }
}

/**
 * A condition true where org `a` and org `b` have an active connection: both sides
 * accepted and enabled. `a` and `b` are SQL references (columns) or values.
 */
export function activeConnectionBetween<DB extends Database, TB extends keyof DB>(
  builder: ExpressionBuilder<DB, TB>,
  a: ReturnType<typeof sql.ref> | number,
  b: ReturnType<typeof sql.ref> | number,
) {
  return builder.exists(
    sql`(select 1 from connected_orgs as side_a inner join connected_orgs as side_b
          on side_b.org_id = side_a.org_to_id and side_b.org_to_id = side_a.org_id
        where side_a.org_id = ${a} and side_a.org_to_id = ${b}
          and side_a.accepted = 1 and side_a.is_active = 1 and side_b.accepted = 1 and side_b.is_active = 1)`,
  );
}

/** Checks this side's settings of a create or PATCH; collects every error into one 400. */
async function resolveSettings(
  db: Kysely<Database>,
  orgId: number,
  input: { notify_roles?: number[]; permission?: string | null },
): Promise<{ notify_roles?: string; permission_role_id?: number | null }> {
  const errors: FieldErrors = {};
  const settings: { notify_roles?: string; permission_role_id?: number | null } = {};
  if (input.notify_roles !== undefined) {
    const ids = [...new Set(input.notify_roles)];
    const found = ids.length === 0 ? [] : await db.selectFrom('roles').select('id').where('org_id', '=', orgId).where('id', 'in', ids).execute();
    if (found.length !== ids.length) errors.notify_roles = ['Every entry must be the id of a role of this organisation.'];
    else settings.notify_roles = JSON.stringify(ids);
  }
  if (input.permission !== undefined) {
    if (input.permission === null || input.permission === '') settings.permission_role_id = null;
    else {
      const resolved = await resolvePermissionRole(db, orgId, input.permission);
      if (typeof resolved === 'string') errors.permission = [resolved];
      else settings.permission_role_id = resolved;
    }
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return settings;
}

const NO_SUCH_ORG = "No single organisation has exactly this name. Ask the partner's admin for their organisation's name, spelled exactly.";

/**
 * Asks the org named exactly `org_name` to connect. A name that matches no org, or
 * several, gets the same 400, which says nothing about which names exist.
 */
export async function requestConnection(context: EngineContext, actor: Actor, input: ConnectedOrgCreate): Promise<number> {
  const name = input.org_name;
  const matches = name.trim() === '' ? [] : await context.db.selectFrom('orgs').select(['id', 'name']).where('name', '=', name).limit(2).execute();
  if (matches.length !== 1) throw fieldError('org_name', NO_SUCH_ORG);
  const other = matches[0]!;
  if (other.id === actor.org.id) throw fieldError('org_name', 'An organisation cannot connect to itself.');
  const settings = await resolveSettings(context.db, actor.org.id, input);
  return context.db.transaction().execute(async (trx) => {
    // Either org may ask; both name the same pair, so the two requests queue on one key.
    await context.store.lock(trx, [`org-connection:${Math.min(actor.org.id, other.id)}:${Math.max(actor.org.id, other.id)}`]);
    const existing = await sidesOf(trx, actor.org.id).where('mine.org_to_id', '=', other.id).executeTakeFirst();
    if (existing) {
      if (existing.accepted === 1 && existing.other_accepted === 1) throw nonFieldError(`This organisation is already connected to ${other.name}.`);
      if (existing.accepted === 1) throw nonFieldError(`A request to ${other.name} is already waiting for its answer.`);
      throw nonFieldError(`${other.name} has already asked to connect: accept its request (connected_orgs/accept_connection/ with org_to_id ${other.id}) instead.`);
    }
    const now = nowIso(context.clock);
    const { id } = await trx
      .insertInto('connected_orgs')
      .values({
        org_id: actor.org.id,
        org_to_id: other.id,
        is_active: input.is_active === false ? 0 : 1,
        accepted: 1,
        permission_role_id: settings.permission_role_id ?? null,
        notify_roles: settings.notify_roles ?? '[]',
        requested_by_user_id: actor.user.id,
        created_date: now,
        modified_date: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('connected_orgs')
      .values({ org_id: other.id, org_to_id: actor.org.id, is_active: 1, accepted: 0, notify_roles: '[]', created_date: now, modified_date: now })
      .execute();
    return id;
  });
}

/** Requests waiting for this org's answer, oldest first. */
export async function pendingRequests(db: Kysely<Database>, orgId: number): Promise<PendingConnectionJson[]> {
  const rows = await sidesOf(db, orgId).where('mine.accepted', '=', 0).where('theirs.accepted', '=', 1).orderBy('mine.id').execute();
  return rows.map((row) => ({ item_id: row.id, org_from_id: row.org_to_id, org_from_name: row.partner_name, org_to_id: row.org_to_id }));
}

/** Accepts the pending request of the org `orgToId`: this org's side becomes accepted. */
export async function acceptConnection(context: EngineContext, actor: Actor, orgToId: number): Promise<number> {
  const row = await sidesOf(context.db, actor.org.id)
    .where('mine.org_to_id', '=', orgToId)
    .where('mine.accepted', '=', 0)
    .where('theirs.accepted', '=', 1)
    .executeTakeFirst();
  if (!row) {
    throw fieldError('org_to_id', 'No request from this organisation is waiting for your answer. Copy org_to_id from an item of connected_orgs/pending/.');
  }
  await context.db
    .updateTable('connected_orgs')
    .set({ accepted: 1, modified_date: nowIso(context.clock) })
    .where('id', '=', row.id)
    .execute();
  await noteSharingChange(context, [actor.org.id, orgToId], actor);
  return row.id;
}

export async function updateConnection(context: EngineContext, actor: Actor, row: ConnectionSide, input: ConnectedOrgPatch): Promise<void> {
  const settings = await resolveSettings(context.db, actor.org.id, input);
  const changes = { ...settings, ...(input.is_active === undefined ? {} : { is_active: input.is_active ? (1 as const) : (0 as const) }) };
  if (Object.keys(changes).length === 0) return;
  await context.db
    .updateTable('connected_orgs')
    .set({ ...changes, modified_date: nowIso(context.clock) })
    .where('id', '=', row.id)
    .execute();
  const activeChanged = input.is_active !== undefined && (input.is_active ? 1 : 0) !== row.is_active;
  // The default permissions role narrows (or widens) what the partner sees of every
  // project shared without a role of its own: its feed must hear it (issue 25, item 6).
  const permissionChanged = settings.permission_role_id !== undefined && settings.permission_role_id !== row.permission_role_id;
  if (activeChanged || permissionChanged) await noteSharingChange(context, [row.org_id, row.org_to_id], actor);
}

/** Removes both sides of the connection and every sharing setting between the two orgs. */
export async function deleteConnection(context: EngineContext, actor: Actor, row: ConnectionSide): Promise<void> {
  const pair = [row.org_id, row.org_to_id];
  await noteSharingChange(context, pair, actor, async (trx) => {
    await trx
      .deleteFrom('project_shares')
      .where((builder) =>
        builder.or(
          pair.map((orgId, index) =>
            builder.and([
              builder('project_shares.org_id', '=', pair[1 - index]!),
              builder('project_shares.project_id', 'in', builder.selectFrom('projects').select('projects.id').where('projects.org_id', '=', orgId)),
            ]),
          ),
        ),
      )
      .execute();
    await trx
      .deleteFrom('entity_shares')
      .where((builder) =>
        builder.or([
          builder.and([builder('org_id', '=', pair[0]!), builder('shared_org_id', '=', pair[1]!)]),
          builder.and([builder('org_id', '=', pair[1]!), builder('shared_org_id', '=', pair[0]!)]),
        ]),
      )
      .execute();
    await trx
      .deleteFrom('connected_orgs')
      .where((builder) =>
        builder.or([
          builder.and([builder('org_id', '=', pair[0]!), builder('org_to_id', '=', pair[1]!)]),
          builder.and([builder('org_id', '=', pair[1]!), builder('org_to_id', '=', pair[0]!)]),
        ]),
      )
      .execute();
  });
}

/**
 * Runs `write` (if any) in one transaction, then tells both orgs' change feeds that
 * the projects shared between them may have appeared or gone (sharing/project-shares.ts).
 */
async function noteSharingChange(context: EngineContext, orgIds: readonly number[], by: Actor, write?: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
  const shared = await sharesBetween(context.db, orgIds[0]!, orgIds[1]!);
  if (write) await context.db.transaction().execute(write);
  if (shared.length > 0) await notifyPartners(context, shared, byUser(by.user.id));
}
