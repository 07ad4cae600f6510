// sync.idle_budget: one idle agent at default settings (poll every 30 s, 2 % background
// share) against a demo `solardesk server` process on 127.0.0.1, behind the counting
// proxy (main/sync/testing/fault-proxy.ts, no faults). After the agent's first sync
// (work a person waits for), every request it sends for SOLARDESK_BENCH_IDLE_SECONDS
// (default 600: ten minutes, real time) is counted per throttle bucket, extrapolated
// to a day, and set against that bucket's org-wide daily quota. Target: at most 0.02
// for every bucket (issue 15).
import fs from 'node:fs';
import type { Benchmark, BenchResult } from './bench-types.ts';
import { startServerProcess, stopServerProcess } from '../main/engine/testing/server-process.ts';
import { makeTempDir } from '../main/engine/testing/test-server.ts';
import { startFaultProxy } from '../main/sync/testing/fault-proxy.ts';
import { startAgent } from '../main/sync/agent.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../main/engine/seed/demo-seed.ts';
import { DEFAULT_BACKGROUND_SHARE, DEFAULT_THROTTLE_RATES, type ThrottleAction, bucketOf, isRate, perDay, quotaBuckets } from '../shared/throttle-rates.ts';
import { parseOrgApiPath } from '../shared/api-paths.ts';

const DAY_SECONDS = 86_400;

/**
 * The throttle action the server counts a request against (the routes' `config.throttle`),
 * from its method and path: what the proxy sees.
 */
export function actionOfRequest(method: string, path: string): ThrottleAction {
  const parsed = parseOrgApiPath(path);
  if (!parsed) return 'default';
  const rest = parsed.rest.split('/').filter(Boolean);
  if (parsed.collection === 'private_files') {
    if (rest[0] === 'contents') return 'private_file_contents_update';
    if (rest[0] === 'versions') return 'private_file_versions';
    if (parsed.id === null) return path.includes('/uploads/') ? 'private_file_upload' : method === 'POST' ? 'private_file_create' : 'private_file_list';
    return method === 'GET' ? 'private_file_detail' : method === 'DELETE' ? 'private_file_delete' : 'private_file_partial_update';
  }
  if (parsed.collection === 'projects') {
    if (parsed.id === null) return method === 'POST' ? 'project_create' : 'default';
    if (rest[0] === 'systems') return rest.includes('image') ? 'system_image' : 'system_details';
    if (rest.length === 0) return method === 'GET' ? 'project_detail' : method === 'PUT' ? 'project_update' : method === 'PATCH' ? 'project_partial_update' : 'default';
  }
  return 'default';
}

export const benchmarks: Benchmark[] = [
  {
    name: 'sync.idle_budget',
    description: 'an idle agent at default settings for 10 minutes (SOLARDESK_BENCH_IDLE_SECONDS), requests per bucket a day over the org daily quota',
    async run(): Promise<BenchResult[]> {
      const idleSeconds = Number(process.env.SOLARDESK_BENCH_IDLE_SECONDS ?? '600');
      if (!(idleSeconds > 0)) throw new Error('SOLARDESK_BENCH_IDLE_SECONDS takes a positive number of seconds');
      const serverDir = makeTempDir('solardesk-bench-budget-server-');
      const agentDir = makeTempDir('solardesk-bench-budget-agent-');
      const server = await startServerProcess(['--data', serverDir, '--seed', 'demo']);
      const proxy = await startFaultProxy(server.baseUrl);
      let agent;
      try {
        agent = await startAgent({ dataDir: agentDir, remote: proxy.url, username: DEMO_USERS.sunriseAdmin, password: DEMO_PASSWORD });
        // The first sync is work a person waits for; the idle time starts when it is done.
        const deadline = Date.now() + 120_000;
        while ((await agent.sync.status()).last_synced_at === null) {
          if (Date.now() > deadline) throw new Error(`the first sync did not finish: ${JSON.stringify(await agent.sync.status())}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        await agent.sync.settled();
        const firstSync = proxy.log.length;
        const started = Date.now();
        await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
        await agent.sync.settled();
        const elapsedSeconds = (Date.now() - started) / 1000;
        const idle = proxy.log.slice(firstSync).filter((entry) => entry.status !== 'offline');
        const byBucket = new Map<string, number>();
        for (const entry of idle) {
          const bucket = bucketOf(DEFAULT_THROTTLE_RATES, actionOfRequest(entry.method, entry.path));
          byBucket.set(bucket, (byBucket.get(bucket) ?? 0) + 1);
        }
        const throttled = idle.filter((entry) => entry.status === 429).length;
        const results: BenchResult[] = [];
        for (const bucket of quotaBuckets(DEFAULT_THROTTLE_RATES)) {
          if (!bucket.org || !isRate(bucket.org)) continue;
          const count = byBucket.get(bucket.key) ?? 0;
          if (count === 0 && !['private_files', 'project_detail', 'default'].includes(bucket.key)) continue;
          const perDayCount = (count * DAY_SECONDS) / elapsedSeconds;
          const quota = perDay(bucket.org);
          results.push({
            name: `sync.idle_budget.${bucket.key}`,
            value: Math.round(perDayCount),
            baseline: quota,
            ratio: perDayCount / quota,
            unit: 'requests a day',
            notes: `${count} requests in ${elapsedSeconds.toFixed(0)} s idle (after a first sync of ${firstSync}), extrapolated to a day, over the org's daily quota; target at most ${DEFAULT_BACKGROUND_SHARE}; ${throttled} answered 429`,
          });
        }
        return results;
      } finally {
        await agent?.close();
        await proxy.close();
        await stopServerProcess(server);
        fs.rmSync(serverDir, { recursive: true, force: true });
        fs.rmSync(agentDir, { recursive: true, force: true });
      }
    },
  },
];
