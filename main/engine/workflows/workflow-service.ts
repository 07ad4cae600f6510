// Creating, replacing and deleting workflows (hosted-docs-facts.md 3; the rules are
// in docs/http-api.md "Workflows"). Every write runs in writeTracked() under the
// org's write lock, so a PUT that changes the milestone of a stage projects are at
// records those projects' new `stage` (webhooks, change feed) in the same commit.
import type { Transaction } from 'kysely';
import type { Database, StageRow, WorkflowRow } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import { nowIso } from '../clock.ts';
import { forbidden, notFound, validationError, type FieldErrors } from '../http/errors.ts';
import { writeTracked } from '../changes/tracked-write.ts';
import { actorScope } from '../changes/change-feed.ts';
import { findWorkflow, loadStageActions } from './workflows.ts';
import type { WorkflowCreate, WorkflowReplace } from '../../../shared/schemas/workflow.ts';
import { countOf } from '../../../shared/words.ts';
import { toFlag } from '../store/portable-columns.ts';

/** The stages a workflow made by POST starts with, covering every milestone (service.md 3). */
export const STARTER_STAGES = [
  { title: 'Lead', milestone: 0 },
  { title: 'Qualified', milestone: 0 },
  { title: 'Proposal sent', milestone: 0 },
  { title: 'Pricing locked', milestone: 1 },
  { title: 'Sold', milestone: 2 },
  { title: 'Installed', milestone: 3 },
  { title: 'Complete', milestone: 3 },
  { title: 'On hold', milestone: 4 },
] as const;

type Trx = Transaction<Database>;

export function requireWorkflowAdmin(actor: Actor): void {
  if (actor.role.is_admin !== 1) throw forbidden('Only an admin of the organisation may create, change or delete its workflows.');
}

const projectsAre = (count: number) => `${countOf(count, 'project')} ${count === 1 ? 'is' : 'are'}`;

/** Makes `workflowId` the org's one default: the others lose the flag (and record the change). */
async function makeOnlyDefault(trx: Trx, orgId: number, workflowId: number, now: string): Promise<void> {
  await trx
    .updateTable('workflows')
    .set({ is_default: 0, modified_date: now })
    .where('org_id', '=', orgId)
    .where('id', '!=', workflowId)
    .where('is_default', '=', 1)
    .execute();
}

export async function createWorkflow(context: EngineContext, actor: Actor, input: WorkflowCreate): Promise<WorkflowRow> {
  requireWorkflowAdmin(actor);
  return writeTracked(context, actorScope(actor), async (trx) => {
    const now = nowIso(context.clock);
    const workflow = await trx
      .insertInto('workflows')
      .values({
        org_id: actor.org.id,
        title: input.title,
        description: input.description ?? '',
        is_default: toFlag(input.is_default),
        is_archived: 0,
        created_date: now,
        modified_date: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('workflow_stages')
      .values(STARTER_STAGES.map((stage, position) => ({ workflow_id: workflow.id, title: stage.title, milestone: stage.milestone, position })))
      .execute();
    if (input.is_default) await makeOnlyDefault(trx, actor.org.id, workflow.id, now);
    return workflow;
  });
}

async function projectCountsByStage(trx: Trx, stageIds: readonly number[]): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  if (stageIds.length === 0) return counts;
  const rows = await trx
    .selectFrom('projects')
    .select(['active_stage_id', (builder) => builder.fn.countAll().as('count')])
    .where('active_stage_id', 'in', [...stageIds])
    .groupBy('active_stage_id')
    .execute();
  for (const row of rows) counts.set(row.active_stage_id, Number(row.count));
  return counts;
}

async function projectCountOf(trx: Trx, workflowId: number): Promise<number> {
  const row = await trx.selectFrom('projects').select((builder) => builder.fn.countAll().as('count')).where('workflow_id', '=', workflowId).executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function replaceWorkflow(context: EngineContext, actor: Actor, workflowId: number, input: WorkflowReplace): Promise<WorkflowRow> {
  requireWorkflowAdmin(actor);
  return writeTracked(context, actorScope(actor), async (trx, track) => {
    const workflow = await findWorkflow(trx, actor.org.id, workflowId);
    if (!workflow) throw notFound();
    const existingStages = await trx.selectFrom('workflow_stages').selectAll().where('workflow_id', '=', workflow.id).execute();
    const stagesById = new Map(existingStages.map((stage) => [stage.id, stage]));
    const actionsByStage = await loadStageActions(trx, existingStages.map((stage) => stage.id));
    const projectsAt = await projectCountsByStage(trx, existingStages.map((stage) => stage.id));
    const errors: FieldErrors = {};
    const addError = (field: string, message: string) => (errors[field] ??= []).push(message);

    // Which stages and actions are kept: every id sent must be this workflow's, and sent once.
    const keptStageIds = new Set<number>();
    const keptActionIds = new Set<number>();
    input.workflow_stages.forEach((stage, index) => {
      if (typeof stage.id === 'number') {
        const existing = stagesById.get(stage.id);
        if (!existing) addError('workflow_stages', `workflow_stages[${index}]: stage ${stage.id} is not a stage of this workflow; send a new stage without an id.`);
        else if (keptStageIds.has(stage.id)) addError('workflow_stages', `workflow_stages[${index}]: stage ${stage.id} is sent twice.`);
        else keptStageIds.add(stage.id);
      }
      const stageActions = typeof stage.id === 'number' ? (actionsByStage.get(stage.id) ?? []) : [];
      (stage.actions ?? []).forEach((action, actionIndex) => {
        if (typeof action.id !== 'number') return;
        if (!stageActions.some((candidate) => candidate.id === action.id)) {
          addError('workflow_stages', `workflow_stages[${index}].actions[${actionIndex}]: action ${action.id} is not an action of this stage; add a new one with the id "newAction-N".`);
        } else if (keptActionIds.has(action.id)) addError('workflow_stages', `workflow_stages[${index}].actions[${actionIndex}]: action ${action.id} is sent twice.`);
        else keptActionIds.add(action.id);
      });
    });

    // Projects keep a stage they can be at: a stage with projects stays, and not archived.
    const inUse = (stage: StageRow) => projectsAt.get(stage.id) ?? 0;
    for (const stage of existingStages) {
      if (!keptStageIds.has(stage.id) && inUse(stage) > 0) {
        addError('workflow_stages', `Stage "${stage.title}" (${stage.id}) has ${countOf(inUse(stage), 'project')} at it: move them to another stage first, or keep sending the stage.`);
      }
    }
    input.workflow_stages.forEach((stage) => {
      const existing = typeof stage.id === 'number' ? stagesById.get(stage.id) : undefined;
      if (existing && stage.is_archived === true && existing.is_archived !== 1 && inUse(existing) > 0) {
        addError('workflow_stages', `Stage "${existing.title}" (${existing.id}) has ${countOf(inUse(existing), 'project')} at it and cannot be archived: move them to another stage first.`);
      }
    });
    const archivedAfter = (stage: (typeof input.workflow_stages)[number]) =>
      stage.is_archived ?? (typeof stage.id === 'number' ? stagesById.get(stage.id)?.is_archived === 1 : false);
    if (input.workflow_stages.every(archivedAfter)) addError('workflow_stages', 'A workflow needs at least one stage that is not archived.');

    const isDefault = input.is_default ?? workflow.is_default === 1;
    const isArchived = input.is_archived ?? workflow.is_archived === 1;
    if (workflow.is_default === 1 && !isDefault) {
      addError('is_default', 'The organisation always has one default workflow: make another workflow the default (send it with is_default true) instead.');
    }
    if (isArchived && isDefault) addError('is_archived', 'The default workflow cannot be archived: make another workflow the default first.');
    if (isArchived && workflow.is_archived !== 1) {
      const count = await projectCountOf(trx, workflow.id);
      if (count > 0) addError('is_archived', `${projectsAre(count)} in this workflow: move them to another workflow before archiving it.`);
    }
    if (Object.keys(errors).length > 0) throw validationError(errors);

    // A stage's new milestone is its projects' new `stage`: their change is recorded with this write.
    const now = nowIso(context.clock);
    const movedMilestone = input.workflow_stages.filter((stage) => {
      const existing = typeof stage.id === 'number' ? stagesById.get(stage.id) : undefined;
      return existing !== undefined && existing.milestone !== stage.milestone && inUse(existing) > 0;
    });
    if (movedMilestone.length > 0) {
      const projects = await trx
        .selectFrom('projects')
        .select('id')
        .where('active_stage_id', 'in', movedMilestone.map((stage) => stage.id as number))
        .execute();
      for (const project of projects) await track.project(project.id);
      await trx
        .updateTable('projects')
        .set({ modified_date: now })
        .where('id', 'in', projects.map((project) => project.id))
        .execute();
    }

    const removedStageIds = existingStages.filter((stage) => !keptStageIds.has(stage.id)).map((stage) => stage.id);
    const removedActionIds = [...actionsByStage.values()].flat().filter((action) => !keptActionIds.has(action.id)).map((action) => action.id);
    if (removedActionIds.length > 0) await trx.deleteFrom('workflow_actions').where('id', 'in', removedActionIds).execute();
    if (removedStageIds.length > 0) await trx.deleteFrom('workflow_stages').where('id', 'in', removedStageIds).execute();

    for (const [index, stage] of input.workflow_stages.entries()) {
      const values = {
        title: stage.title,
        milestone: stage.milestone,
        position: stage.order ?? index,
        is_archived: archivedAfter(stage) ? (1 as const) : (0 as const),
      };
      let stageId: number;
      if (typeof stage.id === 'number') {
        stageId = stage.id;
        await trx.updateTable('workflow_stages').set(values).where('id', '=', stageId).execute();
      } else {
        stageId = (await trx.insertInto('workflow_stages').values({ workflow_id: workflow.id, ...values }).returning('id').executeTakeFirstOrThrow()).id;
      }
      for (const [position, action] of (stage.actions ?? []).entries()) {
        if (typeof action.id === 'number') await trx.updateTable('workflow_actions').set({ title: action.title, position }).where('id', '=', action.id).execute();
        else await trx.insertInto('workflow_actions').values({ stage_id: stageId, title: action.title, position }).execute();
      }
    }

    const updated = await trx
      .updateTable('workflows')
      .set({
        title: input.title,
        description: input.description ?? workflow.description,
        is_default: toFlag(isDefault),
        is_archived: toFlag(isArchived),
        modified_date: now,
      })
      .where('id', '=', workflow.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (isDefault && workflow.is_default !== 1) await makeOnlyDefault(trx, actor.org.id, workflow.id, now);
    return updated;
  });
}

export async function deleteWorkflow(context: EngineContext, actor: Actor, workflowId: number): Promise<void> {
  requireWorkflowAdmin(actor);
  await writeTracked(context, actorScope(actor), async (trx) => {
    const workflow = await findWorkflow(trx, actor.org.id, workflowId);
    if (!workflow) throw notFound();
    if (workflow.is_default === 1) throw validationError({ non_field_errors: ['The default workflow cannot be deleted: make another workflow the default first.'] });
    const count = await projectCountOf(trx, workflow.id);
    if (count > 0) {
      throw validationError({ non_field_errors: [`${projectsAre(count)} in this workflow: move them to another workflow before deleting it.`] });
    }
    const stageIds = (await trx.selectFrom('workflow_stages').select('id').where('workflow_id', '=', workflow.id).execute()).map((stage) => stage.id);
    if (stageIds.length > 0) {
      await trx.deleteFrom('workflow_actions').where('stage_id', 'in', stageIds).execute();
      await trx.deleteFrom('workflow_stages').where('id', 'in', stageIds).execute();
    }
    await trx.deleteFrom('workflows').where('id', '=', workflow.id).execute();
  });
}
