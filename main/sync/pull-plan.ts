// The budgeted pull (docs/sync.md "Budget"): change detection that costs almost
// nothing when nothing changed. A timed poll asks the remote for one row of the
// project list ordered by -modified_date and walks further only when that row
// moved; private files are looked up per project, only for projects that changed
// or that someone opened, plus a one-row probe and a slow sweep as the budget
// allows; contacts are probed like projects; the small lists (workflows, roles,
// file tags, webhooks) are read on a slow schedule or when projects changed.
//
// Each step's requests carry the pull's class. In a background pull a step the
// budget cannot pay for now ends with BudgetWaitError (quota-pacer.ts): the step is
// left for a later poll and listed as waiting, with when it may go. Work left
// half-done is safe to leave: marks only move after a walk read through.
import { apiPaths } from '../../shared/api-paths.ts';
import { BudgetWaitError } from './quota-pacer.ts';
import { listedId, readRemote, readRemoteList } from './remote-records.ts';
import { type SyncContext, remotePath } from './sync-context.ts';
import {
  type PlannedStep,
  isFilesSweepDue,
  isSweepDue,
  lastDoneAt,
  lastProbe,
  movedTop,
  projectsWithFilesDue,
  setFilesSweepDue,
  setLastDoneAt,
  setLastProbe,
  setMovedTop,
  setProjectsWithFilesDue,
  setSweepDue,
} from './sync-state.ts';
import { SYNC_MODELS, syncModel } from './models/index.ts';
import {
  LIST_QUERY,
  SMALL_LISTS,
  SWEEP_PAGE,
  type PagedModel,
  asListed,
  getRemoteJson,
  mergeRemote,
  projectDetailOf,
  pullChanged,
  pullIfNewer,
  pullSmallList,
  removeMissing,
  sweepModel,
  walkList,
} from './pull.ts';

/** The small lists are read again after this long, or when projects changed. */
export const SMALL_LISTS_EVERY_MS = 6 * 60 * 60_000;
/** Projects and contacts are swept for deletions this often (cheap: one page per 1,000 records). */
export const SWEEP_EVERY_MS = 60 * 60_000;
/** Private files are swept this often, within the budget (the org's file quota is small). */
export const FILES_SWEEP_EVERY_MS = 6 * 60 * 60_000;

/** What a pull is asked to look at besides the changes: projects someone opened (their record and files). `changed`: skip the probe, something changed (a push hint). */
export interface PullScope {
  projectIds?: readonly number[];
  changed?: boolean;
}

/** Work a background pull left because the budget could not pay for it yet. */
export interface BudgetWait {
  bucket: string;
  what: string;
  /** When it may go (ISO). */
  may_go_at: string;
}

export interface PlannedPullResult {
  changed: number;
  waiting: BudgetWait[];
  /** Whether any request was answered (a background pull with no budget sends none). */
  reachedRemote: boolean;
}

class YieldToUser extends Error {}

/** Project ids whose private files are due a lookup (they changed, or the lookup waits for budget). */
export async function filesDue(sync: SyncContext): Promise<number[]> {
  return projectsWithFilesDue(sync.db);
}

async function setFilesDue(sync: SyncContext, ids: Iterable<number>): Promise<void> {
  await setProjectsWithFilesDue(sync.db, ids);
}

async function isDue(sync: SyncContext, what: PlannedStep, everyMs: number): Promise<boolean> {
  const last = await lastDoneAt(sync.db, what);
  return !last || sync.clock.now().getTime() - Date.parse(last) >= everyMs;
}

async function markDone(sync: SyncContext, what: PlannedStep): Promise<void> {
  await setLastDoneAt(sync.db, what, sync.clock.now().toISOString());
}

/** What a walk of a list's changes found (pullChanged). */
type Walked = Awaited<ReturnType<typeof pullChanged>>;

/** One row of a list, newest first: its id and version, or null when the list is empty or refused. */
async function probe(sync: SyncContext, model: PagedModel): Promise<string | null> {
  const rows = await getRemoteJson(sync, remotePath(sync, model), { ordering: '-modified_date', ...LIST_QUERY[model], limit: 1, page: 1 }, syncModel(model).quota.list);
  if (!Array.isArray(rows) || rows.length === 0) return null;
  const row = rows[0] as { modified_date?: unknown };
  return `${String(listedId(row))}@${String(row.modified_date ?? '')}`;
}

/**
 * A project's record and private files, read afresh: what a person opening it
 * waits for, and what a project that changed elsewhere gets. Files the remote no
 * longer lists for the project leave the replica (unless changes to them wait).
 */
export async function refreshProjectFiles(sync: SyncContext, projectId: number): Promise<{ changed: number; complete: boolean }> {
  const listed = new Map<number, ReturnType<typeof readRemoteList<'private_file'>>[number]>();
  const listedIds = new Set<number>();
  const { outcome } = await walkList(
    sync,
    { path: apiPaths.privateFiles(sync.orgId), query: { project: String(projectId), ordering: 'created_date' }, action: SYNC_MODELS.private_file.quota.list, pageSize: sync.pullPageSize ?? SWEEP_PAGE },
    async (items, page) => {
      if (page === 1) {
        listed.clear();
        listedIds.clear();
      }
      for (const item of items) {
        const id = listedId(item);
        if (typeof id === 'number') listedIds.add(id);
      }
      for (const record of readRemoteList(sync.unreadable, 'private_file', items)) listed.set(record.id, record);
      return 'more';
    },
  );
  if (outcome === 'refused') return { changed: 0, complete: true };
  let changed = 0;
  for (const item of listed.values()) changed += await pullIfNewer(sync, 'private_file', item, asListed);
  if (outcome === 'complete') {
    const here = await sync.db.selectFrom('private_files').select('id').where('org_id', '=', sync.orgId).where('project_id', '=', projectId).execute();
    changed += await removeMissing(sync, 'private_file', listedIds, new Set(here.map((row) => row.id)));
  }
  return { changed, complete: outcome === 'complete' };
}

async function refreshProject(sync: SyncContext, projectId: number): Promise<number> {
  const detail = await getRemoteJson(sync, remotePath(sync, 'project', projectId), {}, SYNC_MODELS.project.quota.detail);
  let changed = 0;
  if (detail !== null && !Array.isArray(detail)) {
    const project = readRemote(sync.unreadable, 'project', detail);
    if (project) changed += await mergeRemote(sync, 'project', project);
  }
  return changed + (await refreshProjectFiles(sync, projectId)).changed;
}

/**
 * The budgeted pull. In priority order: projects asked for (`scope`), the project
 * probe and the changes it found, the file lookups of changed projects, the
 * contact probe, the small lists when due, the deletion sweeps when due, and the
 * one-row private-file probe. With `requestClass: 'background'` each step goes
 * only as far as the budget pays; with `user` the pacer paces it as user work.
 */
export async function pullPlanned(sync: SyncContext, scope: PullScope = {}): Promise<PlannedPullResult> {
  const waiting = new Map<string, BudgetWait>();
  const waitingBuckets = new Set<string>();
  let changed = 0;
  const sentBefore = totalSent(sync);
  /** Runs one step; a step the budget cannot pay for is listed as waiting, and its bucket is not tried again in this pull. */
  const step = async <T>(what: string, buckets: readonly string[], run: () => Promise<T>): Promise<T | undefined> => {
    if (sync.shouldYield?.()) throw new YieldToUser();
    const blocked = buckets.find((bucket) => waitingBuckets.has(bucket));
    if (blocked) {
      const earlier = [...waiting.values()].find((wait) => wait.bucket === blocked);
      waiting.set(what, { bucket: blocked, what, may_go_at: earlier?.may_go_at ?? sync.clock.now().toISOString() });
      return undefined;
    }
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof BudgetWaitError)) throw error;
      waitingBuckets.add(error.bucket);
      waiting.set(what, { bucket: error.bucket, what, may_go_at: new Date(error.mayGoAt).toISOString() });
      return undefined;
    }
  };
  /**
   * The list's one-row probe (or what an earlier probe saw move), then its walk when it
   * moved; the walk's result, or undefined when none ran. A move the budget could not
   * walk is kept, and the next pull walks it without probing again: a budget that earns
   * one request at a time gave each to the probe and none to the walk, and a change it
   * found never came down (seen polling at 2 % of the default quota every 2 s).
   */
  const walkIfMoved = async (
    model: PagedModel,
    what: string,
    probeBuckets: readonly string[],
    walkBuckets: readonly string[],
    walk: () => Promise<Walked>,
    { walkOnHint = true } = {},
  ): Promise<Walked | undefined> => {
    const kept = await movedTop(sync.db, model);
    const top = kept ?? (await step(`checking ${what} for changes`, probeBuckets, () => probe(sync, model)));
    if (top === undefined || !((walkOnHint && scope.changed) || top !== (await lastProbe(sync.db, model)))) return undefined;
    const walked = await step(`pulling changed ${what}`, walkBuckets, walk);
    if (!walked) {
      if (kept === undefined && top !== null) await setMovedTop(sync.db, model, top);
      return undefined;
    }
    if (kept !== undefined) await setMovedTop(sync.db, model, null);
    if (walked.read && top !== null) await setLastProbe(sync.db, model, top);
    return walked;
  };
  const pacer = sync.remote.pacer;
  const files = pacer.bucketKey(SYNC_MODELS.private_file.quota.list);
  const lists = pacer.bucketKey('default');
  const details = pacer.bucketKey(SYNC_MODELS.project.quota.detail);
  try {
    // 1. Projects someone opened or a hint named: their record and files.
    for (const projectId of scope.projectIds ?? []) {
      const result = await step(`project ${projectId} and its files`, [details, files], () => refreshProject(sync, projectId));
      if (result !== undefined) changed += result;
      else await setFilesDue(sync, [...(await filesDue(sync)), projectId]);
    }

    // 2. Projects: one row, and the walk only when it moved.
    let projectsMoved = false;
    const newer: number[] = [];
    const projectWalk = await walkIfMoved('project', 'projects', [lists], [lists, details], () => pullChanged(sync, 'project', projectDetailOf(sync), (id) => newer.push(id)));
    // Files of a project that changed may have changed with it: looked up next, as the budget allows.
    if (newer.length) await setFilesDue(sync, [...(await filesDue(sync)), ...newer]);
    if (projectWalk) {
      changed += projectWalk.changed;
      projectsMoved = true;
      if (projectWalk.shifted) await setSweepDue(sync.db, true);
    }

    // 3. Private files of the projects that changed, one list each.
    const due = await filesDue(sync);
    const left: number[] = [];
    for (const projectId of due) {
      const result = waitingBuckets.has(files) ? undefined : await step(`files of project ${projectId}`, [files], () => refreshProjectFiles(sync, projectId));
      if (result === undefined) left.push(projectId);
      else changed += result.changed;
    }
    if (left.length) waiting.set('files of changed projects', { bucket: files, what: `files of ${left.length} changed project${left.length === 1 ? '' : 's'}`, may_go_at: waiting.get(`files of project ${left[0]}`)?.may_go_at ?? sync.clock.now().toISOString() });
    for (const projectId of left) waiting.delete(`files of project ${projectId}`);
    if (left.length !== due.length) await setFilesDue(sync, left);

    // 4. Contacts, the same way.
    const contactWalk = await walkIfMoved('contact', 'contacts', [lists], [lists], () => pullChanged(sync, 'contact', asListed));
    if (contactWalk) {
      changed += contactWalk.changed;
      if (contactWalk.shifted) await setSweepDue(sync.db, true);
    }

    // 5. The small lists: on a slow schedule, or when projects changed (a stage, a role may have come with it).
    if (projectsMoved || scope.changed || (await isDue(sync, 'small_lists', SMALL_LISTS_EVERY_MS))) {
      let complete = true;
      for (const list of SMALL_LISTS) {
        const result = await step(`reading ${list.replace('_', ' ')}s`, [lists], () => pullSmallList(sync, list));
        if (!result?.complete) complete = false;
        else changed += result.changed;
      }
      if (complete) await markDone(sync, 'small_lists');
    }

    // 6. Deletions: projects, contacts and webhooks hourly; files every few hours.
    if ((await isSweepDue(sync.db)) || (await isDue(sync, 'sweep', SWEEP_EVERY_MS))) {
      const projects = await step('sweeping projects for deletions', [lists, details], () => sweepModel(sync, 'project', projectDetailOf(sync)));
      const contacts = await step('sweeping contacts for deletions', [lists], () => sweepModel(sync, 'contact', asListed));
      const webhooks = await step('sweeping webhooks for deletions', [lists], () => pullSmallList(sync, 'webhook', true));
      changed += (projects?.changed ?? 0) + (contacts?.changed ?? 0) + (webhooks?.changed ?? 0);
      if (projects?.complete && contacts?.complete && webhooks?.complete) {
        await markDone(sync, 'sweep');
        await setSweepDue(sync.db, false);
      }
    }
    const filesSweepDue = (await isFilesSweepDue(sync.db)) || (await isDue(sync, 'files_sweep', FILES_SWEEP_EVERY_MS));
    if (filesSweepDue) {
      const swept = await step('sweeping private files for deletions', [files], () => sweepModel(sync, 'private_file', asListed));
      if (swept) changed += swept.changed;
      if (swept?.complete) {
        await markDone(sync, 'files_sweep');
        await setFilesSweepDue(sync.db, false);
      } else if (swept) await setFilesSweepDue(sync.db, true);
    }

    // 7. A file added to a project that did not change: one row of the file list, when the budget has one to spare (a due sweep saves up first).
    if (!filesSweepDue || !waitingBuckets.has(files)) {
      // A hint walks projects and contacts even when their probes did not move; files only when theirs did (a hint's files come with their project).
      const fileWalk = await walkIfMoved('private_file', 'private files', [files], [files], () => pullChanged(sync, 'private_file', asListed), { walkOnHint: false });
      if (fileWalk) {
        changed += fileWalk.changed;
        if (fileWalk.shifted) await setFilesSweepDue(sync.db, true);
      }
    }
  } catch (error) {
    if (!(error instanceof YieldToUser)) throw error;
  }
  return { changed, waiting: [...waiting.values()], reachedRemote: totalSent(sync) > sentBefore };
}

function totalSent(sync: SyncContext): number {
  let total = 0;
  for (const count of sync.remote.sent.values()) total += count;
  return total;
}
