// The soak's settling (soak.hardening.ts): once the chaos is over, everything is
// resumed and sync is waited for, bounded, and each replica is compared with the
// remote as its user sees it, apart from what is legitimately held.
import { apiPaths, syncPaths } from '../../shared/api-paths.ts';
import { sameJson } from '../../shared/webhook-fields.ts';
import type { SyncedModel } from '../sync/sync-models.ts';
import { viewOf } from '../sync/models/index.ts';
import { WAITS_FOR_CONFLICT_REASON } from '../sync/sync-routes.ts';
import type { DemoUser, RawResponse } from './hardening-server.ts';
import type { AgentName, AgentSlot, OpenConflict, PendingRow } from './soak-ledger.ts';

/** The org the soak works in (Sunrise Solar). */
export const ORG = 1;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What settling needs of the soak's running processes. */
export interface SoakWorld {
  agents: Record<AgentName, AgentSlot>;
  /** Waits for restarts under way, and starts whatever is down. */
  everythingRunning(): Promise<void>;
  localRequest(slot: AgentSlot, method: string, urlPath: string, body?: unknown): Promise<RawResponse | null>;
  remoteRequest(user: DemoUser, method: string, urlPath: string, body?: unknown): Promise<RawResponse | null>;
  agentJson<T>(slot: AgentSlot, urlPath: string): Promise<T>;
  /** The projects the chaos edits that this agent's user sees. */
  projectsOf(slot: AgentSlot): number[];
  happened(what: string): void;
}

export const ok = (response: RawResponse | null): response is RawResponse => response !== null && response.status >= 200 && response.status < 300;
export const describeAnswer = (response: RawResponse | null) => (response ? `${response.status} ${response.text.slice(0, 200)}` : 'no answer');

export async function listAll(get: (urlPath: string) => Promise<RawResponse | null>, listPath: string): Promise<Array<Record<string, unknown>>> {
  // Projects in the studio fieldset, which carries notes and most fields the list leaves out.
  const response = await get(`${listPath}?limit=1000${listPath === apiPaths.projects(ORG) ? '&fieldset=studio' : ''}`);
  if (!ok(response) || !Array.isArray(response.json)) throw new Error(`GET ${listPath}: ${describeAnswer(response)}`);
  return response.json;
}

export async function detail(get: (urlPath: string) => Promise<RawResponse | null>, urlPath: string): Promise<Record<string, unknown>> {
  const response = await get(urlPath);
  if (!ok(response)) throw new Error(`GET ${urlPath}: ${describeAnswer(response)}`);
  return response.json;
}


const isMoving = (row: PendingRow) => row.status !== 'parked' && row.status !== 'held' && row.reason !== WAITS_FOR_CONFLICT_REASON;

/** Differences between one replica and the remote as its user sees it, skipping what is legitimately held. */
async function replicaDiff(world: SoakWorld, slot: AgentSlot, conflicts: OpenConflict[], pending: PendingRow[]): Promise<string[]> {
  const diffs: string[] = [];
  const conflicted = new Set(conflicts.filter((c) => c.agent === slot.name).map((c) => `${c.model}:${c.record_id}:${c.field}`));
  const held = new Set<string>();
  for (const row of pending.filter((r) => r.status === 'parked' || r.status === 'held')) {
    if (row.op !== 'update') held.add(`${row.model}:${row.record_id}:*`);
    for (const field of row.fields) held.add(`${row.model}:${row.record_id}:${field}`);
  }
  const lists: Array<[SyncedModel, string]> = [['project', apiPaths.projects(ORG)], ['contact', apiPaths.contacts(ORG)], ['private_file', apiPaths.privateFiles(ORG)]];
  for (const [model, listPath] of lists) {
    const remoteGet = (urlPath: string) => world.remoteRequest(slot.user, 'GET', urlPath);
    const localGet = (urlPath: string) => world.localRequest(slot, 'GET', urlPath);
    const remote = new Map((await listAll(remoteGet, listPath)).map((row) => [Number(row.id), viewOf(model, row)]));
    const local = new Map((await listAll(localGet, listPath)).map((row) => [Number(row.id), viewOf(model, row)]));
    if (model === 'project') {
      // The projects the chaos edits are compared in full, as their detail shows them.
      for (const id of world.projectsOf(slot)) {
        remote.set(id, viewOf(model, await detail(remoteGet, apiPaths.project(ORG, id))));
        local.set(id, viewOf(model, await detail(localGet, apiPaths.project(ORG, id))));
      }
    }
    for (const id of new Set([...remote.keys(), ...local.keys()])) {
      if (held.has(`${model}:${id}:*`)) continue;
      const [want, got] = [remote.get(id), local.get(id)];
      if (!want || !got) {
        diffs.push(`${model} ${id}: ${want ? `on the remote (${JSON.stringify(want).slice(0, 160)}) but not in agent ${slot.name}'s replica` : `in agent ${slot.name}'s replica (${JSON.stringify(got).slice(0, 160)}) but not on the remote`}`);
        continue;
      }
      for (const field of Object.keys(want)) {
        const key = `${model}:${id}:${field}`;
        if (conflicted.has(key) || held.has(key) || sameJson(want[field], got[field])) continue;
        diffs.push(`${model} ${id} ${field}: remote ${JSON.stringify(want[field])}, agent ${slot.name}'s replica ${JSON.stringify(got[field])}`);
      }
    }
  }
  return diffs;
}

/**
 * An agent polling every second is often mid-cycle, and each cycle asks its watcher
 * to reconcile: it counts as idle and quiet when it is so in one of a few samples.
 */
async function idleAtSomePoint(world: SoakWorld, slot: AgentSlot): Promise<{ state: string; folderQuiet: boolean; busyFiles: string }> {
  let state = '';
  let folderQuiet = false;
  let busyFiles = '';
  for (let sample = 0; sample < 8 && (state !== 'idle' || !folderQuiet); sample++) {
    if (sample > 0) await sleep(150);
    const status = await world.agentJson<{ state: string }>(slot, syncPaths.status(ORG));
    const folder = await world.agentJson<{ quiet: boolean; files: Array<{ path: string; state: string; reason: string }> }>(slot, syncPaths.folder(ORG));
    if (state !== 'idle') state = status.state;
    folderQuiet ||= folder.quiet;
    busyFiles = folder.files.filter((file) => file.state !== 'delete_held').map((file) => `${file.path} ${file.state}: ${file.reason}`).join('; ');
  }
  return { state, folderQuiet, busyFiles };
}

/** Where sync stood when it settled (or the settle time ran out), and the last round in words. */
export interface Settled { conflicts: OpenConflict[]; pending: Record<AgentName, PendingRow[]>; diffs: string[]; report: string }

/** Resumes everything and waits, bounded by `settleMs`, until both world.agents are idle, quiet and equal to the remote twice in a row. */
export async function settle(world: SoakWorld, settleMs: number): Promise<Settled> {
  const deadline = Date.now() + settleMs;
  let report = '';
  let last: Omit<Settled, 'report'> = { conflicts: [], pending: { A: [], B: [] }, diffs: ['never compared'] };
  let quietRounds = 0;
  world.happened('chaos over: settling');
  for (let round = 1; ; round++) {
    await world.everythingRunning();
    for (const slot of Object.values(world.agents)) {
      if ((await world.localRequest(slot, 'POST', syncPaths.resume(ORG)))?.status === 200) slot.paused = false;
    }
    await sleep(1500);
    try {
      const names = ['A', 'B'] as const;
      const pending = { A: await world.agentJson<PendingRow[]>(world.agents.A, syncPaths.pending(ORG)), B: await world.agentJson<PendingRow[]>(world.agents.B, syncPaths.pending(ORG)) };
      const idle = await Promise.all(names.map((name) => idleAtSomePoint(world, world.agents[name])));
      const folderQuiet = idle.map((sample) => sample.folderQuiet);
      const states = idle.map((sample) => sample.state);
      const conflicts = (await Promise.all(names.map(async (name) => (await world.agentJson<Array<Omit<OpenConflict, 'agent'>>>(world.agents[name], syncPaths.conflicts(ORG))).map((c) => ({ ...c, agent: name }))))).flat();
      const diffs = [...(await replicaDiff(world, world.agents.A, conflicts, pending.A)), ...(await replicaDiff(world, world.agents.B, conflicts, pending.B))];
      last = { conflicts, pending, diffs };
      const moving = names.map((name) => pending[name].filter(isMoving).length);
      report = `round ${round}: states ${states.join('/')}, changes still moving ${moving.join('/')}, folders quiet ${folderQuiet.join('/')}${idle.map((sample, index) => (sample.busyFiles ? ` (agent ${names[index]}'s folder: ${sample.busyFiles})` : '')).join('')}, ${diffs.length} differences`;
      // Converged only when nothing moves and the comparison holds twice in a row (a pull may still have been on its way).
      quietRounds = moving.every((n) => n === 0) && folderQuiet.every(Boolean) && states.every((s) => s === 'idle') && diffs.length === 0 ? quietRounds + 1 : 0;
      if (quietRounds >= 2) return { ...last, report };
    } catch (error) {
      report = `round ${round}: ${(error as Error).message}`;
    }
    if (Date.now() > deadline) return { ...last, report };
  }
}
