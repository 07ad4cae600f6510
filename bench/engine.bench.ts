// The engine's HTTP answers under load (autocannon, 127.0.0.1), each against a
// bare Fastify server in its own process answering fixed JSON of the same bytes:
//   engine.project_detail  GET /projects/1/ (with its design: Raw Data API Access)
//   engine.project_list    GET /projects/?limit=100 (100-item pages)
//   engine.project_patch   PATCH /projects/1/ {"notes"} with two webhooks subscribed
//   engine.project_patch.deliveries  webhook deliveries made during that run over those it queued
//   engine.project_patch.server_rss  the server's resident memory at the end of that run over before it
// ratio = engine requests/s over the bare server's: the share of the framework's
// own speed left after auth, throttle, store, change capture and serialisation.
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Benchmark, BenchResult } from './bench-types.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../main/engine/testing/webhook-receiver.ts';
import { requireAllOk, runLoad, type LoadOptions, type LoadRequest } from '../main/hardening/load-generator.ts';
import { ENGINE_LOAD, UNTHROTTLED_NOTE, createBenchStore, startBareServer, startBenchEngine, type BareServer, type BenchEngine, type BenchStore } from './bench-servers.ts';
import { apiPaths } from '../shared/api-paths.ts';
import { processMemoryMb } from './process-memory.ts';

const { connections: CONNECTIONS, warmUpSeconds: WARM_UP_SECONDS, sunriseProjects: SUNRISE_PROJECTS, detailPath: DETAIL_PATH, listPath: LIST_PATH } = ENGINE_LOAD;
const SECONDS = 10;

interface Servers {
  store: BenchStore;
  engine: BenchEngine;
  bare: BareServer;
  detail: string;
  list: string;
}

async function withServers<T>(extraArgs: string[], work: (servers: Servers) => Promise<T>): Promise<T> {
  const store = await createBenchStore(SUNRISE_PROJECTS);
  let engine: BenchEngine | undefined;
  let bare: BareServer | undefined;
  try {
    engine = await startBenchEngine(store, extraArgs);
    const detail = await engine.get(DETAIL_PATH);
    const list = await engine.get(LIST_PATH);
    if ((JSON.parse(list) as unknown[]).length !== 100) throw new Error('the list page does not hold 100 projects');
    bare = await startBareServer({ detail, list });
    for (const [bareUrl, body] of [[`${bare.baseUrl}/detail`, detail], [`${bare.baseUrl}/list`, list]] as const) {
      const answer = await (await fetch(bareUrl)).text();
      if (answer.length !== body.length) throw new Error(`the bare server's answer at ${bareUrl} is ${answer.length} bytes, not ${body.length}`);
    }
    return await work({ store, engine, bare, detail, list });
  } finally {
    await bare?.stop();
    await engine?.stop();
    store.remove();
  }
}

/** Requests per second of a run after a warm-up; every answer must be 2xx. */
async function requestsPerSecond(options: Omit<LoadOptions, 'duration' | 'connections'>, what: string): Promise<number> {
  await runLoad({ ...options, connections: CONNECTIONS, duration: WARM_UP_SECONDS });
  const result = await runLoad({ ...options, connections: CONNECTIONS, duration: SECONDS });
  requireAllOk(result, what);
  return result.requests.average;
}

function compare(name: string, engineRate: number, bareRate: number, notes: string): BenchResult {
  return { name, value: engineRate, baseline: bareRate, ratio: engineRate / bareRate, unit: 'requests/s', notes };
}

const kb = (text: string) => `${(Buffer.byteLength(text) / 1024).toFixed(1)} KB`;
const load = `${CONNECTIONS} connections, ${SECONDS} s after ${WARM_UP_SECONDS} s warm-up`;

/** GETs of one engine path under load, against the bare server answering the same body at /detail or /list. */
function getBenchmark(name: string, description: string, enginePath: string, which: 'detail' | 'list', note: string): Benchmark {
  return {
    name,
    description,
    run: () =>
      withServers([], async (servers) => {
        const headers = { authorization: `Bearer ${servers.engine.token}` };
        const engineRate = await requestsPerSecond({ url: `${servers.engine.server.baseUrl}${enginePath}`, headers }, `engine ${which}`);
        const bareRate = await requestsPerSecond({ url: `${servers.bare.baseUrl}/${which}` }, `bare ${which}`);
        return [compare(name, engineRate, bareRate, `${note}${kb(servers[which])} answer; ${load}; ${UNTHROTTLED_NOTE}; higher is better, 1 = as fast as bare Fastify`)];
      }),
  };
}

const projectDetail = getBenchmark('engine.project_detail', 'GET a project (with design) under load vs a bare Fastify server answering the same JSON', DETAIL_PATH, 'detail', '');
const projectList = getBenchmark(
  'engine.project_list',
  'GET 100-item project pages under load vs a bare Fastify server answering the same JSON',
  LIST_PATH,
  'list',
  `limit=100 of ${SUNRISE_PROJECTS} projects (the demo's 48 with designs among them), `,
);

const projectPatch: Benchmark = {
  name: 'engine.project_patch',
  description: 'PATCH a project with two webhooks subscribed under load vs a bare Fastify PATCH answering the same JSON',
  run: () =>
    withServers(['--allow-private-webhook-endpoints'], async ({ store, engine, bare, detail }) => {
      const receivers: WebhookReceiver[] = [await startWebhookReceiver(), await startWebhookReceiver()];
      try {
        const headers = { authorization: `Bearer ${engine.token}`, 'content-type': 'application/json' };
        for (const receiver of receivers) {
          const created = await fetch(`${engine.server.baseUrl}${apiPaths.webhooks(1)}`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ endpoint: receiver.url, enabled: true, debug: false, trigger_fields: ['project.notes'], payload_fields: ['project.notes'] }),
          });
          if (created.status !== 201) throw new Error(`webhook create: ${created.status} ${await created.text()}`);
        }
        const serverPid = engine.server.child.pid!;
        // The server's memory before any PATCH: its store open, its caches as the detail and list left them.
        const rssBeforeMb = processMemoryMb(serverPid, 'VmRSS');
        // A fresh value on every request, so every PATCH is a change both webhooks deliver.
        let sent = 0;
        const patch = {
          method: 'PATCH',
          requests: [{ setupRequest: (request: LoadRequest) => ({ ...request, body: JSON.stringify({ notes: `bench ${++sent}` }) }) }],
        };
        await runLoad({ url: `${engine.server.baseUrl}${DETAIL_PATH}`, headers, ...patch, connections: CONNECTIONS, duration: WARM_UP_SECONDS });
        const deliveredSoFar = () => receivers[0]!.calls.length + receivers[1]!.calls.length;
        const deliveredBefore = deliveredSoFar();
        const result = await runLoad({ url: `${engine.server.baseUrl}${DETAIL_PATH}`, headers, ...patch, connections: CONNECTIONS, duration: SECONDS });
        requireAllOk(result, 'engine patch');
        const rssAfterMb = processMemoryMb(serverPid, 'VmRSS');
        const peakRssMb = processMemoryMb(serverPid, 'VmHWM');
        const deliveredAtEnd = deliveredSoFar();
        const delivered = deliveredAtEnd - deliveredBefore;
        const queued = 2 * result['2xx'];
        // What was still queued when the run ended (warm-up included), read from the engine's
        // store (a delivery is done once its answer is recorded), and how long the worker
        // took to deliver it.
        const storeDb = new BetterSqlite3(path.join(store.dataDir, 'solardesk.sqlite'), { readonly: true, fileMustExist: true });
        const pendingNow = () => (storeDb.prepare(`select count(*) as count from webhook_deliveries where status = 'pending'`).get() as { count: number }).count;
        let backlog: number;
        let drainS: number;
        let drained: boolean;
        try {
          backlog = pendingNow();
          const drainStarted = performance.now();
          for (let round = 0; round < 1200 && pendingNow() > 0; round++) await new Promise((resolve) => setTimeout(resolve, 50));
          drainS = (performance.now() - drainStarted) / 1000;
          drained = pendingNow() === 0;
        } finally {
          storeDb.close();
        }
        const bareRate = await requestsPerSecond({ url: `${bare.baseUrl}/detail`, headers: { 'content-type': 'application/json' }, ...patch }, 'bare patch');
        const engineRate = result.requests.average;
        return [
          compare(
            'engine.project_patch',
            engineRate,
            bareRate,
            `${result['2xx']} PATCHes queued ${queued} webhook deliveries, ${delivered} delivered to the 127.0.0.1 receivers during the run; ` +
              `${kb(detail)} answer; ${load}; ${UNTHROTTLED_NOTE}; higher is better`,
          ),
          {
            name: 'engine.project_patch.deliveries',
            value: delivered,
            baseline: queued,
            ratio: delivered / queued,
            unit: 'deliveries',
            notes:
              `webhook deliveries made during the PATCH run over those its PATCHes queued (2 webhooks, receivers answering at once); ` +
              `${backlog} deliveries still queued when the run ended (warm-up included), ${drained ? `delivered ${drainS.toFixed(2)} s later` : `NOT drained after ${drainS.toFixed(0)} s`}; higher is better, target at least 0.9`,
          },
          {
            name: 'engine.project_patch.server_rss',
            value: rssAfterMb,
            baseline: rssBeforeMb,
            ratio: rssAfterMb / rssBeforeMb,
            unit: 'MB',
            notes:
              `the solardesk server's resident memory (VmRSS) at the end of the PATCH run (${result['2xx']} PATCHes, after a ${WARM_UP_SECONDS} s warm-up) ` +
              `over the same just before the warm-up; peak ${peakRssMb.toFixed(0)} MB (VmHWM); lower is better, near 1 = nothing kept per PATCH`,
          },
        ];
      } finally {
        for (const receiver of receivers) await receiver.close();
      }
    }),
};

export const benchmarks: Benchmark[] = [projectDetail, projectList, projectPatch];
