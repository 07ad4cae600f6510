// Orgs, their members' roles and permissions, their workflows, and their API plan.
import type { Kysely } from 'kysely';
import type { Database, NewRole, OrgRow, RoleRow } from '../store/tables.ts';
import { type Clock, nowIso, todayIso } from '../clock.ts';
import { type ApiPlan, API_PLANS, FREE_TRIAL_DAYS } from '../../../shared/plans.ts';
import { advanceIdSequence } from '../store/sequences.ts';
import type { EngineContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { toFlag } from '../store/portable-columns.ts';

/** Every new org gets this workflow; each stage belongs to a legacy milestone (service.md 3). */
export const DEFAULT_WORKFLOW = {
  title: 'Residential solar',
  stages: [
    { title: 'New lead', milestone: 0 },
    { title: 'Site visit', milestone: 0 },
    { title: 'Proposal sent', milestone: 0 },
    { title: 'Pricing locked', milestone: 1 },
    { title: 'Contract signed', milestone: 2 },
    { title: 'Permitting', milestone: 2 },
    { title: 'Installing', milestone: 2 },
    { title: 'Installed', milestone: 3 },
    { title: 'Commissioned', milestone: 3 },
    { title: 'On hold', milestone: 4 },
    { title: 'Lost', milestone: 4 },
  ],
} as const;

export async function createOrg(
  db: Kysely<Database>,
  clock: Clock,
  org: { name: string; id?: number },
): Promise<OrgRow> {
  return db.transaction().execute(async (trx) => {
    const created = await trx
      .insertInto('orgs')
      .values({
        ...(org.id === undefined ? {} : { id: org.id }),
        name: org.name,
        api_plan: null,
        plan_starts_on: null,
        plan_ends_on: null,
        plan_is_trial: 0,
        created_date: nowIso(clock),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (org.id !== undefined) await advanceIdSequence(trx, 'orgs');
    const workflow = await trx
      .insertInto('workflows')
      .values({ org_id: created.id, title: DEFAULT_WORKFLOW.title, is_default: 1, created_date: created.created_date, modified_date: created.created_date })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('workflow_stages')
      .values(DEFAULT_WORKFLOW.stages.map((stage, position) => ({ workflow_id: workflow.id, position, ...stage })))
      .execute();
    return created;
  });
}

export interface PlanChange {
  plan: ApiPlan | null;
  /** YYYY-MM-DD; defaults to today. */
  startsOn?: string;
  /** YYYY-MM-DD, the last day the plan is in force; null for open-ended. */
  endsOn?: string | null;
  /** A free trial lasts FREE_TRIAL_DAYS from its start. */
  isTrial?: boolean;
}

export async function setPlan(db: Kysely<Database>, clock: Clock, orgId: number, change: PlanChange): Promise<OrgRow> {
  const startsOn = change.startsOn ?? todayIso(clock);
  const endsOn = change.isTrial ? addDays(startsOn, FREE_TRIAL_DAYS - 1) : (change.endsOn ?? null);
  return db
    .updateTable('orgs')
    .set({
      api_plan: change.plan,
      plan_starts_on: change.plan ? startsOn : null,
      plan_ends_on: change.plan ? endsOn : null,
      plan_is_trial: toFlag(change.isTrial),
    })
    .where('id', '=', orgId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export type PlanAccess = { allowed: true; plan: ApiPlan } | { allowed: false; reason: string };

/** Whether the org may use the API today, and why not (the 403 detail). */
export function planAccess(org: OrgRow, today: string): PlanAccess {
  const plan = org.api_plan as ApiPlan | null;
  if (!plan || !(plan in API_PLANS)) {
    return { allowed: false, reason: `The organisation "${org.name}" has no API plan. Enable API Access or Raw Data API Access for it.` };
  }
  const what = org.plan_is_trial ? `free trial of ${API_PLANS[plan].title}` : `${API_PLANS[plan].title} plan`;
  if (org.plan_starts_on && today < org.plan_starts_on) {
    return { allowed: false, reason: `The organisation's ${what} starts on ${org.plan_starts_on}.` };
  }
  if (org.plan_ends_on && today > org.plan_ends_on) {
    return { allowed: false, reason: `The organisation's ${what} ended on ${org.plan_ends_on}. Renew the plan to use the API.` };
  }
  return { allowed: true, plan };
}

export function addDays(isoDate: string, days: number): string {
  const date = new Date(`${isoDate}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

export interface RolePermissions {
  is_admin?: boolean;
  is_pro?: boolean;
  sees_all_projects?: boolean;
  can_access_all_files?: boolean;
  can_export_projects?: boolean;
}

export const ALL_PERMISSIONS: Required<RolePermissions> = {
  is_admin: true,
  is_pro: true,
  sees_all_projects: true,
  can_access_all_files: true,
  can_export_projects: true,
};

/** Adds a person to an org. With a user, the role takes the user's name and email. */
export async function addRole(
  db: Kysely<Database>,
  clock: Clock,
  orgId: number,
  person: { user_id?: number | null; email?: string; first_name?: string; family_name?: string; phone?: string; job_title?: string; accreditation?: string },
  permissions: RolePermissions,
): Promise<RoleRow> {
  const user = person.user_id
    ? await db.selectFrom('users').selectAll().where('id', '=', person.user_id).executeTakeFirstOrThrow()
    : undefined;
  const now = nowIso(clock);
  const role: NewRole = {
    org_id: orgId,
    user_id: user?.id ?? null,
    email: person.email ?? user?.email ?? '',
    first_name: person.first_name ?? user?.first_name ?? '',
    family_name: person.family_name ?? user?.family_name ?? '',
    phone: person.phone ?? user?.phone ?? '',
    job_title: person.job_title ?? '',
    accreditation: person.accreditation ?? '',
    is_hidden: 0,
    allow_email_notifications: 1,
    has_logged_in: 0,
    external_calendar_id: null,
    schedule_meeting_url: '',
    schedule_meeting_label: '',
    is_admin: toFlag(permissions.is_admin),
    is_pro: toFlag(permissions.is_pro),
    sees_all_projects: toFlag(permissions.sees_all_projects),
    can_access_all_files: toFlag(permissions.can_access_all_files),
    can_export_projects: toFlag(permissions.can_export_projects),
    created_date: now,
    modified_date: now,
  };
  return db.insertInto('roles').values(role).returningAll().executeTakeFirstOrThrow();
}

export function findOrg(db: Kysely<Database>, orgId: number): Promise<OrgRow | undefined> {
  return db.selectFrom('orgs').selectAll().where('id', '=', orgId).executeTakeFirst();
}

export function findMemberRole(db: Kysely<Database>, orgId: number, userId: number): Promise<RoleRow | undefined> {
  return db
    .selectFrom('roles')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .orderBy('id')
    .executeTakeFirst();
}

/**
 * Renames the org (PUT /api/orgs/<org>/, admins only: the route checks). A replica
 * refuses: its org row is the remote's, and sync carries records, not the org.
 * Writing `orgs` bumps the auth counters (store/write-generations.ts), so every
 * cached caller and org row is read again, and the change feed announces it
 * (model `org`) so the app's org store reloads.
 */
export async function updateOrg(context: EngineContext, actor: { org: OrgRow; user: { id: number } }, input: { name: string }): Promise<OrgRow> {
  if (context.role === 'replica') {
    throw new ApiError(409, {
      detail: 'This copy of the organisation is synced from a remote server: rename the organisation there; this copy shows the new name after the next sign-in.',
    });
  }
  const updated = await context.db.updateTable('orgs').set({ name: input.name }).where('id', '=', actor.org.id).returningAll().executeTakeFirstOrThrow();
  context.orgs.forget(actor.org.id);
  return updated;
}

/** The org's country: the one most of its projects are in (the org record has none), or null before it has any. */
export async function orgCountry(context: EngineContext, orgId: number): Promise<string | null> {
  const row = await context.db
    .selectFrom('projects')
    .select(['country_iso2', (builder) => builder.fn.countAll<number>().as('count')])
    .where('org_id', '=', orgId)
    .where('country_iso2', '!=', '')
    .groupBy('country_iso2')
    .orderBy('count', 'desc')
    .orderBy('country_iso2')
    .limit(1)
    .executeTakeFirst();
  return row?.country_iso2 ?? null;
}
