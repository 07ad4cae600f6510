// Connected orgs: a request from one org to another, and its answer.
//   pending  -> accepted  by the org that was asked
//   pending  -> declined  by either (the asked org declines, the asking org withdraws)
//   accepted -> declined  by either (disconnect)
// A declined request stays as history; connecting again is a new request.
import type { Kysely } from 'kysely';
import type { ConnectedOrgRow, Database } from '../store/tables.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import { nowIso } from '../clock.ts';
import { fieldError, forbidden, nonFieldError, notFound } from '../http/errors.ts';
import { apiPaths, parseOrgIdReference } from '../../../shared/api-paths.ts';
import type { ConnectedOrgCreate, ConnectedOrgJson, ConnectionStatus } from '../../../shared/schemas/connected-org.ts';

type ConnectionWithNames = ConnectedOrgRow & { org_name: string; connected_org_name: string };

export function requireOrgAdmin(actor: Actor): void {
  if (actor.role.is_admin !== 1) throw forbidden('Only admins of this organisation can connect it to other organisations.');
}

function selectConnections(db: Kysely<Database>) {
  return db
    .selectFrom('connected_orgs')
    .innerJoin('orgs as asking', 'asking.id', 'connected_orgs.org_id')
    .innerJoin('orgs as asked', 'asked.id', 'connected_orgs.connected_org_id')
    .selectAll('connected_orgs')
    .select(['asking.name as org_name', 'asked.name as connected_org_name']);
}

/** Connections this org is a party to, either side. */
export function connectionsOf(db: Kysely<Database>, orgId: number) {
  return selectConnections(db).where((builder) =>
    builder.or([builder('connected_orgs.org_id', '=', orgId), builder('connected_orgs.connected_org_id', '=', orgId)]),
  );
}

export async function getConnection(db: Kysely<Database>, orgId: number, id: number): Promise<ConnectionWithNames> {
  const row = await connectionsOf(db, orgId).where('connected_orgs.id', '=', id).executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export function serializeConnection(context: EngineContext, viewerOrgId: number, row: ConnectionWithNames): ConnectedOrgJson {
  return {
    id: row.id,
    url: absoluteUrl(context, apiPaths.connectedOrg(viewerOrgId, row.id)),
    org: absoluteUrl(context, apiPaths.org(row.org_id)),
    org_id: row.org_id,
    org_name: row.org_name,
    connected_org: absoluteUrl(context, apiPaths.org(row.connected_org_id)),
    connected_org_id: row.connected_org_id,
    connected_org_name: row.connected_org_name,
    status: row.status,
    direction: row.org_id === viewerOrgId ? 'outgoing' : 'incoming',
    requested_by: absoluteUrl(context, apiPaths.user(row.requested_by_user_id)),
    created_date: row.created_date,
    modified_date: row.modified_date,
  };
}

/**
 * A request names the other org by id and exact name, so a typo in either never
 * reaches a stranger. The same message for both misses: it tells no one which
 * ids exist.
 */
export async function requestConnection(context: EngineContext, actor: Actor, input: ConnectedOrgCreate): Promise<number> {
  const otherId = parseOrgIdReference(input.connected_org);
  const other = otherId === null ? undefined : await context.db.selectFrom('orgs').selectAll().where('id', '=', otherId).executeTakeFirst();
  if (!other || other.name !== input.connected_org_name.trim()) {
    throw fieldError('connected_org', 'No organisation has this id and this exact name. Ask its admin for both.');
  }
  if (other.id === actor.org.id) throw fieldError('connected_org', 'An organisation cannot connect to itself.');
  // Checked and written in one transaction, so two quick requests cannot both be opened.
  return context.db.transaction().execute(async (trx) => {
    // Either org may ask; both name the same pair, so the two requests queue on one key.
    await context.store.lock(trx, [`org-connection:${Math.min(actor.org.id, other.id)}:${Math.max(actor.org.id, other.id)}`]);
    const open = await connectionsOf(trx, actor.org.id)
      .where('connected_orgs.status', '!=', 'declined')
      .where((builder) => builder.or([builder('connected_orgs.org_id', '=', other.id), builder('connected_orgs.connected_org_id', '=', other.id)]))
      .executeTakeFirst();
    if (open?.status === 'accepted') throw nonFieldError(`This organisation is already connected to ${other.name}.`);
    if (open && open.org_id === actor.org.id) throw nonFieldError(`A request to ${other.name} is already pending.`);
    if (open) throw nonFieldError(`${other.name} has already asked to connect; accept its request (PATCH status "accepted") instead.`);
    const now = nowIso(context.clock);
    const { id } = await trx
      .insertInto('connected_orgs')
      .values({ org_id: actor.org.id, connected_org_id: other.id, status: 'pending', requested_by_user_id: actor.user.id, created_date: now, modified_date: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return id;
  });
}

/** Why this org may not move the connection to `wanted`, or null when it may. */
function refusal(row: ConnectedOrgRow, orgId: number, wanted: ConnectionStatus): string | null {
  if (row.status === wanted) return null;
  if (row.status === 'declined') return 'A declined connection cannot be reopened; send a new request.';
  if (wanted === 'accepted' && row.status === 'pending' && row.org_id === orgId) {
    return 'Only the organisation that was asked can accept this request.';
  }
  return null;
}

export async function answerConnection(context: EngineContext, actor: Actor, row: ConnectedOrgRow, wanted: 'accepted' | 'declined'): Promise<void> {
  const reason = refusal(row, actor.org.id, wanted);
  if (reason) throw row.status === 'declined' ? fieldError('status', reason) : forbidden(reason);
  if (row.status === wanted) return;
  await context.db
    .updateTable('connected_orgs')
    .set({ status: wanted, modified_date: nowIso(context.clock) })
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .execute();
}
