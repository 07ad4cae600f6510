// The API's writes of users: signing in and a user's own settings. The user's
// JSON shape is beside it in accounts.ts. Users are not tracked records (no
// webhook, no sync outbox), so no change capture runs.
import type { EngineContext } from '../context.ts';
import type { UserRow } from '../store/tables.ts';
import { forbidden } from '../http/errors.ts';
import { issueToken, setMachineUser } from './accounts.ts';

/** The user proved who they are: their roles now show they have signed in, and they get a new token. */
export async function signIn(context: EngineContext, user: UserRow): Promise<string> {
  await context.db.updateTable('roles').set({ has_logged_in: 1 }).where('user_id', '=', user.id).execute();
  return issueToken(context.db, context.clock, user.id);
}

export interface UserUpdate {
  /** A machine user's tokens never expire. */
  is_machine_user?: boolean | undefined;
}

/** `caller` changes `target`: allowed to the user themselves and to an admin of one of their orgs. */
export async function updateUser(context: EngineContext, caller: UserRow, target: UserRow, input: UserUpdate): Promise<UserRow> {
  await checkUserAccess(context, caller, target, 'change');
  return input.is_machine_user === undefined ? target : setMachineUser(context.db, target.id, input.is_machine_user);
}

/**
 * The one rule for a user record, read (GET /api/global_users/<id>/, GET /auth/users/<id>/)
 * or changed (PATCH): the user themselves, or an admin of one of their orgs; else 403.
 */
export async function checkUserAccess(context: EngineContext, caller: UserRow, target: UserRow, verb: 'see' | 'change'): Promise<void> {
  if (caller.id !== target.id && !(await isAdminOver(context, caller.id, target.id))) {
    throw forbidden(`Only the user, or an admin of one of their organisations, may ${verb} this user.`);
  }
}

async function isAdminOver(context: EngineContext, adminUserId: number, userId: number): Promise<boolean> {
  const shared = await context.db
    .selectFrom('roles as admin')
    .innerJoin('roles as member', 'member.org_id', 'admin.org_id')
    .select('admin.id')
    .where('admin.user_id', '=', adminUserId)
    .where('admin.is_admin', '=', 1)
    .where('member.user_id', '=', userId)
    .executeTakeFirst();
  return shared !== undefined;
}
