// Project folders (issues 6 and 14), each number over a baseline measured in the same run:
//   watch.local_drop     1,000 small files dropped at once (cp -r) into a project folder of
//                        the embedded store (no remote, as `npm start` runs): seconds from the
//                        start of cp until every file is a private file, beyond the stability
//                        window, over the cp itself (goal: at most 1 s beyond the window)
//   watch.small_files.*  1,000 small files dropped at once (cp -r) into a project folder:
//                        time until all are attached in the local engine, over the cp itself;
//                        time until all are on the remote, over a bare HTTP client uploading
//                        the same files one by one through the same proxy to the same server
//   watch.big_file.*     the same for one 500 MB file (chunked, resumable push vs one bare
//                        streamed multipart POST)
//   watch.memory_100k    peak RSS of an agent process watching 100,000 files in its project
//                        folders, over the same agent on the same replica without --folder
// The drop times include the stability window (the default 2 s): a file is attached only
// once it has not changed for that long, which is the point of the window.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import BetterSqlite3 from 'better-sqlite3';
import type { Benchmark, BenchResult } from './bench-types.ts';
import { startTestServer, UNTHROTTLED_RATES } from '../main/engine/testing/test-server.ts';
import { signIn, startServerProcess, stopServerProcess } from '../main/engine/testing/server-process.ts';
import { startFaultProxy, type FaultProxy } from '../main/sync/testing/fault-proxy.ts';
import { startAgent, type Agent } from '../main/sync/agent.ts';
import { projectFolderRecords, watchProjectFolders } from '../main/core/agent-folders.ts';
import { embeddedFolderOutboxOf } from '../main/core/folder-session.ts';
import { FolderWatcher } from '../main/watch/watcher.ts';
import { multipartBody, postMultipart } from '../main/engine/testing/multipart-upload.ts';
import { killAgent, startAgentProcess, type AgentProcess } from '../main/sync/testing/agent-process.ts';
import { DEMO_ORGS, DEMO_PASSWORD, DEMO_USERS } from '../main/engine/seed/demo-seed.ts';
import { folderOfProject, sleep, waitFor } from '../main/watch/testing/folder-testing.ts';
import type { ThrottleRates } from '../shared/throttle-rates.ts';
import type { FolderStatus } from '../main/watch/watcher.ts';
import { apiPaths } from '../shared/api-paths.ts';
import { processMemoryMb } from './process-memory.ts';

const MB = 1024 * 1024;
const SMALL_FILES = 1000;
const BIG_FILE_MB = 500;
const WATCHED_FILES = 100_000;
const PROJECT = 5;

const seconds = (startedAt: number) => (performance.now() - startedAt) / 1000;

async function cp(source: string, target: string): Promise<number> {
  const started = performance.now();
  const child = spawn('cp', ['-r', `${source}/.`, target], { stdio: 'ignore' });
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`cp exited with ${code}`);
  return seconds(started);
}

function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Hashes of the files of a folder, by name. */
async function hashesOf(dir: string): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for (const name of await fsp.readdir(dir)) {
    const hash = createHash('sha256');
    for await (const chunk of fs.createReadStream(path.join(dir, name))) hash.update(chunk as Buffer);
    hashes.set(name, hash.digest('hex'));
  }
  return hashes;
}

interface Setup {
  agent: Agent;
  proxy: FaultProxy;
  token: string;
  /** The server's own store, read-only: the moment a file is on the remote is the moment its row is there. */
  serverDb: BetterSqlite3.Database;
  close(): Promise<void>;
}

/**
 * `solardesk server` as its own process (as a remote is; in this process its work
 * would slow the agent's), the fault proxy, and the agent with --folder in this
 * process. Quotas are lifted on both sides: this measures work, not pacing.
 */
async function startSetup(work: string, root: string): Promise<Setup> {
  const serverDir = path.join(work, 'server');
  fs.mkdirSync(serverDir);
  const ratesFile = path.join(work, 'rates.json');
  fs.writeFileSync(ratesFile, JSON.stringify(UNTHROTTLED_RATES));
  const server = await startServerProcess(['--data', serverDir, '--seed', 'demo', '--throttle-config', ratesFile]);
  const proxy = await startFaultProxy(server.baseUrl);
  const agent = await startAgent({
    dataDir: path.join(work, 'agent'),
    remote: proxy.url,
    username: DEMO_USERS.sunriseAdmin,
    password: DEMO_PASSWORD,
    pollIntervalSeconds: 3600,
    remoteRates: UNTHROTTLED_RATES as ThrottleRates,
    folders: watchProjectFolders(root),
    folderRecords: projectFolderRecords,
  });
  await waitFor('the project folders', async () => {
    await agent.sync.settled();
    return agent.folders!.isQuiet() && (await agent.sync.status()).pending === 0 && fs.readdirSync(root).length > 48;
  }, 120_000, 100);
  const serverDb = new BetterSqlite3(path.join(serverDir, 'solardesk.sqlite'), { readonly: true });
  return {
    agent,
    proxy,
    token: await signIn(server.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD),
    serverDb,
    async close() {
      serverDb.close();
      await agent.close();
      await proxy.close();
      await stopServerProcess(server);
    },
  };
}

/**
 * Drops the files of `source` into the project's folder with cp and times until
 * every one is a private file in the agent's engine, then on the server.
 */
async function dropAndTime(setup: Setup, root: string, source: string, hashes: Set<string>): Promise<{ attachedS: number; remoteS: number }> {
  const folder = folderOfProject(root, PROJECT);
  const count = (hashesThere: Array<{ file_hash: string | null }>) => hashesThere.filter((row) => row.file_hash && hashes.has(row.file_hash)).length;
  const onServer = setup.serverDb.prepare('select file_hash from private_files where project_id = ?');
  const started = performance.now();
  await cp(source, folder);
  let attachedS = 0;
  let remoteS = 0;
  await waitFor('every file attached and on the remote', async () => {
    if (!attachedS) {
      const rows = await setup.agent.engine.context.db.selectFrom('private_files').select('file_hash').where('project_id', '=', PROJECT).execute();
      if (count(rows) >= hashes.size) attachedS = seconds(started);
    }
    if (!remoteS && count(onServer.all(PROJECT) as Array<{ file_hash: string | null }>) >= hashes.size) remoteS = seconds(started);
    return attachedS > 0 && remoteS > 0;
  }, 600_000, 25);
  return { attachedS, remoteS };
}

/** The baseline upload: each file POSTed as multipart, one after another, through the same proxy to the same server, to another project. */
async function bareUpload(setup: Setup, source: string): Promise<number> {
  const started = performance.now();
  for (const name of await fsp.readdir(source)) {
    const body = multipartBody({ project: String(PROJECT + 1) }, { fileName: name, contents: { path: path.join(source, name) } });
    const response = await postMultipart(`${setup.proxy.url}${apiPaths.privateFiles(1)}`, setup.token, body);
    if (response.status !== 201) throw new Error(`baseline upload failed: ${response.status} ${JSON.stringify(response.json).slice(0, 200)}`);
  }
  return seconds(started);
}

async function dropBenchmark(prefix: string, makeFiles: (dir: string) => Promise<void>, label: string): Promise<BenchResult[]> {
  const work = tempDir('solardesk-watch-bench-');
  const root = path.join(work, 'root');
  const source = path.join(work, 'source');
  fs.mkdirSync(root);
  fs.mkdirSync(source);
  const setup = await startSetup(work, root);
  try {
    await makeFiles(source);
    const hashes = new Set((await hashesOf(source)).values());
    const copyS = await cp(source, fs.mkdtempSync(path.join(work, 'plain-')));
    const { attachedS, remoteS } = await dropAndTime(setup, root, source, hashes);
    // The bare client goes after the agent is done, so the two never share the server.
    await setup.agent.sync.settled();
    const uploadS = await bareUpload(setup, source);
    return [
      {
        name: `${prefix}.attached_locally`,
        value: attachedS,
        baseline: copyS,
        ratio: attachedS / copyS,
        unit: 's',
        notes: `${label}: from the start of cp into the project folder until every file is a private file of the local engine, vs the same cp into a plain folder; includes the 2 s stability window`,
      },
      {
        name: `${prefix}.on_remote`,
        value: remoteS,
        baseline: uploadS,
        ratio: remoteS / uploadS,
        unit: 's',
        notes: `${label}: from the start of the drop until every file is on the server, vs a bare client POSTing the same files one by one through the same proxy (it starts with the bytes in hand, no window)`,
      },
    ];
  } finally {
    await setup.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function makeSmallFiles(dir: string): Promise<void> {
  for (let index = 0; index < SMALL_FILES; index++) {
    await fsp.writeFile(path.join(dir, `photo ${String(index).padStart(4, '0')}.jpg`), randomBytes(1024 + ((index * 7919) % 63) * 1024));
  }
}

async function makeBigFile(dir: string): Promise<void> {
  const handle = await fsp.open(path.join(dir, 'Drone survey.mp4'), 'w');
  try {
    for (let index = 0; index < BIG_FILE_MB; index++) await handle.write(randomBytes(MB));
  } finally {
    await handle.close();
  }
}

async function localJson(agent: AgentProcess, urlPath: string): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const response = await fetch(`${agent.localApiUrl}${urlPath}`, { headers: { authorization: `Bearer ${agent.token}` } });
  return response.json();
}

/**
 * 100,000 files, already attached, in the 48 project folders. To stay within minutes
 * the files are written straight to disk and their rows straight into the stopped
 * agent's replica (a private file and a folder mapping each, as attaching them would
 * have left them); the agent then starts, rescans every one of them, and watches.
 */
async function memoryBenchmark(): Promise<BenchResult[]> {
  const work = tempDir('solardesk-watch-mem-');
  const root = path.join(work, 'root');
  const dataDir = path.join(work, 'agent');
  fs.mkdirSync(root);
  const server = await startTestServer();
  const agents: AgentProcess[] = [];
  try {
    const signInArgs = ['--remote', server.baseUrl, '--username', DEMO_USERS.sunriseAdmin, '--password-stdin'];
    const first = await startAgentProcess(['--data', dataDir, '--poll-interval', '3600', '--folder', root, ...signInArgs], `${DEMO_PASSWORD}\n`);
    agents.push(first);
    await waitFor('the folders', async () => (await localJson(first, '/api/orgs/1/sync/folder/')).quiet && fs.readdirSync(root).length > 48, 60_000, 200);
    await killAgent(first, 'SIGTERM');

    const folders = fs.readdirSync(root).filter((name) => !name.startsWith('.'));
    const db = new BetterSqlite3(path.join(dataDir, 'solardesk.sqlite'));
    const user = db.prepare('select id from users where email = ?').get(DEMO_USERS.sunriseAdmin) as { id: number };
    const projects = db.prepare('select project_id, folder from watch_projects').all() as Array<{ project_id: number; folder: string }>;
    if (projects.length !== folders.length) throw new Error(`expected ${folders.length} project folders, found ${projects.length}`);
    const insertFile = db.prepare(
      `insert into private_files (id, org_id, project_id, user_id, title, file_name, mime_type, filesize, file_hash, input_data_hash, status, show_customer, temporary, upload_id, parts, completed_on, created_date, modified_date)
       values (?, 1, ?, ?, ?, ?, 'text/plain', ?, ?, '', 'created', 0, 0, '', '[]', ?, ?, ?)`,
    );
    const insertMapping = db.prepare('insert into watch_files (project_id, name, file_id, file_hash, size, mtime_ms, ino) values (?, ?, ?, ?, ?, ?, ?)');
    const now = new Date().toISOString();
    const seed = db.transaction(() => {
      for (let index = 0; index < WATCHED_FILES; index++) {
        const project = projects[index % projects.length]!;
        const name = `reading ${index}.txt`;
        const file = path.join(root, project.folder, name);
        const contents = `meter reading ${index}\n`;
        fs.writeFileSync(file, contents);
        const stat = fs.statSync(file);
        const hash = createHash('sha256').update(contents).digest('hex');
        const id = 5_000_000_000_000 + index;
        insertFile.run(id, project.project_id, user.id, name, name, stat.size, hash, now, now, now);
        insertMapping.run(project.project_id, name, id, hash, stat.size, stat.mtimeMs, String(stat.ino));
      }
    });
    seed();
    db.close();

    const baselineAgent = await startAgentProcess(['--data', dataDir, '--poll-interval', '3600']);
    agents.push(baselineAgent);
    await sleep(5000);
    const baselineMb = processMemoryMb(baselineAgent.child.pid!, 'VmHWM');
    await killAgent(baselineAgent, 'SIGTERM');

    const started = performance.now();
    const watching = await startAgentProcess(['--data', dataDir, '--poll-interval', '3600', '--folder', root]);
    agents.push(watching);
    const status = (await waitFor(
      'the rescan of every file',
      async () => {
        const current = (await localJson(watching, '/api/orgs/1/sync/folder/')) as FolderStatus;
        return current.state === 'watching' && current.quiet && current.last_rescan_at !== null ? current : null;
      },
      300_000,
      250,
    )) as FolderStatus;
    const rescanS = seconds(started);
    // A burst on top: 2,000 files touched at once in one folder (past the burst threshold, so it is rescanned).
    const burstFolder = path.join(root, projects[0]!.folder);
    const touched = fs.readdirSync(burstFolder).slice(0, 2000);
    const later = new Date(Date.now() + 1000);
    for (const name of touched) fs.utimesSync(path.join(burstFolder, name), later, later);
    await sleep(1000);
    await waitFor('the burst', async () => (await localJson(watching, '/api/orgs/1/sync/folder/')).quiet, 300_000, 250);
    await sleep(3000);
    const watchingMb = processMemoryMb(watching.child.pid!, 'VmHWM');
    const attached = status.attached_files;
    return [
      {
        name: 'watch.memory_100k',
        value: watchingMb,
        baseline: baselineMb,
        ratio: watchingMb / baselineMb,
        unit: 'MB peak RSS',
        notes: `agent process watching ${attached} attached files in ${projects.length} project folders (start-up rescan ${rescanS.toFixed(1)} s, then 2,000 files touched at once), vs the same agent and replica without --folder`,
      },
    ];
  } finally {
    for (const agent of agents) await killAgent(agent, 'SIGTERM');
    await server.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const LOCAL_WINDOW_MS = 2000;

/**
 * The embedded store's engine and a watcher on it, in this process, as the app runs
 * them with no remote: the time to attach is the watcher's and the engine's own.
 */
async function localDropBenchmark(): Promise<BenchResult[]> {
  const work = tempDir('solardesk-watch-local-');
  const root = path.join(work, 'root');
  const source = path.join(work, 'source');
  fs.mkdirSync(root);
  fs.mkdirSync(source);
  const server = await startTestServer();
  const { db } = server.engine.context;
  const admin = await db.selectFrom('users').select('id').where('email', '=', DEMO_USERS.sunriseAdmin).executeTakeFirstOrThrow();
  const watcher = new FolderWatcher({
    root,
    engine: server.engine.context,
    outbox: embeddedFolderOutboxOf(server.engine.context),
    orgId: DEMO_ORGS.sunrise,
    userId: admin.id,
    stabilityWindowMs: LOCAL_WINDOW_MS,
  });
  try {
    await watcher.start();
    await waitFor('the project folders', () => watcher.isQuiet() && fs.readdirSync(root).length > 48, 120_000, 100);
    await makeSmallFiles(source);
    const hashes = new Set((await hashesOf(source)).values());
    const copyS = await cp(source, fs.mkdtempSync(path.join(work, 'plain-')));
    const started = performance.now();
    await cp(source, folderOfProject(root, PROJECT));
    await waitFor('every file attached', async () => {
      const rows = await db.selectFrom('private_files').select('file_hash').where('project_id', '=', PROJECT).execute();
      return rows.filter((row) => row.file_hash && hashes.has(row.file_hash)).length >= hashes.size;
    }, 600_000, 25);
    const beyondWindowS = seconds(started) - LOCAL_WINDOW_MS / 1000;
    return [
      {
        name: 'watch.local_drop.beyond_window',
        value: beyondWindowS,
        baseline: copyS,
        ratio: beyondWindowS / copyS,
        unit: 's',
        notes: `${SMALL_FILES} files of 1-64 KB into a project folder of the embedded store: seconds from the start of cp until every file is attached, minus the ${LOCAL_WINDOW_MS / 1000} s stability window, vs the same cp into a plain folder; goal: value at most 1 s`,
      },
    ];
  } finally {
    await watcher.close();
    await server.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

export const benchmarks: Benchmark[] = [
  {
    name: 'watch.local_drop',
    description: `${SMALL_FILES} small files dropped at once into a project folder of the embedded store, beyond the stability window, vs cp`,
    run: localDropBenchmark,
  },
  {
    name: 'watch.small_files',
    description: `${SMALL_FILES} small files (1-64 KB) dropped at once into a project folder, vs cp and a bare HTTP client`,
    run: () => dropBenchmark('watch.small_files', makeSmallFiles, `${SMALL_FILES} files of 1-64 KB`),
  },
  {
    name: 'watch.big_file',
    description: `one ${BIG_FILE_MB} MB file dropped into a project folder, vs cp and a bare HTTP client`,
    run: () => dropBenchmark('watch.big_file', makeBigFile, `one ${BIG_FILE_MB} MB file (chunked push, 8 MB parts)`),
  },
  {
    name: 'watch.memory',
    description: `peak memory of the agent with ${WATCHED_FILES.toLocaleString('en')} files under watch, vs without --folder`,
    run: memoryBenchmark,
  },
];
