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
// What "superseded" means, and the check itself: soak-ledger.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { DEMO_PASSWORD, DEMO_USERS } from '../engine/seed/demo-seed.ts';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { filesBelow } from '../engine/testing/file-testing.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../engine/testing/webhook-receiver.ts';
import { killAgent, startAgentProcess } from '../sync/testing/agent-process.ts';
import { folderOfProject, waitFor } from '../watch/testing/folder-testing.ts';
import { apiPaths, parseOrgReference, syncPaths } from '../../shared/api-paths.ts';
import { sameJson } from '../../shared/webhook-fields.ts';
import { NO_QUOTAS, jsonRequest, sendRaw, startHardeningServer, type DemoUser, type HardeningServer, type RawResponse } from './hardening-server.ts';
import { StoreInspector } from './store-inspector.ts';
import { REQUEST_TIMEOUT_MS, SoakLedger, seconds, type AgentName, type AgentSlot, type Field, type Model, type Write } from './soak-ledger.ts';
import { ORG, describeAnswer, detail, listAll, ok, settle, type Settled } from './soak-settle.ts';
import { newTally, reportTally, runSeed, seededRandom } from './summary.ts';
import { STATE_HANG_GUARD_MS } from '../testing/hang-guards.ts';

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS) > 0 ? Number(process.env.SOAK_SECONDS) : 70;
const MAX_OPERATIONS = 1500;
// A hang guard, not a speed check (issue 33): at load 24 a settle of 60 s ran out with uploads still moving.
const SETTLE_MS = STATE_HANG_GUARD_MS;
const STABILITY_WINDOW_MS = 400;
const seed = runSeed();
const { random, between } = seededRandom(seed);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const tally = newTally('soak');
const ledger = new SoakLedger();
const elapsed = () => ledger.elapsed();
const happened = (what: string, recordId?: number) => ledger.happened(what, recordId);
const { writes, resolutions } = ledger;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Seen at once after a resolution: its "local" value replaced a later local edit. */
const resolveProblems: string[] = [];
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
  // As the app does: the remote value shown is sent, so one that arrived since is not replaced unseen (409, then looked at again).
  const answer = await localRequest(slot, 'POST', syncPaths.resolveConflict(ORG, conflict.id), { choice, value, remote_value: conflict.remote_value });
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
    resolveProblems.push(`LOST ${conflict.model} ${conflict.record_id} ${conflict.field} ${ledger.describe(edited, laterEdit)}: agent ${slot.name}'s conflict resolved "local" at ${seconds(at)} replaced it with ${JSON.stringify(after.json[conflict.field])}`);
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

  settled = await settle({ agents, everythingRunning, localRequest, remoteRequest, agentJson, projectsOf, happened }, SETTLE_MS);
  serverStore = new StoreInspector(serverDataDir);
  for (const id of projectsOf(agents.A)) finalNotes.set(id, (await detail((urlPath) => remoteRequest('sunriseAdmin', 'GET', urlPath), apiPaths.project(ORG, id))).notes);
  finalFiles = await listAll((urlPath) => remoteRequest('sunriseAdmin', 'GET', urlPath), apiPaths.privateFiles(ORG));

  const heldOrParked = (['A', 'B'] as const).map((name) => `agent ${name}: ${settled.pending[name].filter((row) => row.status === 'held').length} held, ${settled.pending[name].filter((row) => row.status === 'parked').length} parked`);
  tally.notes.push(
    `seed ${seed}; ${tally.inputs} operations in ${chaosSeconds.toFixed(0)} s of chaos, ${tally.faults} SIGKILLs; settle: ${settled.report}`,
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
  const problems = [...resolveProblems, ...ledger.checkNotesWrites(ledger.notesLog(serverStore), finalNotes, settled.conflicts), ...ledger.checkTitleWrites(new Map(finalFiles.map((file) => [Number(file.id), file.title])), settled.conflicts)];
  tally.lost += problems.length;
  reportTally(t, tally);
  verdict(`${problems.length} acknowledged writes lost`, problems);
});

test('soak: both replicas equal the remote, apart from open conflicts and held changes', () => {
  verdict(`the replicas differ from the remote after settling (${settled.report})`, settled.diffs);
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
