// Rows the replica keeps besides the synced records themselves, and the conversions
// every writer of the replica shares: the org's reference data (workflows and their
// stages, roles), stand-in users, 0/1 flags and the epoch for dates a remote leaves out.
// The synced models' own writers are in models/ (each model's `store`).
import { sql, type Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import { parseUserReference } from '../../shared/api-paths.ts';
import type { RemoteRole, RemoteWorkflow } from './remote-records.ts';
import { toFlag } from '../engine/store/portable-columns.ts';
import { allButId } from './upsert-set.ts';

type Trx = Transaction<Database>;
export const EPOCH = new Date(0).toISOString();
/** A date the API's schema does not name (a role's, a tag's): the hosted service may send it. */
const unnamedDate = (value: unknown): string => (typeof value === 'string' ? value : EPOCH);

/**
 * The remote's workflows as it lists them (hosted-docs-facts.md 3): stages in
 * `workflow_stages` with their `order` and actions. Within a listed workflow, the
 * stages and actions the remote no longer sends go; a stage a replica project
 * still points at is kept, archived, until the project's own pull moves it.
 * `complete`: the list was read to its end, so a workflow it lacks is gone too.
 */
export async function upsertWorkflows(trx: Trx, orgId: number, workflows: RemoteWorkflow[], complete = false): Promise<void> {
  const stageInUse = async (stageId: number) =>
    (await trx.selectFrom('projects').select('id').where('active_stage_id', '=', stageId).limit(1).executeTakeFirst()) !== undefined;
  const removeStage = async (stageId: number) => {
    await trx.deleteFrom('workflow_actions').where('stage_id', '=', stageId).execute();
    if (await stageInUse(stageId)) await trx.updateTable('workflow_stages').set({ is_archived: 1 }).where('id', '=', stageId).execute();
    else await trx.deleteFrom('workflow_stages').where('id', '=', stageId).execute();
  };
  for (const workflow of workflows) {
    const row = {
      id: workflow.id,
      org_id: orgId,
      title: workflow.title ?? '',
      description: workflow.description ?? '',
      is_default: toFlag(workflow.is_default),
      is_archived: toFlag(workflow.is_archived),
      created_date: workflow.created_date ?? '',
      modified_date: workflow.modified_date ?? '',
    };
    await trx.insertInto('workflows').values(row).onConflict((conflict) => conflict.column('id').doUpdateSet(allButId(row))).execute();
    const stages = workflow.workflow_stages ?? [];
    const listedStageIds = new Set(stages.map((stage) => stage.id));
    for (const [position, stage] of stages.entries()) {
      const stageRow = {
        id: stage.id,
        workflow_id: workflow.id,
        title: stage.title ?? '',
        milestone: stage.milestone ?? 0,
        position: stage.order ?? position,
        is_archived: toFlag(stage.is_archived),
      };
      await trx.insertInto('workflow_stages').values(stageRow).onConflict((conflict) => conflict.column('id').doUpdateSet(allButId(stageRow))).execute();
      const actions = stage.actions ?? [];
      for (const [actionPosition, action] of actions.entries()) {
        const actionRow = { id: action.id, stage_id: stage.id, title: action.title ?? '', position: actionPosition };
        await trx.insertInto('workflow_actions').values(actionRow).onConflict((conflict) => conflict.column('id').doUpdateSet(allButId(actionRow))).execute();
      }
      let gone = trx.deleteFrom('workflow_actions').where('stage_id', '=', stage.id);
      if (actions.length > 0) gone = gone.where('id', 'not in', actions.map((action) => action.id));
      await gone.execute();
    }
    const known = await trx.selectFrom('workflow_stages').select('id').where('workflow_id', '=', workflow.id).execute();
    for (const { id } of known) if (!listedStageIds.has(id)) await removeStage(id);
  }
  if (!complete) return;
  const listedIds = new Set(workflows.map((workflow) => workflow.id));
  const known = await trx.selectFrom('workflows').select('id').where('org_id', '=', orgId).execute();
  for (const { id } of known) {
    if (listedIds.has(id)) continue;
    const inUse = await trx.selectFrom('projects').select('id').where('workflow_id', '=', id).limit(1).executeTakeFirst();
    if (inUse) {
      await trx.updateTable('workflows').set({ is_archived: 1, is_default: 0 }).where('id', '=', id).execute();
      continue;
    }
    for (const stage of await trx.selectFrom('workflow_stages').select('id').where('workflow_id', '=', id).execute()) await removeStage(stage.id);
    await trx.deleteFrom('workflows').where('id', '=', id).execute();
  }
}

export async function upsertRole(trx: Trx, orgId: number, role: RemoteRole, localUserId: number | null): Promise<void> {
  const remoteUserId = parseUserReference(role.user);
  const row = {
    id: role.id,
    org_id: orgId,
    // Only our own user exists in the replica; other roles keep their data without a login.
    user_id: remoteUserId !== null && remoteUserId === localUserId ? localUserId : null,
    email: role.email ?? '',
    first_name: role.first_name ?? '',
    family_name: role.family_name ?? '',
    job_title: role.job_title ?? '',
    accreditation: role.accreditation ?? '',
    phone: role.phone ?? '',
    is_admin: toFlag(role.is_admin),
    is_hidden: toFlag(role.is_hidden),
    allow_email_notifications: toFlag(role.allow_email_notifications ?? true),
    has_logged_in: toFlag(role.has_logged_in),
    external_calendar_id: role.external_calendar_id ?? role.google_calendar_id ?? null,
    schedule_meeting_url: role.schedule_meeting_url ?? '',
    schedule_meeting_label: role.schedule_meeting_label ?? '',
    created_date: unnamedDate(role.created_date),
    modified_date: unnamedDate(role.modified_date),
  };
  await trx
    .insertInto('roles')
    // What the remote lets us see is all the replica holds, so locally its user sees all of it.
    .values({ ...row, is_pro: 1, sees_all_projects: 1, can_access_all_files: 1, can_export_projects: 1 })
    .onConflict((conflict) => conflict.column('id').doUpdateSet({ ...allButId(row), user_id: sql`coalesce(roles.user_id, ${row.user_id})` }))
    .execute();
}

/** The email domain of a stand-in user (reserved: it never delivers). */
const STAND_IN_EMAIL_DOMAIN = '@replica.invalid';

/** A file's creator may be anyone in the org; the replica keeps a login-less stand-in for them. */
export async function ensureUser(trx: Trx, userId: number): Promise<void> {
  const exists = await trx.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
  if (exists) return;
  await trx
    .insertInto('users')
    .values({ id: userId, email: `user-${userId}${STAND_IN_EMAIL_DOMAIN}`, password_hash: '!', first_name: '', family_name: '', phone: '', is_machine_user: 0, is_staff: 0, created_date: EPOCH })
    .execute();
}

/** A user the replica holds with a name to show (its own user), by reference; null for anyone else. */
export async function replicaUserId(trx: Trx, reference: unknown): Promise<number | null> {
  const id = parseUserReference(reference);
  if (id === null) return null;
  const user = await trx.selectFrom('users').select('email').where('id', '=', id).executeTakeFirst();
  // A login-less stand-in (a file's creator, ensureUser) has no name to show.
  return user && !user.email.endsWith(STAND_IN_EMAIL_DOMAIN) ? id : null;
}
