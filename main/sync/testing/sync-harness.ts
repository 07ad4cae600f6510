// A real server, the fault proxy in front of it, and a real agent syncing through
// the proxy, all on 127.0.0.1, for sync tests.
import fs from 'node:fs';
import { makeTempDir, requestJson, startTestServer, type TestResponse, type TestServer } from '../../engine/testing/test-server.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { startAgent, type Agent, type AgentOptions } from '../agent.ts';
import { startFaultProxy, type FaultProxy } from './fault-proxy.ts';
import type { ThrottleRates } from '../../../shared/throttle-rates.ts';

export interface SyncHarness {
  server: TestServer;
  proxy: FaultProxy;
  agent: Agent;
  dataDir: string;
  /** A request to the agent's local API. */
  local(method: string, path: string, body?: unknown): Promise<TestResponse>;
  /** A request straight to the server, as another user of the org would make it. */
  remote(method: string, path: string, body?: unknown): Promise<TestResponse>;
  /** Wakes sync and waits until nothing is pending (or `timeoutMs` passes). */
  synced(timeoutMs?: number): Promise<void>;
  restartAgent(): Promise<void>;
  /** One more agent (another computer) on the same remote, through the same proxy, with its own data folder; closed with the harness. */
  addAgent(options?: Partial<AgentOptions>): Promise<AnotherAgent>;
  close(): Promise<void>;
}

export interface AnotherAgent {
  agent: Agent;
  dataDir: string;
  local(method: string, path: string, body?: unknown): Promise<TestResponse>;
  synced(timeoutMs?: number): Promise<void>;
}

/** Wakes the agent's sync and waits until nothing is pending and it is idle (or `timeoutMs` passes). */
export async function waitUntilSynced(agent: Agent, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
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
  const { db } = agent.context;
  const rows = await db.selectFrom('sync_outbox').selectAll().where('status', 'not in', ['parked', 'held']).execute();
  const conflicts = await db.selectFrom('sync_conflicts').select(['model', 'record_id', 'field']).execute();
  const conflicted = new Set(conflicts.map((conflict) => `${conflict.model}:${conflict.record_id}:${conflict.field}`));
  return rows.filter((row) => {
    const fields = JSON.parse(row.fields) as string[];
    return row.op !== 'update' || !fields.every((field) => conflicted.has(`${row.model}:${row.record_id}:${field}`));
  }).length;
}

export interface SyncHarnessOptions {
  serverRates?: unknown;
  remoteRates?: ThrottleRates;
  pollIntervalSeconds?: number;
  /** More agent options (project folders, upload sizes). */
  agent?: Partial<AgentOptions>;
}

export async function startSyncHarness(options: SyncHarnessOptions = {}): Promise<SyncHarness> {
  const server = await startTestServer({ throttleRates: options.serverRates });
  const proxy = await startFaultProxy(server.baseUrl);
  const dataDir = makeTempDir('solardesk-agent-');
  const agentOptions = {
    dataDir,
    pollIntervalSeconds: options.pollIntervalSeconds ?? 3600,
    retry: { firstDelayMs: 100, factor: 2, maxDelayMs: 1000 },
    offlineRetryMs: 100,
    remoteRates: options.remoteRates,
    ...options.agent,
  };
  let agent = await startAgent({ ...agentOptions, remote: proxy.url, username: DEMO_USERS.sunriseAdmin, password: DEMO_PASSWORD });
  const remoteToken = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  const others: Array<{ agent: Agent; dataDir: string }> = [];

  const harness: SyncHarness = {
    server,
    proxy,
    get agent() {
      return agent;
    },
    dataDir,
    local: (method, path, body) => requestJson(agent.localApiUrl, method, path, { token: agent.localToken, body }),
    remote: (method, path, body) => requestJson(server.baseUrl, method, path, { token: remoteToken, body }),
    synced: (timeoutMs) => waitUntilSynced(agent, timeoutMs),
    async restartAgent() {
      await agent.close();
      agent = await startAgent(agentOptions);
    },
    async addAgent(more = {}) {
      const otherDir = makeTempDir('solardesk-agent-');
      const other = await startAgent({ ...agentOptions, ...more, dataDir: otherDir, remote: proxy.url, username: DEMO_USERS.sunriseAdmin, password: DEMO_PASSWORD });
      others.push({ agent: other, dataDir: otherDir });
      const handle: AnotherAgent = {
        agent: other,
        dataDir: otherDir,
        local: (method, path, body) => requestJson(other.localApiUrl, method, path, { token: other.localToken, body }),
        synced: (timeoutMs) => waitUntilSynced(other, timeoutMs),
      };
      await handle.synced();
      return handle;
    },
    async close() {
      for (const other of others) {
        await other.agent.close();
        fs.rmSync(other.dataDir, { recursive: true, force: true });
      }
      await agent.close();
      await proxy.close();
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await harness.synced();
  return harness;
}
