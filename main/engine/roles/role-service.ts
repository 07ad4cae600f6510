// Writing roles: a person's own data in an org (service.md 2.1: "use the role's
// own update endpoint"). Who may change a role is the routes' to check. Roles are
// not tracked records (no webhook, no sync outbox), so no change capture runs.
import type { EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import { nowIso } from '../clock.ts';
import { selectRoles, type RoleWithUser, type RoleWrite } from './roles.ts';
import { toFlag } from '../store/portable-columns.ts';

/** Sets the fields `input` carries on a role of the actor's org; answers the role as it now is. */
export async function updateRole(context: EngineContext, actor: Actor, role: RoleWithUser, input: RoleWrite): Promise<RoleWithUser> {
  const flag = (value: boolean | undefined) => (value === undefined ? undefined : toFlag(value));
  const { is_hidden: isHidden, allow_email_notifications: allowEmail, ...text } = input;
  const changes = Object.fromEntries(
    Object.entries({ ...text, is_hidden: flag(isHidden), allow_email_notifications: flag(allowEmail) }).filter(([, value]) => value !== undefined),
  );
  await context.db.updateTable('roles').set({ ...changes, modified_date: nowIso(context.clock) }).where('id', '=', role.id).where('org_id', '=', actor.org.id).execute();
  return selectRoles(context.db, actor.org.id).where('roles.id', '=', role.id).executeTakeFirstOrThrow();
}
