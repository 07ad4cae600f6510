// The engine on PostgreSQL, and scaled out over several processes, under the
// same load as bench/engine.bench.ts (autocannon, 10 connections, 127.0.0.1):
//   scale.postgres.{detail,list,patch}   one `solardesk server` on PostgreSQL (value)
//       over one on SQLite (baseline), both holding the same data (the demo data,
//       Sunrise Solar grown to 200 projects as bench/bench-servers.ts grows it)
//   scale.processes.{detail,list,patch}  three server processes on one PostgreSQL
//       behind the round-robin proxy (value) over one process on the same
//       PostgreSQL behind the same proxy (baseline): the proxy's cost is in both
// The requests are engine.bench's: GET /projects/1/ (with its design), GET
// /projects/?limit=100, and PATCH {"notes": <new value>} with two webhooks on
// project.notes; scale.processes.patch spreads its PATCHes over all 200 projects,
// and each of its sides has a store of its own on the same PostgreSQL. Both sides
// of a comparison run side by side and are measured baseline-value-value-baseline;
// before each PATCH window every webhook delivery queued so far has arrived.
// The PostgreSQL is a throwaway cluster started here (main/engine/testing/
// postgres-for-tests.ts) unless SOLARDESK_TEST_POSTGRES_URL names one; each store
// is a schema of its own, dropped again, and every process started is stopped,
// also when a run fails.
import os from 'node:os';
import type { Benchmark, BenchResult } from './bench-types.ts';
import { ENGINE_LOAD, UNTHROTTLED_NOTE, createBenchStore, type BenchEngine } from './bench-servers.ts';
import { type RoundRobinProxy } from '../main/engine/testing/round-robin-proxy.ts';
import { type WebhookReceiver } from '../main/engine/testing/webhook-receiver.ts';
import { requireAllOk, runLoad, type LoadOptions, type LoadRequest } from '../main/hardening/load-generator.ts';
import { apiPaths } from '../shared/api-paths.ts';

import { benchRoot, createPostgresStore, scoped, startPostgres, startPostgresEngines, startProxy, startReceivers, startSqliteEngine, type PostgresServer } from './scale-resources.ts';
const { connections: CONNECTIONS, warmUpSeconds: WARM_UP_SECONDS, sunriseProjects: SUNRISE_PROJECTS, detailPath: DETAIL_PATH, listPath: LIST_PATH } = ENGINE_LOAD;
/** Measured seconds per side: GETs in two halves, baseline-value-value-baseline; a PATCH side in one go. */
const SECONDS = 8;
const SCALED_PROCESSES = 3;

// ---------------------------------------------------------------------------
// Requests and measurements.

const kb = (text: string) => `${(Buffer.byteLength(text) / 1024).toFixed(1)} KB`;

/** Times from here on were written by this run's seeding (the demo files' upload times), not taken from the seed. */
const benchLoadedAt = Date.now();

/**
 * The detail and list answers with what legitimately differs between two stores
 * taken out: addresses, tokens and signed links made with each store's own secret,
 * and the times the seeding itself wrote.
 */
async function answers(engine: BenchEngine): Promise<{ detail: string; list: string; bytes: { detail: string; list: string } }> {
  const normalise = (text: string) =>
    text
      .replaceAll(engine.server.baseUrl, 'BASE')
      .replace(/([?&](?:token|expires|signature)=)[\w-]+/g, '$1X')
      .replace(/"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)"/g, (quoted, time: string) => (Date.parse(time) >= benchLoadedAt ? '"SEEDED"' : quoted));
  const detail = await engine.get(DETAIL_PATH);
  const list = await engine.get(LIST_PATH);
  if ((JSON.parse(list) as unknown[]).length !== 100) throw new Error('the list page does not hold 100 projects');
  return { detail: normalise(detail), list: normalise(list), bytes: { detail: kb(detail), list: kb(list) } };
}

function requireSameData(sqlite: { detail: string; list: string }, postgres: { detail: string; list: string }): void {
  for (const which of ['detail', 'list'] as const) {
    if (sqlite[which] !== postgres[which]) {
      const at = [...sqlite[which]].findIndex((char, index) => postgres[which][index] !== char);
      throw new Error(
        `the PostgreSQL store's ${which} differs from the SQLite store's at character ${at}: ` +
          `${JSON.stringify(sqlite[which].slice(Math.max(0, at - 80), at + 80))} vs ${JSON.stringify(postgres[which].slice(Math.max(0, at - 80), at + 80))}`,
      );
    }
  }
}

interface Target {
  url: string;
  token: string;
}

async function load(options: LoadOptions, seconds: number, what: string) {
  const result = await runLoad({ ...options, connections: CONNECTIONS, duration: seconds });
  requireAllOk(result, what);
  return result;
}

/**
 * Requests/s of GET `urlPath` on both targets, after a warm-up of each, measured
 * baseline-value-value-baseline so that drift on the shared machine falls on both.
 */
async function compareGets(urlPath: string, value: Target, baseline: Target): Promise<{ value: number; baseline: number }> {
  const options = (target: Target) => ({ url: `${target.url}${urlPath}`, headers: { authorization: `Bearer ${target.token}` } });
  await runLoad({ ...options(baseline), connections: CONNECTIONS, duration: WARM_UP_SECONDS });
  await runLoad({ ...options(value), connections: CONNECTIONS, duration: WARM_UP_SECONDS });
  const rates = { value: [] as number[], baseline: [] as number[] };
  for (const side of ['baseline', 'value', 'value', 'baseline'] as const) {
    const result = await load(options(side === 'value' ? value : baseline), SECONDS / 2, `${side} GET ${urlPath}`);
    rates[side].push(result.requests.average);
  }
  const mean = (values: number[]) => values.reduce((total, rate) => total + rate, 0) / values.length;
  return { value: mean(rates.value), baseline: mean(rates.baseline) };
}

/** Subscribes two webhooks to project.notes, as engine.bench does. */
async function registerWebhooks(target: Target, receivers: WebhookReceiver[]): Promise<void> {
  for (const receiver of receivers) {
    const created = await fetch(`${target.url}${apiPaths.webhooks(1)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ endpoint: receiver.url, enabled: true, debug: false, trigger_fields: ['project.notes'], payload_fields: ['project.notes'] }),
    });
    if (created.status !== 201) throw new Error(`webhook create: ${created.status} ${await created.text()}`);
  }
}

/** Every Sunrise project's detail path, from two 100-item pages. */
async function sunriseProjectPaths(target: Target): Promise<string[]> {
  const paths: string[] = [];
  for (const page of [1, 2]) {
    const response = await fetch(`${target.url}${apiPaths.projects(1)}?limit=100&page=${page}`, { headers: { authorization: `Bearer ${target.token}` } });
    if (response.status !== 200) throw new Error(`GET projects page ${page}: ${response.status}`);
    paths.push(...((await response.json()) as Array<{ id: number }>).map((project) => apiPaths.project(1, project.id)));
  }
  if (new Set(paths).size !== SUNRISE_PROJECTS) throw new Error(`expected ${SUNRISE_PROJECTS} distinct projects, got ${new Set(paths).size}`);
  return paths;
}

interface PatchRun {
  rate: number;
  patches: number;
  delivered: number;
}

interface PatchSide {
  target: Target;
  /** The detail paths PATCHed in turn. */
  paths: string[];
}

/** How long the receivers may take to catch up with the deliveries queued so far before a window starts. */
const DRAIN_TIMEOUT_MS = 120_000;
/** ...and then have received nothing for this long. */
const QUIET_MS = 500;

let patchesSent = 0;

/**
 * Requests/s of PATCH {"notes": <new value each time>} over each side's paths in
 * turn, after a warm-up of each, measured baseline-value-value-baseline. Every
 * PATCH queues one delivery per receiver; before each window the receivers must
 * have got all queued so far, so no side's delivery backlog runs in the other's window.
 */
async function comparePatches(value: PatchSide, baseline: PatchSide, receivers: WebhookReceiver[]) {
  const options = (side: PatchSide): LoadOptions => ({
    url: `${side.target.url}${side.paths[0]!}`,
    method: 'PATCH',
    headers: { authorization: `Bearer ${side.target.token}`, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (request: LoadRequest) => {
          const sent = ++patchesSent;
          return { ...request, path: side.paths[sent % side.paths.length]!, body: JSON.stringify({ notes: `bench ${sent}` }) };
        },
      },
    ],
  });
  const delivered = () => Math.min(...receivers.map((receiver) => receiver.calls.length));
  const before = delivered();
  let queued = 0;
  let drainMs = 0;
  // `queued` counts the PATCHes autocannon saw answered; those still in flight when a
  // window closed were made too, so the receivers must also have gone quiet.
  const drain = async () => {
    const started = Date.now();
    let last = delivered();
    let lastChange = started;
    while (delivered() - before < queued || Date.now() - lastChange < QUIET_MS) {
      if (Date.now() - started > DRAIN_TIMEOUT_MS) throw new Error(`webhook delivery fell behind: ${delivered() - before} of ${queued} delivered after ${DRAIN_TIMEOUT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (delivered() !== last) [last, lastChange] = [delivered(), Date.now()];
    }
    drainMs += Date.now() - started;
  };
  for (const side of [baseline, value]) {
    queued += (await runLoad({ ...options(side), connections: CONNECTIONS, duration: WARM_UP_SECONDS }))['2xx'];
  }
  const runs = { value: [] as PatchRun[], baseline: [] as PatchRun[] };
  for (const which of ['baseline', 'value', 'value', 'baseline'] as const) {
    await drain();
    const deliveredBefore = delivered();
    const run = await load(options(which === 'value' ? value : baseline), SECONDS / 2, `${which} PATCH`);
    queued += run['2xx'];
    runs[which].push({ rate: run.requests.average, patches: run['2xx'], delivered: delivered() - deliveredBefore });
  }
  await drain();
  const combine = (windows: PatchRun[]): PatchRun => ({
    rate: windows.reduce((total, window) => total + window.rate, 0) / windows.length,
    patches: windows.reduce((total, window) => total + window.patches, 0),
    delivered: windows.reduce((total, window) => total + window.delivered, 0),
  });
  return { value: combine(runs.value), baseline: combine(runs.baseline), drainSeconds: drainMs / 1000 };
}

function result(name: string, value: number, baseline: number, notes: string): BenchResult {
  return { name, value, baseline, ratio: value / baseline, unit: 'requests/s', notes };
}

const loadNote = `${CONNECTIONS} connections from autocannon`;
const sqliteNote = 'SQLite in WAL mode with synchronous=NORMAL (no fsync per commit either)';
const machineNote = () =>
  `${os.cpus().length} vCPU shared by the load generator and the proxy (one Node process), the server processes and PostgreSQL; ${UNTHROTTLED_NOTE}`;
const getTiming = `${SECONDS} s per side (baseline, value, value, baseline halves) after ${WARM_UP_SECONDS} s warm-up each`;
const patchTiming = (drainSeconds: number) =>
  `${getTiming}; before each window the 127.0.0.1 receivers had got every delivery queued so far and gone quiet for ${QUIET_MS} ms (${drainSeconds.toFixed(1)} s of waiting in all)`;
const patchNote = (run: PatchRun) =>
  `${run.patches} PATCHes each queued a delivery to both receivers, ${run.delivered} per receiver arrived during its windows`;

// ---------------------------------------------------------------------------
// scale.postgres.*: one process on PostgreSQL over one on SQLite.

function postgresGet(name: string, which: 'detail' | 'list', urlPath: string): Benchmark {
  return {
    name,
    description: `GET ${which === 'detail' ? 'a project (with design)' : '100-item project pages'}: one server on PostgreSQL vs one on SQLite, same data`,
    run: () =>
      scoped(async (defer) => {
        const postgres = await startPostgres(defer);
        const sqliteStore = await createBenchStore(SUNRISE_PROJECTS);
        defer(async () => sqliteStore.remove());
        const store = await createPostgresStore(defer, postgres, sqliteStore.root);
        const sqlite = await startSqliteEngine(defer, sqliteStore, []);
        const [onPostgres] = await startPostgresEngines(defer, sqliteStore, store, 1, []);
        const sqliteAnswers = await answers(sqlite);
        requireSameData(sqliteAnswers, await answers(onPostgres!));
        const rates = await compareGets(
          urlPath,
          { url: onPostgres!.server.baseUrl, token: onPostgres!.token },
          { url: sqlite.server.baseUrl, token: sqlite.token },
        );
        return [
          result(
            name,
            rates.value,
            rates.baseline,
            `${postgres.description} vs ${sqliteNote}; GET ${urlPath}, ${sqliteAnswers.bytes[which]} answer, the same on both stores; ${loadNote}, ${getTiming}; ` +
              `${machineNote()}; higher is better, 1 = as fast as on SQLite`,
          ),
        ];
      }),
  };
}

const postgresPatch: Benchmark = {
  name: 'scale.postgres.patch',
  description: 'PATCH a project with two webhooks subscribed: one server on PostgreSQL vs one on SQLite, same data',
  run: () =>
    scoped(async (defer) => {
      const postgres = await startPostgres(defer);
      const receivers = await startReceivers(defer);
      const sqliteStore = await createBenchStore(SUNRISE_PROJECTS);
      defer(async () => sqliteStore.remove());
      const store = await createPostgresStore(defer, postgres, sqliteStore.root);
      const args = ['--allow-private-webhook-endpoints'];
      const sqlite = await startSqliteEngine(defer, sqliteStore, args);
      const [onPostgres] = await startPostgresEngines(defer, sqliteStore, store, 1, args);
      const sqliteAnswers = await answers(sqlite);
      requireSameData(sqliteAnswers, await answers(onPostgres!));
      // engine.bench's PATCH: always project 1.
      const sides = [onPostgres!, sqlite].map((engine) => ({ target: { url: engine.server.baseUrl, token: engine.token }, paths: [DETAIL_PATH] }));
      for (const side of sides) await registerWebhooks(side.target, receivers);
      const runs = await comparePatches(sides[0]!, sides[1]!, receivers);
      return [
        result(
          'scale.postgres.patch',
          runs.value.rate,
          runs.baseline.rate,
          `${postgres.description} vs ${sqliteNote}; PATCH ${DETAIL_PATH} {"notes"} with two webhooks on project.notes (as engine.bench), ${sqliteAnswers.bytes.detail} answer; ` +
            `PostgreSQL: ${patchNote(runs.value)}; SQLite: ${patchNote(runs.baseline)}; ${loadNote}, ${patchTiming(runs.drainSeconds)}; ` +
            `${machineNote()}; higher is better, 1 = as fast as on SQLite`,
        ),
      ];
    }),
};

// ---------------------------------------------------------------------------
// scale.processes.*: three processes behind the proxy over one behind it.

const answeredNote = (proxy: RoundRobinProxy) => `the ${proxy.answered.length} processes answered ${proxy.answered.join('/')} requests`;
const processesNote = (postgres: PostgresServer) =>
  `${postgres.description}; ${SCALED_PROCESSES} processes vs 1, both behind the round-robin proxy (main/engine/testing/round-robin-proxy.ts) in the load generator's process`;

function processesGet(name: string, which: 'detail' | 'list', urlPath: string): Benchmark {
  return {
    name,
    description: `GET ${which === 'detail' ? 'a project (with design)' : '100-item project pages'}: ${SCALED_PROCESSES} server processes on one PostgreSQL vs 1, behind the same proxy`,
    run: () =>
      scoped(async (defer) => {
        const postgres = await startPostgres(defer);
        const root = benchRoot(defer);
        const store = await createPostgresStore(defer, postgres, root.root);
        const engines = await startPostgresEngines(defer, root, store, SCALED_PROCESSES, []);
        const single = await startProxy(defer, engines.slice(0, 1));
        const scaled = await startProxy(defer, engines);
        const body = await engines[0]!.get(urlPath);
        const token = engines[0]!.token;
        const rates = await compareGets(urlPath, { url: scaled.url, token }, { url: single.url, token });
        const spread = scaled.answered;
        if (spread.some((count) => count === 0)) throw new Error(`a process answered nothing: ${spread.join('/')}`);
        return [
          result(
            name,
            rates.value,
            rates.baseline,
            `${processesNote(postgres)} (all ${SCALED_PROCESSES} running during both); GET ${urlPath}, ${kb(body)} answer; ${answeredNote(scaled)}; ` +
              `${loadNote}, ${getTiming}; ${machineNote()}; higher is better, ${SCALED_PROCESSES} = linear scaling, 1 = no gain`,
          ),
        ];
      }),
  };
}

const processesPatch: Benchmark = {
  name: 'scale.processes.patch',
  description: `PATCH projects with two webhooks subscribed: ${SCALED_PROCESSES} server processes on one PostgreSQL vs 1, behind the same proxy`,
  run: () =>
    scoped(async (defer) => {
      const postgres = await startPostgres(defer);
      const receivers = await startReceivers(defer);
      const root = benchRoot(defer);
      // A store each, so that the baseline's PATCHes and deliveries are no part of the scaled-out store's work.
      const side = async (count: number) => {
        const store = await createPostgresStore(defer, postgres, root.root);
        const engines = await startPostgresEngines(defer, root, store, count, ['--allow-private-webhook-endpoints']);
        const proxy = await startProxy(defer, engines);
        const target = { url: proxy.url, token: engines[0]!.token };
        await registerWebhooks(target, receivers);
        return { proxy, target, paths: await sunriseProjectPaths(target) };
      };
      const single = await side(1);
      const scaled = await side(SCALED_PROCESSES);
      const runs = await comparePatches(scaled, single, receivers);
      if (scaled.proxy.answered.some((answered) => answered === 0)) throw new Error(`a process answered nothing: ${scaled.proxy.answered.join('/')}`);
      return [
        result(
          'scale.processes.patch',
          runs.value.rate,
          runs.baseline.rate,
          `${processesNote(postgres)}, each on a store of its own on that server; PATCH {"notes"} to each of Sunrise's ${SUNRISE_PROJECTS} projects in turn, ` +
            `two webhooks on project.notes; ${SCALED_PROCESSES} processes: ${patchNote(runs.value)}, ${answeredNote(scaled.proxy)}; 1 process: ${patchNote(runs.baseline)}; ` +
            `${loadNote}, ${patchTiming(runs.drainSeconds)}; ${machineNote()}; higher is better, ${SCALED_PROCESSES} = linear scaling, 1 = no gain`,
        ),
      ];
    }),
};

export const benchmarks: Benchmark[] = [
  postgresGet('scale.postgres.detail', 'detail', DETAIL_PATH),
  postgresGet('scale.postgres.list', 'list', LIST_PATH),
  postgresPatch,
  processesGet('scale.processes.detail', 'detail', DETAIL_PATH),
  processesGet('scale.processes.list', 'list', LIST_PATH),
  processesPatch,
];
