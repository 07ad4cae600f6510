// Who is asking, and in which org: token -> user -> role in the org -> plan check.
import type { FastifyRequest } from 'fastify';
import type { OrgRow, RoleRow, UserRow } from '../store/tables.ts';
import type { ApiPlan } from '../../../shared/plans.ts';
import { type EngineContext } from '../context.ts';
import { forbidden, notFound, unauthorized } from '../http/errors.ts';
import { nowIso, todayIso } from '../clock.ts';
import { checkToken, hashToken } from './accounts.ts';
import { planAccess, findMemberRole } from '../orgs/org-service.ts';

export interface Actor {
  readonly user: UserRow;
  readonly org: OrgRow;
  readonly role: RoleRow;
  readonly plan: ApiPlan;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the org routes' onRequest hook; null elsewhere. */
    actor: Actor | null;
  }
}

const AUTH_SCHEMES = new Set(['bearer', 'token']);

/** The token of an `Authorization: Bearer <token>` (or `Token <token>`) header. */
export function readToken(header: string | undefined): string {
  if (!header) throw unauthorized();
  const parts = header.trim().split(/\s+/);
  if (parts.length !== 2 || !AUTH_SCHEMES.has(parts[0]!.toLowerCase())) {
    throw unauthorized('Invalid token header. Send "Authorization: Bearer <token>".');
  }
  return parts[1]!;
}

export async function authenticate(context: EngineContext, request: FastifyRequest): Promise<UserRow> {
  const check = await checkToken(context.db, context.clock, readToken(request.headers.authorization));
  if (check.status === 'expired') throw unauthorized('Token has expired. Sign in again to get a new token.');
  if (check.status === 'unknown') throw unauthorized('Invalid token.');
  return check.user;
}

export function parseId(value: unknown): number | null {
  return typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : null;
}

export async function resolveActor(context: EngineContext, request: FastifyRequest, orgParam: unknown): Promise<Actor> {
  const cache = actorCacheOf(context);
  const tokenKey = hashToken(readToken(request.headers.authorization));
  // On a shared PostgreSQL: learn what other processes have committed (one small read instead of the three or four below).
  await context.store.writes.refresh();
  const orgId = parseId(orgParam);
  if (orgId !== null) {
    const cached = cache.get(`${tokenKey}|${orgId}`);
    if (cached && cached.generation === context.store.writes.auth && (cached.neverExpires || cached.expiresAt > nowIso(context.clock))) {
      const access = planAccess(cached.org, todayIso(context.clock));
      if (access.allowed) return { user: cached.user, org: cached.org, role: cached.role, plan: access.plan };
    }
  }
  // Noted before the reads: a write that lands while they run leaves the entry out of date.
  const generation = context.store.writes.auth;
  const check = await checkToken(context.db, context.clock, readToken(request.headers.authorization));
  if (check.status === 'expired') throw unauthorized('Token has expired. Sign in again to get a new token.');
  if (check.status === 'unknown') throw unauthorized('Invalid token.');
  if (orgId === null) throw notFound();
  const actor = await actorInOrg(context, check.user, orgId);
  if (cache.size >= ACTOR_CACHE_SIZE) cache.clear();
  const { user, org, role } = actor;
  cache.set(`${tokenKey}|${orgId}`, { user, org, role, generation, expiresAt: check.expiresAt, neverExpires: user.is_machine_user === 1 });
  return actor;
}

/**
 * The callers resolved lately, by token (its hash) and org: every org request needs
 * its token, user, role and org, and they rarely change. An entry is used only while
 * no write to tokens, users, roles or orgs has been made since it was read
 * (WriteGenerations.auth) and while its token has not expired; the plan's dates are
 * checked on every use. On a shared PostgreSQL the count includes every process's
 * committed writes, read at the start of each request (WriteGenerations.refresh), so a
 * token revoked by another process is refused on the next request.
 */
interface CachedActor {
  user: UserRow;
  org: OrgRow;
  role: RoleRow;
  generation: number;
  expiresAt: string;
  neverExpires: boolean;
}
const ACTOR_CACHE_SIZE = 10_000;
const actorCaches = new WeakMap<EngineContext, Map<string, CachedActor>>();
function actorCacheOf(context: EngineContext): Map<string, CachedActor> {
  let cache = actorCaches.get(context);
  if (!cache) actorCaches.set(context, (cache = new Map()));
  return cache;
}

/** The user as a member of the org, if they are one and its plan is in force (also used by signed download links). */
export async function actorInOrg(context: EngineContext, user: UserRow, orgId: number): Promise<Actor> {
  const org = await context.orgs.get(orgId);
  const role = org ? await findMemberRole(context.db, org.id, user.id) : undefined;
  if (!org || !role) throw forbidden('You are not a member of this organisation.');
  const access = planAccess(org, todayIso(context.clock));
  if (!access.allowed) throw forbidden(access.reason);
  return { user, org, role, plan: access.plan };
}

/** The actor of an org route; the hook guarantees it is set. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new Error('actorOf() called on a route outside the org scope');
  return request.actor;
}

export const canSeeAllProjects = (role: RoleRow): boolean => role.sees_all_projects === 1 || role.is_admin === 1;
