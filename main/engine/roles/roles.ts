// Roles: reading them with their user, and their JSON shape (service.md 2.1 "Role record shape").
import { z } from 'zod';
import type { Kysely } from 'kysely';
import type { Database, RoleRow } from '../store/tables.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { RoleJson } from '../../../shared/schemas/role.ts';
import { booleanField, stringField } from '../../../shared/schemas/coercing-fields.ts';

/** What a PATCH of a role may set: the person's own data, not their permissions. */
export const roleWriteSchema = z.object({
  first_name: stringField().optional(),
  family_name: stringField().optional(),
  email: stringField().optional(),
  phone: stringField().optional(),
  job_title: stringField().optional(),
  accreditation: stringField().optional(),
  is_hidden: booleanField().optional(),
  allow_email_notifications: booleanField().optional(),
  external_calendar_id: stringField().nullable().optional(),
  schedule_meeting_url: stringField().optional(),
  schedule_meeting_label: stringField().optional(),
}).extend({
  // The hosted service's name of external_calendar_id (facts section 15): the same value. Sent with it, this one wins.
  google_calendar_id: stringField().nullable().optional(),
}).transform(({ google_calendar_id: googleCalendarId, ...write }) =>
  googleCalendarId === undefined ? write : { ...write, external_calendar_id: googleCalendarId },
);
export type RoleWrite = z.output<typeof roleWriteSchema>;

export interface RoleWithUser extends RoleRow {
  user_email: string | null;
  user_phone: string | null;
  user_is_staff: 0 | 1 | null;
}

export async function loadRoles(db: Kysely<Database>, orgId: number, ids: readonly number[]): Promise<Map<number, RoleWithUser>> {
  if (ids.length === 0) return new Map();
  const rows = await selectRoles(db, orgId).where('roles.id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** The org's role with this id, with its user; undefined when the org has none. */
export function findRole(db: Kysely<Database>, orgId: number, id: number): Promise<RoleWithUser | undefined> {
  return selectRoles(db, orgId).where('roles.id', '=', id).executeTakeFirst();
}

export function selectRoles(db: Kysely<Database>, orgId: number) {
  return db
    .selectFrom('roles')
    .leftJoin('users', 'users.id', 'roles.user_id')
    .selectAll('roles')
    .select(['users.email as user_email', 'users.phone as user_phone', 'users.is_staff as user_is_staff'])
    .where('roles.org_id', '=', orgId);
}

export const roleDisplayName = (role: RoleRow): string =>
  `${role.first_name} ${role.family_name}`.trim() || role.email;

export function serializeRole(context: EngineContext, role: RoleWithUser, orgName: string): RoleJson {
  return {
    id: role.id,
    url: absoluteUrl(context, apiPaths.role(role.org_id, role.id)),
    org: absoluteUrl(context, apiPaths.org(role.org_id)),
    org_name: orgName,
    user: role.user_id === null ? null : absoluteUrl(context, apiPaths.user(role.user_id)),
    email: role.email,
    user_email: role.user_email ?? role.email,
    first_name: role.first_name,
    family_name: role.family_name,
    display: roleDisplayName(role),
    job_title: role.job_title,
    accreditation: role.accreditation,
    phone: role.phone,
    user_phone: role.user_phone ?? '',
    is_admin: role.is_admin === 1,
    is_hidden: role.is_hidden === 1,
    allow_email_notifications: role.allow_email_notifications === 1,
    has_logged_in: role.has_logged_in === 1,
    user_is_staff: role.user_is_staff === 1,
    portrait_image: null,
    external_calendar_id: role.external_calendar_id,
    google_calendar_id: role.external_calendar_id,
    schedule_meeting_url: role.schedule_meeting_url,
    schedule_meeting_label: role.schedule_meeting_label,
    // Secret-like in the live service; this engine never holds such a key, so it never returns one.
    api_key_chat: '',
  };
}
