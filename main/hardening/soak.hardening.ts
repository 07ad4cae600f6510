// Soak (issue 19): a real `solardesk server` and two real `solardesk agent`
// processes (the admin and the member of Sunrise Solar, each with its own data
// folder and project-folder root) under seeded random chaos for SOAK_SECONDS
// (default 70): local edits through each agent's local API, remote edits through
// the server's API, file title renames, files dropped into project folders (some
// with the same bytes on both computers), in-folder renames and deletes, pauses
// and resumes of sync, conflict resolutions, symlink tricks that point outside the
// folders, and SIGKILLs of every process (each restarted after a short random time
// on the same data folder and port). Then everything is resumed, sync settles
// (bounded), nothing is resolved automatically, and:
//
// 1. Every acknowledged write of a project's notes is the remote's final value, or
//    appears in an open conflict of either agent, or was superseded (below).
// 2. Both replicas equal the remote as their user sees it (projects, contacts,
//    private files metadata), apart from fields in open conflicts and changes
//    legitimately held (held deletes, parked changes: reported).
// 3. No file on the server holds the secret planted outside the folders.
// 4. One remote file per contents per project (the same bytes dropped on both
//    computers are one file, as docs/project-folders.md promises for one computer),
//    apart from copies whose delete an agent holds for the user to confirm.
// 5. The server's store passes integrity_check and foreign_key_check.
//
// What "superseded" means. The remote's own record of the order in which writes
// reached it is its change log: a webhook subscribed to `project.notes` makes the
// server queue, in each write's own transaction, a delivery naming the new value
// (webhook_changes ids are the commit order). Every value written is unique and
// names its writer, so each log entry is attributed. A write W is superseded when
// the log entry that follows W's value for that field is a write W' that was
// allowed to replace it:
//   - a direct API write (the harness as admin or member, acknowledged or cut off
//     by a kill) replaces whatever is there: plain clients write last-wins;
//   - an agent's pushed write Z replaces the previous value Y only if that agent
//     knew Y: Y is the agent's own write, or the value its local API showed just
//     before Z was written, or the remote side of a conflict it resolved, or Y
//     reached the remote before Z's local write was answered while the agent was
//     running and not paused (a pull may have brought Y between that read and the
//     write: lenient, so a failure here is never a race of the harness). Knowledge
//     carries through the agent's own unpushed writes of the field: when what Z's
//     local API showed was an earlier local write W of the same agent to the same
//     field whose value never reached the remote (sync coalesced W into Z's push),
//     Z knew whatever W knew, by these same rules, applied to W. Only that chain
//     counts: a value of the agent's that did reach the remote, or anyone else's,
//     carries nothing. Anything else is a lost update: the agent overwrote a value
//     it never saw, and a conflict was due.
// A local write whose value never reached the remote is superseded by a later
// acknowledged write of the same agent to the same field (sync coalesces them), or
// withdrawn by the user resolving that field's conflict as "remote". File titles
// have no change log (private files are no webhook model), so their rule is the
// weaker one: final, in an open conflict, or followed by a later-acknowledged write
// or in-folder rename of that file by anyone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { DEMO_PASSWORD, DEMO_USERS } from '../engine/seed/demo-seed.ts';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { filesBelow } from '../engine/testing/file-testing.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../engine/testing/webhook-receiver.ts';
import { killAgent, startAgentProcess, type AgentProcess } from '../sync/testing/agent-process.ts';
import { viewOf, type SyncedModel } from '../sync/sync-models.ts';
import { WAITS_FOR_CONFLICT_REASON } from '../sync/sync-routes.ts';
import { folderOfProject, waitFor } from '../watch/testing/folder-testing.ts';
import { apiPaths, parseOrgReference, syncPaths } from '../../shared/api-paths.ts';
import { sameJson } from '../../shared/webhook-fields.ts';
import { NO_QUOTAS, jsonRequest, sendRaw, startHardeningServer, type DemoUser, type HardeningServer, type RawResponse } from './hardening-server.ts';
import { StoreInspector } from './store-inspector.ts';
import { newTally, reportTally, runSeed, seededRandom } from './summary.ts';

const ORG = 1;
const SOAK_SECONDS = Number(process.env.SOAK_SECONDS) > 0 ? Number(process.env.SOAK_SECONDS) : 70;
const MAX_OPERATIONS = 1500;
const SETTLE_MS = 60_000;
const STABILITY_WINDOW_MS = 400;
const REQUEST_TIMEOUT_MS = 15_000;
const seed = runSeed();
const { random, between } = seededRandom(seed);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const tally = newTally('soak');
const started = Date.now();
const elapsed = () => Date.now() - started;
const seconds = (ms: number | null) => (ms === null ? 'never' : `${(ms / 1000).toFixed(2)} s`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type AgentName = 'A' | 'B';
type Field = 'notes' | 'title';
type Model = Extract<SyncedModel, 'project' | 'private_file'>;

interface Write {
  model: Model;
  recordId: number;
  field: Field;
  value: string;
  /** "agent A", "remote admin"... */
  who: string;
  agent: AgentName | null;
  via: 'local' | 'remote' | 'resolve' | 'folder';
  sentAt: number;
  /** When the 2xx came back (ms since start); null when it did not. */
  ackedAt: number | null;
  /** For an agent's write: the value its local API showed just before. */
  seen?: unknown;
  /** For an agent's write: whether it was running and not paused then. */
  writerLive?: boolean;
}

interface Resolution {
  agent: AgentName;
  model: string;
  recordId: number;
  field: string;
  choice: 'local' | 'remote' | 'value';
  remoteValue: unknown;
  at: number;
}

interface AgentSlot {
  name: AgentName;
  user: DemoUser;
  dataDir: string;
  folder: string;
  port: number;
  process: AgentProcess | null;
  restarting: Promise<void> | null;
  paused: boolean;
}

const writes: Write[] = [];
/** What happened to the processes and to conflicts, and when: printed beside each loss. */
const timeline: Array<{ at: number; what: string; recordId?: number }> = [];
const happened = (what: string, recordId?: number) => timeline.push({ at: elapsed(), what, recordId });
/** Seen at once after a resolution: its "local" value replaced a later local edit. */
const resolveProblems: string[] = [];
const resolutions: Resolution[] = [];
const counts: Record<string, number> = {};
const count = (what: string) => (counts[what] = (counts[what] ?? 0) + 1);

let workDir: string;
let ratesFile: string;
let secret: string;
let secretFile: string;
let receiver: WebhookReceiver;
let serverDataDir: string;
let serverPort = 0;
let server: HardeningServer | null = null;
let serverRestarting: Promise<void> | null = null;
const remoteTokens = new Map<DemoUser, string>();
const agents: Record<AgentName, AgentSlot> = {} as Record<AgentName, AgentSlot>;
/** Projects both users see (member-visible), and one only the admin sees. */
let sharedProjects: number[] = [];
let adminOnlyProject = 0;
const initialNotes = new Map<number, string>();
let settleReport = '';

// ---------- processes ----------

function startServer(): Promise<HardeningServer> {
  return startHardeningServer({ dataDir: serverDataDir, port: serverPort, throttleRates: NO_QUOTAS, extraArgs: ['--allow-private-webhook-endpoints'] });
}

function agentArgs(slot: AgentSlot): string[] {
  return ['--data', slot.dataDir, '--folder', slot.folder, '--local-api-port', String(slot.port), '--poll-interval', '1',
    '--stability-window-ms', String(STABILITY_WINDOW_MS), '--remote-throttle-config', ratesFile];
}

async function startAgent(slot: AgentSlot, firstStart: boolean): Promise<void> {
  const args = agentArgs(slot);
  const agent = firstStart
    ? await startAgentProcess([...args, '--remote', `http://127.0.0.1:${serverPort}`, '--username', DEMO_USERS[slot.user], '--password-stdin'], `${DEMO_PASSWORD}\n`)
    : await startAgentProcess(args);
  slot.port = Number(new URL(agent.localApiUrl).port);
  slot.process = agent;
}

const serverUp = () => server !== null && server.alive();
const agentUp = (slot: AgentSlot) => slot.process !== null && slot.process.child.exitCode === null && slot.process.child.signalCode === null;

/** Restarts after `delayMs`, retrying a failed start (a port not yet free) a few times before giving up loudly. */
async function restartLater(what: string, delayMs: number, start: () => Promise<void>): Promise<void> {
  await sleep(delayMs);
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= 4) throw new Error(`${what} did not restart: ${(error as Error).message}`);
      await sleep(500);
    }
  }
}

async function killServer(): Promise<void> {
  const victim = server!;
  server = null;
  await victim.stop('SIGKILL');
  happened('server SIGKILLed');
  serverRestarting = restartLater('the server', between(300, 2500), async () => {
    server = await startServer();
    happened('server restarted');
  }).finally(() => (serverRestarting = null));
}

async function killAgentSlot(slot: AgentSlot): Promise<void> {
  const victim = slot.process!;
  slot.process = null;
  await killAgent(victim, 'SIGKILL');
  happened(`agent ${slot.name} SIGKILLed`);
  slot.restarting = restartLater(`agent ${slot.name}`, between(300, 2500), async () => {
    await startAgent(slot, false);
    happened(`agent ${slot.name} restarted`);
  }).finally(() => (slot.restarting = null));
}

// ---------- requests ----------

async function remoteRequest(user: DemoUser, method: string, urlPath: string, body?: unknown): Promise<RawResponse | null> {
  if (!serverUp()) return null;
  try {
    return await sendRaw(serverPort, { ...jsonRequest(method, urlPath, body, remoteTokens.get(user)), timeoutMs: REQUEST_TIMEOUT_MS });
  } catch {
    return null; // killed mid-request: unacknowledged
  }
}

async function localRequest(slot: AgentSlot, method: string, urlPath: string, body?: unknown): Promise<RawResponse | null> {
  const agent = slot.process;
  if (!agent || !agentUp(slot)) return null;
  try {
    return await sendRaw(slot.port, { ...jsonRequest(method, urlPath, body, agent.token), timeoutMs: REQUEST_TIMEOUT_MS });
  } catch {
    return null;
  }
}

const ok = (response: RawResponse | null): response is RawResponse => response !== null && response.status >= 200 && response.status < 300;
const describeAnswer = (response: RawResponse | null) => (response ? `${response.status} ${response.text.slice(0, 200)}` : 'no answer');

async function listAll(get: (urlPath: string) => Promise<RawResponse | null>, listPath: string): Promise<Array<Record<string, unknown>>> {
  // Projects in the studio fieldset, which carries notes and most fields the list leaves out.
  const response = await get(`${listPath}?limit=1000${listPath === apiPaths.projects(ORG) ? '&fieldset=studio' : ''}`);
  if (!ok(response) || !Array.isArray(response.json)) throw new Error(`GET ${listPath}: ${describeAnswer(response)}`);
  return response.json;
}

async function detail(get: (urlPath: string) => Promise<RawResponse | null>, urlPath: string): Promise<Record<string, unknown>> {
  const response = await get(urlPath);
  if (!ok(response)) throw new Error(`GET ${urlPath}: ${describeAnswer(response)}`);
  return response.json;
}

// ---------- operations ----------

let valueCounter = 0;
const nextValue = (prefix: string) => `${prefix}#${++valueCounter}`;
const projectsOf = (slot: AgentSlot) => (slot.user === 'sunriseAdmin' ? [...sharedProjects, adminOnlyProject] : sharedProjects);

async function localEdit(slot: AgentSlot, model: Model, recordId: number, field: Field, value: string): Promise<void> {
  const urlPath = model === 'project' ? apiPaths.project(ORG, recordId) : apiPaths.privateFile(ORG, recordId);
  const sentAt = elapsed();
  const before = await localRequest(slot, 'GET', urlPath);
  if (!ok(before)) return;
  const write: Write = { model, recordId, field, value, who: `agent ${slot.name}`, agent: slot.name, via: 'local', sentAt, ackedAt: null, seen: before.json[field], writerLive: !slot.paused };
  writes.push(write);
  const answer = await localRequest(slot, 'PATCH', urlPath, { [field]: value });
  if (ok(answer)) write.ackedAt = elapsed();
  count(`local ${field} edits`);
}

async function remoteEdit(user: DemoUser, model: Model, recordId: number, field: Field, value: string): Promise<void> {
  const urlPath = model === 'project' ? apiPaths.project(ORG, recordId) : apiPaths.privateFile(ORG, recordId);
  const write: Write = { model, recordId, field, value, who: `remote ${user}`, agent: null, via: 'remote', sentAt: elapsed(), ackedAt: null };
  writes.push(write);
  const answer = await remoteRequest(user, 'PATCH', urlPath, { [field]: value });
  if (ok(answer)) write.ackedAt = elapsed();
  count(`remote ${field} edits`);
}

async function someFile(get: (urlPath: string) => Promise<RawResponse | null>): Promise<Record<string, unknown> | null> {
  const response = await get(`${apiPaths.privateFiles(ORG)}?limit=1000`);
  if (!ok(response) || !Array.isArray(response.json)) return null;
  const ours = (response.json as Array<Record<string, unknown>>).filter((file) => String(file.title).startsWith('soak-') || String(file.title).startsWith('T-'));
  return ours.length > 0 ? pick(ours) : null;
}

function projectFolder(slot: AgentSlot, projectId: number): string | null {
  try {
    return folderOfProject(slot.folder, projectId);
  } catch {
    return null;
  }
}

let dropCounter = 0;
function dropFile(slot: AgentSlot, projectId: number, bytes: Buffer): void {
  const folder = projectFolder(slot, projectId);
  if (!folder) return;
  fs.writeFileSync(path.join(folder, `soak-${slot.name}-${++dropCounter}.bin`), bytes);
  count('files dropped');
}

function folderFiles(slot: AgentSlot): string[] {
  return projectsOf(slot).flatMap((projectId) => {
    const folder = projectFolder(slot, projectId);
    if (!folder) return [];
    return fs.readdirSync(folder, { withFileTypes: true }).filter((entry) => entry.isFile() && !entry.name.startsWith('.') && !entry.name.startsWith('swap-')).map((entry) => path.join(folder, entry.name));
  });
}

/** A symlink to the secret dropped in, or a dropped file replaced by one within the stability window. */
async function symlinkTrick(slot: AgentSlot): Promise<void> {
  const folder = projectFolder(slot, pick(projectsOf(slot)));
  if (!folder) return;
  const n = ++dropCounter;
  if (random() < 0.5) {
    fs.symlinkSync(secretFile, path.join(folder, `link-${slot.name}-${n}.txt`));
    count('symlinks dropped');
    return;
  }
  const target = path.join(folder, `swap-${slot.name}-${n}.txt`);
  fs.writeFileSync(target, randomBytes(between(100, 4000)));
  await sleep(between(0, STABILITY_WINDOW_MS - 100));
  const link = path.join(folder, `.swap-link-${n}`);
  fs.symlinkSync(secretFile, link);
  fs.renameSync(link, target);
  count('files replaced by a symlink');
}

async function resolveSomeConflict(slot: AgentSlot): Promise<void> {
  const listed = await localRequest(slot, 'GET', syncPaths.conflicts(ORG));
  if (!ok(listed) || !Array.isArray(listed.json) || listed.json.length === 0) return;
  const conflict = pick(listed.json as Array<{ id: number; model: Model; record_id: number; field: Field; local_value: unknown; remote_value: unknown }>);
  const choice = pick(['local', 'remote', 'value'] as const);
  // A person often edits the field again before settling it "local": that later edit is what must win.
  const laterEdit = choice === 'local' && random() < 0.5 ? nextValue(`${slot.name}-local`) : null;
  if (laterEdit !== null) await localEdit(slot, conflict.model, conflict.record_id, conflict.field, laterEdit);
  const value = choice === 'value' ? nextValue(`${slot.name}-resolve`) : undefined;
  const at = elapsed();
  const write: Write | null = value === undefined ? null : { model: conflict.model, recordId: conflict.record_id, field: conflict.field, value, who: `agent ${slot.name} (resolved)`, agent: slot.name, via: 'resolve', sentAt: at, ackedAt: null, seen: conflict.remote_value, writerLive: !slot.paused };
  if (write) writes.push(write);
  const answer = await localRequest(slot, 'POST', syncPaths.resolveConflict(ORG, conflict.id), { choice, value });
  const conflictText = `conflict on ${conflict.model} ${conflict.record_id} ${conflict.field} (local ${JSON.stringify(conflict.local_value)}, remote ${JSON.stringify(conflict.remote_value)})`;
  happened(`agent ${slot.name} resolved "${choice}"${value === undefined ? '' : ` ${JSON.stringify(value)}`} the ${conflictText}: ${answer ? answer.status : 'no answer'}`, conflict.record_id);
  if (!ok(answer)) {
    // Killed mid-request: it may have been applied. Counted as applied, so no loss is blamed on it.
    if (answer === null) resolutions.push({ agent: slot.name, model: conflict.model, recordId: conflict.record_id, field: conflict.field, choice, remoteValue: conflict.remote_value, at });
    return;
  }
  if (write) write.ackedAt = elapsed();
  resolutions.push({ agent: slot.name, model: conflict.model, recordId: conflict.record_id, field: conflict.field, choice, remoteValue: conflict.remote_value, at });
  count(`conflicts resolved "${choice}"`);
  const edited = laterEdit === null ? undefined : writes.findLast((write) => write.value === laterEdit);
  if (edited?.ackedAt == null) return;
  // "Keep mine" keeps what is mine now: the edit just made, not the value the conflict recorded earlier.
  const urlPath = conflict.model === 'project' ? apiPaths.project(ORG, conflict.record_id) : apiPaths.privateFile(ORG, conflict.record_id);
  const after = await localRequest(slot, 'GET', urlPath);
  if (ok(after) && !sameJson(after.json[conflict.field], laterEdit)) {
    resolveProblems.push(`LOST ${conflict.model} ${conflict.record_id} ${conflict.field} ${describe(edited, laterEdit)}: agent ${slot.name}'s conflict resolved "local" at ${seconds(at)} replaced it with ${JSON.stringify(after.json[conflict.field])}`);
  }
}

let lastKillAt = -Infinity;
async function operation(): Promise<void> {
  const slot = agents[pick(['A', 'B'] as const)];
  const live = agentUp(slot);
  const roll = random() * 100;
  if (roll < 24) {
    if (live) await localEdit(slot, 'project', pick(projectsOf(slot)), 'notes', nextValue(`${slot.name}-local`));
  } else if (roll < 42) {
    const user = pick(['sunriseAdmin', 'sunriseMember'] as const);
    const project = user === 'sunriseAdmin' ? pick([...sharedProjects, adminOnlyProject]) : pick(sharedProjects);
    await remoteEdit(user, 'project', project, 'notes', nextValue(`R-${user === 'sunriseAdmin' ? 'admin' : 'member'}`));
  } else if (roll < 50) {
    if (random() < 0.5) {
      const file = live ? await someFile((urlPath) => localRequest(slot, 'GET', urlPath)) : null;
      if (file) await localEdit(slot, 'private_file', Number(file.id), 'title', `T-${nextValue(slot.name)}.bin`);
    } else {
      const file = serverUp() ? await someFile((urlPath) => remoteRequest('sunriseAdmin', 'GET', urlPath)) : null;
      if (file) await remoteEdit('sunriseAdmin', 'private_file', Number(file.id), 'title', `T-${nextValue('R')}.bin`);
    }
  } else if (roll < 59) {
    const bytes = randomBytes(between(200, 64 * 1024));
    if (random() < 0.3) {
      // The same bytes dropped on both computers into the same project.
      const project = pick(sharedProjects);
      dropFile(agents.A, project, bytes);
      dropFile(agents.B, project, bytes);
      count('same bytes dropped on both computers');
    } else dropFile(slot, pick(projectsOf(slot)), bytes);
  } else if (roll < 65) {
    const files = folderFiles(slot);
    if (files.length === 0) return;
    const file = pick(files);
    const renamed = `soak-renamed-${slot.name}-${++dropCounter}.bin`;
    try {
      fs.renameSync(file, path.join(path.dirname(file), renamed));
      writes.push({ model: 'private_file', recordId: 0, field: 'title', value: renamed, who: `agent ${slot.name} (folder)`, agent: slot.name, via: 'folder', sentAt: elapsed(), ackedAt: elapsed() });
      count('in-folder renames');
    } catch {
      // the watcher moved or trashed it meanwhile
    }
  } else if (roll < 68) {
    const files = folderFiles(slot);
    if (files.length === 0) return;
    fs.rmSync(pick(files), { force: true });
    count('in-folder deletes');
  } else if (roll < 76) {
    if (!live) return;
    const answer = await localRequest(slot, 'POST', (slot.paused ? syncPaths.resume : syncPaths.pause)(ORG));
    if (ok(answer)) {
      slot.paused = !slot.paused;
      count(slot.paused ? 'pauses' : 'resumes');
      happened(`agent ${slot.name} ${slot.paused ? 'paused' : 'resumed'}`);
    }
  } else if (roll < 83) {
    if (live) await resolveSomeConflict(slot);
  } else if (roll < 86) {
    if (live) await symlinkTrick(slot);
  } else if (roll < 90) {
    if (elapsed() - lastKillAt < 2500) return;
    const targets: Array<'server' | AgentName> = [
      ...(serverUp() && !serverRestarting ? (['server'] as const) : []),
      ...(['A', 'B'] as const).filter((name) => agentUp(agents[name]) && !agents[name].restarting),
    ];
    if (targets.length === 0) return;
    const target = pick(targets);
    lastKillAt = elapsed();
    tally.faults++;
    count(`SIGKILLs of ${target === 'server' ? 'the server' : `agent ${target}`}`);
    if (target === 'server') await killServer();
    else await killAgentSlot(agents[target]);
  }
}

// ---------- settling and comparing ----------

interface OpenConflict { agent: AgentName; model: string; record_id: number; field: string; local_value: unknown; remote_value: unknown }
interface PendingRow { model: string; record_id: number; op: string; fields: string[]; status: string; reason: string }

async function everythingRunning(): Promise<void> {
  for (let round = 0; round < 3; round++) {
    await serverRestarting;
    await Promise.all(Object.values(agents).map((slot) => slot.restarting));
  }
  if (!serverUp()) server = await startServer();
  for (const slot of Object.values(agents)) if (!agentUp(slot)) await startAgent(slot, false);
}

async function agentJson<T>(slot: AgentSlot, urlPath: string): Promise<T> {
  const response = await localRequest(slot, 'GET', urlPath);
  if (!ok(response)) throw new Error(`agent ${slot.name} GET ${urlPath}: ${describeAnswer(response)}`);
  return response.json as T;
}

const isMoving = (row: PendingRow) => row.status !== 'parked' && row.status !== 'held' && row.reason !== WAITS_FOR_CONFLICT_REASON;

/** Differences between one replica and the remote as its user sees it, skipping what is legitimately held. */
async function replicaDiff(slot: AgentSlot, conflicts: OpenConflict[], pending: PendingRow[]): Promise<string[]> {
  const diffs: string[] = [];
  const conflicted = new Set(conflicts.filter((c) => c.agent === slot.name).map((c) => `${c.model}:${c.record_id}:${c.field}`));
  const held = new Set<string>();
  for (const row of pending.filter((r) => r.status === 'parked' || r.status === 'held')) {
    if (row.op !== 'update') held.add(`${row.model}:${row.record_id}:*`);
    for (const field of row.fields) held.add(`${row.model}:${row.record_id}:${field}`);
  }
  const lists: Array<[SyncedModel, string]> = [['project', apiPaths.projects(ORG)], ['contact', apiPaths.contacts(ORG)], ['private_file', apiPaths.privateFiles(ORG)]];
  for (const [model, listPath] of lists) {
    const remoteGet = (urlPath: string) => remoteRequest(slot.user, 'GET', urlPath);
    const localGet = (urlPath: string) => localRequest(slot, 'GET', urlPath);
    const remote = new Map((await listAll(remoteGet, listPath)).map((row) => [Number(row.id), viewOf(model, row)]));
    const local = new Map((await listAll(localGet, listPath)).map((row) => [Number(row.id), viewOf(model, row)]));
    if (model === 'project') {
      // The projects the chaos edits are compared in full, as their detail shows them.
      for (const id of projectsOf(slot)) {
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
async function idleAtSomePoint(slot: AgentSlot): Promise<{ state: string; folderQuiet: boolean; busyFiles: string }> {
  let state = '';
  let folderQuiet = false;
  let busyFiles = '';
  for (let sample = 0; sample < 8 && (state !== 'idle' || !folderQuiet); sample++) {
    if (sample > 0) await sleep(150);
    const status = await agentJson<{ state: string }>(slot, syncPaths.status(ORG));
    const folder = await agentJson<{ quiet: boolean; files: Array<{ path: string; state: string; reason: string }> }>(slot, syncPaths.folder(ORG));
    if (state !== 'idle') state = status.state;
    folderQuiet ||= folder.quiet;
    busyFiles = folder.files.filter((file) => file.state !== 'delete_held').map((file) => `${file.path} ${file.state}: ${file.reason}`).join('; ');
  }
  return { state, folderQuiet, busyFiles };
}

interface Settled { conflicts: OpenConflict[]; pending: Record<AgentName, PendingRow[]>; diffs: string[] }

async function settle(): Promise<Settled> {
  const deadline = Date.now() + SETTLE_MS;
  let last: Settled = { conflicts: [], pending: { A: [], B: [] }, diffs: ['never compared'] };
  let quietRounds = 0;
  happened('chaos over: settling');
  for (let round = 1; ; round++) {
    await everythingRunning();
    for (const slot of Object.values(agents)) {
      if ((await localRequest(slot, 'POST', syncPaths.resume(ORG)))?.status === 200) slot.paused = false;
    }
    await sleep(1500);
    try {
      const names = ['A', 'B'] as const;
      const pending = { A: await agentJson<PendingRow[]>(agents.A, syncPaths.pending(ORG)), B: await agentJson<PendingRow[]>(agents.B, syncPaths.pending(ORG)) };
      const idle = await Promise.all(names.map((name) => idleAtSomePoint(agents[name])));
      const folderQuiet = idle.map((sample) => sample.folderQuiet);
      const states = idle.map((sample) => sample.state);
      const conflicts = (await Promise.all(names.map(async (name) => (await agentJson<Array<Omit<OpenConflict, 'agent'>>>(agents[name], syncPaths.conflicts(ORG))).map((c) => ({ ...c, agent: name }))))).flat();
      const diffs = [...(await replicaDiff(agents.A, conflicts, pending.A)), ...(await replicaDiff(agents.B, conflicts, pending.B))];
      last = { conflicts, pending, diffs };
      const moving = names.map((name) => pending[name].filter(isMoving).length);
      settleReport = `round ${round}: states ${states.join('/')}, changes still moving ${moving.join('/')}, folders quiet ${folderQuiet.join('/')}${idle.map((sample, index) => (sample.busyFiles ? ` (agent ${names[index]}'s folder: ${sample.busyFiles})` : '')).join('')}, ${diffs.length} differences`;
      // Converged only when nothing moves and the comparison holds twice in a row (a pull may still have been on its way).
      quietRounds = moving.every((n) => n === 0) && folderQuiet.every(Boolean) && states.every((s) => s === 'idle') && diffs.length === 0 ? quietRounds + 1 : 0;
      if (quietRounds >= 2) return last;
    } catch (error) {
      settleReport = `round ${round}: ${(error as Error).message}`;
    }
    if (Date.now() > deadline) return last;
  }
}

// ---------- the write check ----------

interface LogEntry { changeId: number; projectId: number; value: unknown; at: number }

function notesLog(store: StoreInspector): LogEntry[] {
  const rows = store.all<{ id: number; occurred_at: string; body: string }>(
    'select c.id, c.occurred_at, d.body from webhook_changes c join webhook_deliveries d on d.change_id = c.id order by c.id',
  );
  return rows
    .map((row) => ({ row, body: JSON.parse(row.body) as { model: string; model_id: number; event: string; fields?: Record<string, unknown> } }))
    .filter(({ body }) => body.model === 'Project' && body.event === 'UPDATE' && body.fields && 'notes' in body.fields)
    .map(({ row, body }) => ({ changeId: row.id, projectId: body.model_id, value: body.fields!.notes, at: Date.parse(row.occurred_at) - started }));
}

const describe = (write: Write | undefined, value: unknown) =>
  write ? `${JSON.stringify(write.value)} (${write.who}, sent ${seconds(write.sentAt)}, acked ${seconds(write.ackedAt)}${write.seen !== undefined ? `, had seen ${JSON.stringify(write.seen)}` : ''})` : `${JSON.stringify(value)} (no write of the soak)`;

/**
 * Why an agent's pushed write `z` may replace `previous`, or null when it may not.
 * `reachedRemote` says whether a value of this record's notes is in the change log.
 */
function mayReplace(z: Write, previous: LogEntry | { value: unknown; at: number }, reachedRemote: (value: unknown) => boolean): string | null {
  const byValue = writes.find((w) => w.value === previous.value);
  if (byValue && byValue.agent === z.agent) return 'its own write';
  if (sameJson(z.seen, previous.value)) return 'it showed that value before the write';
  if (resolutions.some((r) => r.agent === z.agent && r.model === 'project' && r.recordId === z.recordId && r.field === 'notes' && sameJson(r.remoteValue, previous.value))) return 'a conflict it resolved showed it';
  if (z.writerLive && previous.at <= (z.ackedAt ?? z.sentAt + REQUEST_TIMEOUT_MS)) return 'it may have pulled it just before the write';
  // What z's local API showed was the agent's own earlier write of the field, never pushed on its own: z knew what it knew.
  const earlier = writes.find(
    (w) => w !== z && w.agent === z.agent && w.model === 'project' && w.recordId === z.recordId && w.field === z.field && w.sentAt < z.sentAt && sameJson(w.value, z.seen) && !reachedRemote(w.value),
  );
  const why = earlier ? mayReplace(earlier, previous, reachedRemote) : null;
  return why === null ? null : `its unpushed ${JSON.stringify(earlier!.value)}, coalesced into this push, knew it (${why})`;
}

/** The processes' events and the record's conflict events from just before a write until a few seconds after. */
function around(write: Write): string {
  const near = timeline.filter((event) => event.at >= write.sentAt - 3000 && event.at <= (write.ackedAt ?? write.sentAt) + 6000 && (event.recordId === undefined || event.recordId === write.recordId));
  return near.length === 0 ? '' : `\n        around it: ${near.map((event) => `${seconds(event.at)} ${event.what}`).join('; ')}`;
}

function checkNotesWrites(log: LogEntry[], finalNotes: Map<number, unknown>, conflicts: OpenConflict[]): string[] {
  const problems: string[] = [];
  const report = (write: Write, text: string) => problems.push(`${text}${around(write)}`);
  const byValue = new Map(writes.map((write) => [write.value, write]));
  for (const w of writes.filter((write) => write.model === 'project' && write.ackedAt !== null)) {
    if (sameJson(finalNotes.get(w.recordId), w.value)) continue;
    if (conflicts.some((c) => c.model === 'project' && c.record_id === w.recordId && c.field === 'notes' && (sameJson(c.local_value, w.value) || sameJson(c.remote_value, w.value)))) continue;
    const entries = log.filter((entry) => entry.projectId === w.recordId);
    const position = entries.findLastIndex((entry) => entry.value === w.value);
    const where = `project ${w.recordId} notes ${describe(w, w.value)}`;
    if (position === -1) {
      if (w.agent === null) {
        report(w, `LOST ${where}: acknowledged by the server, but absent from its change log and not final (final ${JSON.stringify(finalNotes.get(w.recordId))})`);
        continue;
      }
      const later = writes.find((other) => other.agent === w.agent && other.model === 'project' && other.recordId === w.recordId && other.ackedAt !== null && other.sentAt > w.ackedAt!);
      const withdrawn = resolutions.find((r) => r.agent === w.agent && r.model === 'project' && r.recordId === w.recordId && r.field === 'notes' && r.choice === 'remote' && r.at > w.ackedAt!);
      if (later || withdrawn) continue;
      report(w, `LOST ${where}: never reached the remote, no later write of agent ${w.agent} to it, in no open conflict; the remote holds ${describe(byValue.get(String(finalNotes.get(w.recordId))), finalNotes.get(w.recordId))}`);
      continue;
    }
    const next = entries[position + 1];
    if (!next) {
      report(w, `LOST ${where}: last in the change log, yet the remote's final value is ${JSON.stringify(finalNotes.get(w.recordId))}`);
      continue;
    }
    const replacer = byValue.get(String(next.value));
    if (!replacer) {
      report(w, `LOST ${where}: replaced at change #${next.changeId} (${seconds(next.at)}) by ${JSON.stringify(next.value)}, which nobody wrote after it`);
      continue;
    }
    if (replacer.agent === null) continue; // a direct API write is last-wins by design
    if (mayReplace(replacer, entries[position]!, (value) => entries.some((entry) => sameJson(entry.value, value))) !== null) continue;
    report(w, `LOST ${where}: reached the remote at change #${entries[position]!.changeId} (${seconds(entries[position]!.at)}), then overwritten at change #${next.changeId} (${seconds(next.at)}) by ${describe(replacer, next.value)}, which had never seen it: no conflict was raised`);
  }
  return problems;
}

function checkTitleWrites(finalTitles: Map<number, unknown>, conflicts: OpenConflict[]): string[] {
  const problems: string[] = [];
  for (const w of writes.filter((write) => write.model === 'private_file' && write.via !== 'folder' && write.ackedAt !== null)) {
    if (!finalTitles.has(w.recordId) || sameJson(finalTitles.get(w.recordId), w.value)) continue;
    if (conflicts.some((c) => c.model === 'private_file' && c.record_id === w.recordId && c.field === 'title' && (sameJson(c.local_value, w.value) || sameJson(c.remote_value, w.value)))) continue;
    const later = writes.find((other) => other !== w && other.model === 'private_file' && (other.recordId === w.recordId || other.via === 'folder') && other.ackedAt !== null && other.ackedAt > w.ackedAt! - 50);
    const withdrawn = resolutions.some((r) => r.agent === w.agent && r.model === 'private_file' && r.recordId === w.recordId && r.choice === 'remote' && r.at > w.ackedAt!);
    if (later || withdrawn) continue;
    problems.push(`LOST private_file ${w.recordId} title ${describe(w, w.value)}: no later write to it, in no open conflict; the remote holds ${JSON.stringify(finalTitles.get(w.recordId))}`);
  }
  return problems;
}

// ---------- the run ----------

let settled: Settled;
let serverStore: StoreInspector;
const finalNotes = new Map<number, unknown>();
let finalFiles: Array<Record<string, unknown>> = [];

before(async () => {
  workDir = makeTempDir('solardesk-soak-');
  ratesFile = path.join(workDir, 'rates.json');
  fs.writeFileSync(ratesFile, JSON.stringify(NO_QUOTAS));
  secret = `SOAK-SECRET-${randomBytes(16).toString('hex')}`;
  fs.mkdirSync(path.join(workDir, 'outside'));
  secretFile = path.join(workDir, 'outside', 'secret.txt');
  fs.writeFileSync(secretFile, secret);
  serverDataDir = path.join(workDir, 'server');
  receiver = await startWebhookReceiver();
  server = await startServer();
  serverPort = server.port;
  for (const user of ['sunriseAdmin', 'sunriseMember'] as const) remoteTokens.set(user, await server.tokenFor(user));
  const webhook = await remoteRequest('sunriseAdmin', 'POST', apiPaths.webhooks(ORG), { endpoint: receiver.url, enabled: true, debug: false, trigger_fields: ['project.notes'], payload_fields: ['project.notes'] });
  assert.equal(webhook?.status, 201, webhook?.text);
  const memberProjects = (await listAll((urlPath) => remoteRequest('sunriseMember', 'GET', urlPath), apiPaths.projects(ORG))).map((row) => Number(row.id)).sort((a, b) => a - b);
  const allProjects = (await listAll((urlPath) => remoteRequest('sunriseAdmin', 'GET', urlPath), apiPaths.projects(ORG))).map((row) => Number(row.id)).sort((a, b) => a - b);
  sharedProjects = memberProjects.slice(0, 3);
  adminOnlyProject = allProjects.find((id) => !memberProjects.includes(id))!;
  assert.equal(sharedProjects.length, 3, `the member sees projects ${memberProjects}`);
  for (const id of [...sharedProjects, adminOnlyProject]) initialNotes.set(id, (await remoteRequest('sunriseAdmin', 'GET', apiPaths.project(ORG, id)))!.json.notes);

  for (const [name, user] of [['A', 'sunriseAdmin'], ['B', 'sunriseMember']] as const) {
    const slot: AgentSlot = { name, user, dataDir: path.join(workDir, `agent-${name}`), folder: path.join(workDir, `folders-${name}`), port: 0, process: null, restarting: null, paused: false };
    fs.mkdirSync(slot.folder);
    agents[name] = slot;
    await startAgent(slot, true);
  }
  for (const slot of Object.values(agents)) {
    for (const project of projectsOf(slot)) await waitFor(`agent ${slot.name}'s folder of project ${project}`, () => projectFolder(slot, project), 60_000, 200);
  }

  const chaosStarted = Date.now();
  while (Date.now() - chaosStarted < SOAK_SECONDS * 1000 && tally.inputs < MAX_OPERATIONS) {
    await operation();
    tally.inputs++;
    await sleep(between(0, 120));
  }
  const chaosSeconds = (Date.now() - chaosStarted) / 1000;

  settled = await settle();
  serverStore = new StoreInspector(serverDataDir);
  for (const id of projectsOf(agents.A)) finalNotes.set(id, (await detail((urlPath) => remoteRequest('sunriseAdmin', 'GET', urlPath), apiPaths.project(ORG, id))).notes);
  finalFiles = await listAll((urlPath) => remoteRequest('sunriseAdmin', 'GET', urlPath), apiPaths.privateFiles(ORG));

  const heldOrParked = (['A', 'B'] as const).map((name) => `agent ${name}: ${settled.pending[name].filter((row) => row.status === 'held').length} held, ${settled.pending[name].filter((row) => row.status === 'parked').length} parked`);
  tally.notes.push(
    `seed ${seed}; ${tally.inputs} operations in ${chaosSeconds.toFixed(0)} s of chaos, ${tally.faults} SIGKILLs; settle: ${settleReport}`,
    Object.entries(counts).map(([what, n]) => `${n} ${what}`).join(', '),
    `${writes.filter((w) => w.ackedAt !== null && w.via !== 'folder').length} acknowledged writes checked; ${settled.conflicts.length} open conflicts; ${heldOrParked.join('; ')}`,
  );
  console.log(`soak: HARDENING_SEED=${seed}\n  ${tally.notes.join('\n  ')}`);
  for (const name of ['A', 'B'] as const) {
    for (const row of settled.pending[name].filter((r) => r.status === 'held' || r.status === 'parked')) console.log(`  agent ${name} ${row.status}: ${row.model} ${row.record_id} ${row.op} ${row.fields.join(',')}: ${row.reason}`);
  }
});

after(async () => {
  serverStore?.close();
  for (const slot of Object.values(agents)) {
    await slot.restarting?.catch(() => undefined);
    if (slot.process) await killAgent(slot.process, 'SIGTERM');
  }
  await serverRestarting?.catch(() => undefined);
  await server?.stop();
  await receiver?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

function verdict(what: string, problems: string[]): void {
  if (problems.length === 0) return;
  assert.fail(`${what} (HARDENING_SEED=${seed}):\n  ${problems.join('\n  ')}`);
}

test('soak: every acknowledged write is final, superseded by a later one, or in an open conflict', (t) => {
  const problems = [...resolveProblems, ...checkNotesWrites(notesLog(serverStore), finalNotes, settled.conflicts), ...checkTitleWrites(new Map(finalFiles.map((file) => [Number(file.id), file.title])), settled.conflicts)];
  tally.lost += problems.length;
  reportTally(t, tally);
  verdict(`${problems.length} acknowledged writes lost`, problems);
});

test('soak: both replicas equal the remote, apart from open conflicts and held changes', () => {
  verdict(`the replicas differ from the remote after settling (${settleReport})`, settled.diffs);
});

test('soak: no file from outside the project folders reached the server', () => {
  const leaked = filesBelow(serverDataDir).filter((file) => fs.readFileSync(path.join(serverDataDir, file)).includes(secret));
  const filesNamed = (hash: string) => serverStore.all<{ id: number; title: string; file_name: string; project_id: number | null }>('select id, title, file_name, project_id from private_files where file_hash = ?', hash);
  verdict(
    'the secret planted outside the folders is on the server',
    leaked.map((file) => `${file} holds the secret; private files: ${JSON.stringify(filesNamed(path.basename(file)))}`),
  );
});

test('soak: one remote file per contents per project', () => {
  const droppedAs = (id: number) => serverStore.all<{ file_name: string }>('select file_name from private_files where id = ?', id)[0]?.file_name;
  const byContents = new Map<string, Array<Record<string, unknown>>>();
  for (const file of finalFiles) {
    const key = `${file.project} ${file.file_hash}`;
    byContents.set(key, [...(byContents.get(key) ?? []), file]);
  }
  // A copy whose delete an agent holds (deleted in a folder, waiting for the user to
  // confirm or restore it) is the user's decision, not a duplicate sync made:
  // confirming it leaves one file. Every other copy counts.
  const heldDeletes = new Set(
    (['A', 'B'] as const).flatMap((name) => settled.pending[name].filter((row) => row.status === 'held' && row.op === 'delete' && row.model === 'private_file').map((row) => row.record_id)),
  );
  const duplicates = [...byContents.values()].filter((files) => files.filter((file) => !heldDeletes.has(Number(file.id))).length > 1);
  verdict(
    'the same contents are several remote files of one project',
    duplicates.map((files) => `${files.length} files with sha256 ${String(files[0]!.file_hash).slice(0, 12)}… in project ${parseOrgReference(files[0]!.project, 'projects')?.id}: ${files.map((file) => `${file.id} "${file.title}" (dropped as ${droppedAs(Number(file.id))})`).join(', ')}`),
  );
});

test("soak: the server's store passes integrity_check and foreign_key_check", () => {
  assert.equal(serverStore.integrityCheck(), 'ok');
  assert.deepEqual(serverStore.foreignKeyViolations(), []);
});
