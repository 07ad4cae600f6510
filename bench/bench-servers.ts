// What the HTTP benchmarks share: a data folder holding the demo data plus
// generated projects, `solardesk server` on it in its own process with quotas
// that never throttle the load, and the baseline, a bare Fastify server (the
// engine's own Fastify) in its own process answering fixed JSON.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../main/engine/engine.ts';
import { DEMO_ORGS, DEMO_PASSWORD, DEMO_SEED, DEMO_USERS, insertGeneratedProjects, seedDemo } from '../main/engine/seed/demo-seed.ts';
import { generateProject } from '../main/engine/seed/generator.ts';
import { UNTHROTTLED_RATES, makeTempDir } from '../main/engine/testing/test-server.ts';
import { signIn, startServerProcess, stopServerProcess, type ServerProcess } from '../main/engine/testing/server-process.ts';
import { quantile } from '../main/hardening/load-generator.ts';
import { spawnListening, stopProcess } from '../main/hardening/spawn-listening.ts';

const benchDir = path.dirname(fileURLToPath(import.meta.url));

/** The seed of the generated projects added to Sunrise Solar (not the demo's own). */
const EXTRA_SEED = DEMO_SEED + 500;

/** The engine load of engine.bench.ts and scale.bench.ts: connections, warm-up, and what is asked for. */
export const ENGINE_LOAD = {
  connections: 10,
  warmUpSeconds: 2,
  /** Sunrise Solar grown to a full 100-item page and more. */
  sunriseProjects: 200,
  detailPath: '/api/orgs/1/projects/1/',
  listPath: '/api/orgs/1/projects/?limit=100',
} as const;
const NEWEST_FROM = Date.UTC(2027, 0, 1);

export interface BenchStore {
  /** The temp folder holding the data folder and the throttle config; removed by `remove()`. */
  root: string;
  dataDir: string;
  throttleConfig: string;
  remove(): void;
}

/** A data folder with the demo data, its Sunrise Solar grown to `sunriseProjects` projects (no designs on the added ones). */
export async function createBenchStore(sunriseProjects: number, options: { newest?: boolean } = {}): Promise<BenchStore> {
  const root = makeTempDir('solardesk-bench-');
  const dataDir = path.join(root, 'data');
  const throttleConfig = path.join(root, 'unthrottled.json');
  fs.writeFileSync(throttleConfig, JSON.stringify(UNTHROTTLED_RATES));
  const engine = await createEngine({ dataDir, deliverWebhooks: false });
  try {
    await seedDemo(engine.context);
  } finally {
    await engine.close();
  }
  await growSunrise(dataDir, sunriseProjects, options);
  return { root, dataDir, throttleConfig, remove: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/**
 * Adds generated projects to Sunrise Solar until it holds `target`; the same seed
 * always adds the same projects. `newest` dates them after every demo project
 * (one a minute from 2027 on), so the default list order shows them first.
 * `database` grows a PostgreSQL store the same way (bench/scale.bench.ts).
 */
export async function growSunrise(
  dataDir: string,
  target: number,
  options: { newest?: boolean; database?: string; blobDir?: string } = {},
): Promise<void> {
  const engine = await createEngine({ dataDir, database: options.database, blobDir: options.blobDir, deliverWebhooks: false, dataFolder: 'guest' });
  try {
    const { count } = await engine.context.db
      .selectFrom('projects')
      .select((builder) => builder.fn.countAll<number>().as('count'))
      .where('org_id', '=', DEMO_ORGS.sunrise)
      .executeTakeFirstOrThrow();
    const have = Number(count);
    const batch = 10_000;
    for (let start = have; start < target; start += batch) {
      const size = Math.min(batch, target - start);
      const projects = Array.from({ length: size }, (_, index) => {
        const project = generateProject(EXTRA_SEED, start + index, { withDesign: false });
        return options.newest ? { ...project, created_date: new Date(NEWEST_FROM + (start + index) * 60_000).toISOString() } : project;
      });
      await insertGeneratedProjects(engine.context, DEMO_ORGS.sunrise, projects);
    }
  } finally {
    await engine.close();
  }
}

export interface BenchEngine {
  server: ServerProcess;
  token: string;
  /** GETs a path as the Sunrise admin and returns the body, insisting on 200. */
  get(urlPath: string): Promise<string>;
  stop(): Promise<void>;
}

/** `solardesk server` on the store, in its own process, with quotas the load never reaches. */
export async function startBenchEngine(store: BenchStore, extraArgs: string[] = []): Promise<BenchEngine> {
  const server = await startServerProcess(['--data', store.dataDir, '--throttle-config', store.throttleConfig, ...extraArgs]);
  let token: string;
  try {
    token = await signIn(server.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
  } catch (error) {
    await stopServerProcess(server, 'SIGKILL');
    throw error;
  }
  return {
    server,
    token,
    async get(urlPath) {
      const response = await fetch(`${server.baseUrl}${urlPath}`, { headers: { authorization: `Bearer ${token}` } });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`GET ${urlPath}: ${response.status} ${text.slice(0, 200)}`);
      return text;
    },
    async stop() {
      const code = await stopServerProcess(server);
      if (code !== 0) throw new Error(`the engine exited with ${code}: ${server.stderr()}`);
    },
  };
}

export const UNTHROTTLED_NOTE = 'engine quotas raised to 1,000,000/min (UNTHROTTLED_RATES) so the load is never throttled';

export interface BareServer {
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * The baseline: bench/bare-server.ts in its own process, answering `GET /detail`,
 * `GET /list` and `PATCH /detail` with these exact JSON bodies.
 */
export async function startBareServer(bodies: { detail: string; list: string }): Promise<BareServer> {
  const file = path.join(makeTempDir('solardesk-bench-bare-'), 'bodies.json');
  fs.writeFileSync(file, JSON.stringify(bodies));
  const { child, baseUrl } = await spawnListening(['--import', 'tsx', path.join(benchDir, 'bare-server.ts'), file], { what: 'the bare server' });
  return {
    baseUrl,
    async stop() {
      await stopProcess(child);
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    },
  };
}

/**
 * Latencies of `count` GETs sent one after another over one kept-alive
 * connection, in milliseconds, after `warmUp` unmeasured ones.
 */
export async function sequentialLatencies(url: string, token: string, count: number, warmUp = 100): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const started = process.hrtime.bigint();
      const request = http.get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
        response.resume();
        response.on('end', () => {
          if (response.statusCode !== 200) reject(new Error(`GET ${url}: ${response.statusCode}`));
          else resolve(Number(process.hrtime.bigint() - started) / 1e6);
        });
      });
      request.on('error', reject);
    });
  try {
    for (let index = 0; index < warmUp; index++) await once();
    const latencies: number[] = [];
    for (let index = 0; index < count; index++) latencies.push(await once());
    return latencies;
  } finally {
    agent.destroy();
  }
}

export const median = (values: readonly number[]) => quantile(values, 0.5);
