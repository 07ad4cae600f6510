// A real server, the fault proxy in front of it, and a real agent syncing through
// the proxy, all on 127.0.0.1, for sync tests.
import fs from 'node:fs';
import { makeTempDir, requestJson, startTestServer, type TestResponse, type TestServer } from '../../engine/testing/test-server.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { startAgent, type Agent, type AgentFolders, type AgentOptions } from '../agent.ts';
import { startFaultProxy, type FaultProxy } from './fault-proxy.ts';
import { countChangesStillMoving } from '../outbox.ts';
import type { ThrottleRates } from '../../../shared/throttle-rates.ts';
import { createFile } from '../../engine/testing/file-testing.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { STATE_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

/**
 * The harness's agents. `Folders` is what a test gives them as project folders (the
 * core's real watcher, main/core/testing/folder-harness.ts), so the test can read its
 * counts; sync's own helpers know only sync's AgentFolders, and never import the watcher.
 */
export interface SyncHarness<Folders extends AgentFolders = AgentFolders> {
  server: TestServer;
  proxy: FaultProxy;
  agent: Agent<Folders>;
  dataDir: string;
  /** A request to the agent's local API. */
  local(method: string, path: string, body?: unknown): Promise<TestResponse>;
  /** A request straight to the server, as another user of the org would make it. */
  remote(method: string, path: string, body?: unknown): Promise<TestResponse>;
  /** Wakes sync and waits until nothing is pending (or `timeoutMs` passes). */
  synced(timeoutMs?: number): Promise<void>;
  /** Stops the agent, runs `whileStopped` (edits made while no agent runs), and starts it again on the same data folder. */
  restartAgent(whileStopped?: () => Promise<void> | void): Promise<void>;
  /** Another agent (another computer) on the same server, through the proxy, signed in as `username`; closed with the harness. It has project folders only when `options.folders` gives it its own root. */
  addAgent(username: string, options?: Partial<AgentOptions<Folders>>): Promise<SyncedAgent<Folders>>;
  close(): Promise<void>;
}

/** An agent with its local API and a way to wait for it to be synced. */
export interface SyncedAgent<Folders extends AgentFolders = AgentFolders> {
  readonly agent: Agent<Folders>;
  readonly dataDir: string;
  local(method: string, path: string, body?: unknown): Promise<TestResponse>;
  synced(timeoutMs?: number): Promise<void>;
}

/** Wakes sync and waits until nothing is pending (or `timeoutMs` passes). */
async function waitSynced(agent: Agent, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + Math.max(timeoutMs, STATE_HANG_GUARD_MS); // a hang guard (issue 33)
  for (;;) {
    agent.sync.wake();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await agent.sync.settled();
    const status = await agent.sync.status();
    if ((await changesStillMoving(agent)) === 0 && status.state === 'idle') return;
    if (Date.now() > deadline) throw new Error(`not synced after ${timeoutMs} ms: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Outbox rows that will still go out on their own: not parked, not held deletes, not held only by open conflicts. */
export async function changesStillMoving(agent: Agent): Promise<number> {
  return countChangesStillMoving(agent.context.db);
}

export interface SyncHarnessOptions<Folders extends AgentFolders = AgentFolders> {
  serverRates?: unknown;
  remoteRates?: ThrottleRates;
  pollIntervalSeconds?: number;
  /** More agent options (project folders, upload sizes). */
  agent?: Partial<AgentOptions<Folders>>;
  /** The server serves the change feed (default true; false as `--no-change-feed`). */
  serverChangeFeed?: boolean;
  /** The server keeps file contents in this object store (`--blob-store`). */
  serverBlobStore?: string;
}

export async function startSyncHarness<Folders extends AgentFolders = AgentFolders>(options: SyncHarnessOptions<Folders> = {}): Promise<SyncHarness<Folders>> {
  const server = await startTestServer({ throttleRates: options.serverRates, changeFeed: options.serverChangeFeed, blobStore: options.serverBlobStore });
  const proxy = await startFaultProxy(server.baseUrl);
  const dataDir = makeTempDir('solardesk-agent-');
  const agentOptions: AgentOptions<Folders> = {
    dataDir,
    pollIntervalSeconds: options.pollIntervalSeconds ?? 3600,
    retry: { firstDelayMs: 100, factor: 2, maxDelayMs: 1000 },
    offlineRetryMs: 100,
    remoteRates: options.remoteRates,
    // The agent talks to the proxy, and the server's file links name the server itself: a host named for downloads.
    downloadHosts: [new URL(server.baseUrl).host],
    ...options.agent,
  };
  let agent = await startAgent<Folders>({ ...agentOptions, remote: proxy.url, username: DEMO_USERS.sunriseAdmin, password: DEMO_PASSWORD });
  const extraAgents: Agent<Folders>[] = [];
  const extraDirs: string[] = [];
  const remoteToken = await server.tokenFor(DEMO_USERS.sunriseAdmin);

  const harness: SyncHarness<Folders> = {
    server,
    proxy,
    get agent() {
      return agent;
    },
    dataDir,
    local: (method, path, body) => requestJson(agent.localApiUrl, method, path, { token: agent.localToken, body }),
    remote: (method, path, body) => requestJson(server.baseUrl, method, path, { token: remoteToken, body }),
    synced: (timeoutMs) => waitSynced(agent, timeoutMs),
    async restartAgent(whileStopped) {
      await agent.close();
      await whileStopped?.();
      agent = await startAgent<Folders>(agentOptions);
    },
    async addAgent(username, options = {}) {
      const extraDir = makeTempDir('solardesk-agent-');
      extraDirs.push(extraDir);
      // Another computer: its own data folder, and no project folders unless given its own root. The
      // first agent's `folders` would watch the same root: two watchers on one disk, each attaching
      // what the other writes (arrivals, edits) as its own, which no two computers ever do.
      const extra = await startAgent<Folders>({ ...agentOptions, folders: undefined, dataDir: extraDir, remote: proxy.url, username, password: DEMO_PASSWORD, ...options });
      extraAgents.push(extra);
      const handle: SyncedAgent<Folders> = {
        agent: extra,
        dataDir: extraDir,
        local: (method, path, body) => requestJson(extra.localApiUrl, method, path, { token: extra.localToken, body }),
        synced: (timeoutMs) => waitSynced(extra, timeoutMs),
      };
      await handle.synced();
      return handle;
    },
    async close() {
      for (const extra of extraAgents) await extra.close();
      for (const extraDir of extraDirs) fs.rmSync(extraDir, { recursive: true, force: true });
      await agent.close();
      await proxy.close();
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await harness.synced();
  return harness;
}

/** Two computers of one org: the admin's agent and the member's, with projects both see and a file on the first of them. */
export interface TwoUserHarness {
  h: SyncHarness;
  admin: SyncedAgent;
  member: SyncedAgent;
  /** Ids of the projects the member sees (the admin sees every project). */
  shared: number[];
  /** A private file on shared[0], made on the server and synced to both. */
  fileId: number;
}

export async function startTwoUserHarness(fileBytes: string, fileName: string, fileTitle: string): Promise<TwoUserHarness> {
  const h = await startSyncHarness();
  const admin: SyncedAgent = { agent: h.agent, dataDir: h.dataDir, local: h.local, synced: h.synced };
  const member = await h.addAgent(DEMO_USERS.sunriseMember);
  const projects = (await member.local('GET', '/api/orgs/1/projects/?limit=100&ordering=id')).json as Array<{ id: number }>;
  const shared = projects.map((project) => project.id);
  const adminToken = await h.server.tokenFor(DEMO_USERS.sunriseAdmin);
  const file = await createFile(h.server, adminToken, fileBytes, fileName, { title: fileTitle, project: `${h.server.baseUrl}${apiPaths.project(1, shared[0]!)}` });
  await admin.synced();
  await member.synced();
  return { h, admin, member, shared, fileId: file.id };
}
