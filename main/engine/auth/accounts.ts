// Users, their API tokens, and a user's JSON shape. The API's writes of users go
// through user-service.ts; these are the steps it, the admin CLI and the hosts share.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, UserRow } from '../store/tables.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { type Clock, nowIso } from '../clock.ts';
import { hashPassword } from './passwords.ts';
import type { UserJson } from '../../../shared/schemas/user.ts';
import { toFlag } from '../store/portable-columns.ts';

/** Ordinary tokens expire after 7 days (compatibility.md); machine users' never do. */
export const TOKEN_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export interface NewUser {
  email: string;
  password: string;
  first_name?: string;
  family_name?: string;
  phone?: string;
  is_staff?: boolean;
}

export async function createUser(db: Kysely<Database>, clock: Clock, user: NewUser): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({
      email: normaliseEmail(user.email),
      password_hash: await hashPassword(user.password),
      first_name: user.first_name ?? '',
      family_name: user.family_name ?? '',
      phone: user.phone ?? '',
      is_machine_user: 0,
      is_staff: toFlag(user.is_staff),
      created_date: nowIso(clock),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function findUserByEmail(db: Kysely<Database>, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', normaliseEmail(email)).executeTakeFirst();
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Makes a new token. Only its hash is stored; the token itself is shown once. */
export async function issueToken(db: Kysely<Database>, clock: Clock, userId: number): Promise<string> {
  const token = randomBytes(30).toString('base64url');
  const now = clock.now();
  await db
    .insertInto('tokens')
    .values({
      user_id: userId,
      token_hash: hashToken(token),
      created_date: now.toISOString(),
      expires_at: new Date(now.getTime() + TOKEN_LIFETIME_MS).toISOString(),
    })
    .execute();
  return token;
}

export type TokenCheck = { status: 'valid'; user: UserRow; expiresAt: string } | { status: 'expired' } | { status: 'unknown' };

export async function checkToken(db: Kysely<Database>, clock: Clock, token: string): Promise<TokenCheck> {
  const row = await db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .selectAll('users')
    .select('tokens.expires_at')
    .where('tokens.token_hash', '=', hashToken(token))
    .executeTakeFirst();
  if (!row) return { status: 'unknown' };
  const { expires_at: expiresAt, ...user } = row;
  if (!user.is_machine_user && expiresAt <= nowIso(clock)) return { status: 'expired' };
  return { status: 'valid', user, expiresAt };
}

export async function setMachineUser(db: Kysely<Database>, userId: number, isMachineUser: boolean): Promise<UserRow> {
  return db
    .updateTable('users')
    .set({ is_machine_user: toFlag(isMachineUser) })
    .where('id', '=', userId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function serializeUser(context: EngineContext, user: UserRow): UserJson {
  return {
    id: user.id,
    url: absoluteUrl(context, apiPaths.user(user.id)),
    email: user.email,
    username: user.email,
    first_name: user.first_name,
    family_name: user.family_name,
    phone: user.phone,
    is_machine_user: user.is_machine_user === 1,
    is_staff: user.is_staff === 1,
  };
}
