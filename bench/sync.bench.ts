// sync.offline_edits: 200 edits made offline across 40 projects, then reconnect.
// Against the real default quotas scaled down 60 times (10 project writes a minute
// become 10 a second), it reports the write requests sent over the coalesced
// minimum (one PATCH per project) and the wall time to converge over the quota's
// lower bound for those writes.
import type { Benchmark, BenchResult } from './bench-types.ts';
import { startSyncHarness } from '../main/sync/testing/sync-harness.ts';
import { DEFAULT_THROTTLE_RATES, type ThrottleRates, scaleRates } from '../shared/throttle-rates.ts';
import { QuotaPacer } from '../main/sync/quota-pacer.ts';
import { systemClock } from '../main/engine/clock.ts';
import { apiPaths } from '../shared/api-paths.ts';

const SCALE = 60;
const PROJECTS = 40;
const EDITS = 200;

export const benchmarks: Benchmark[] = [
  {
    name: 'sync.offline_edits',
    description: `${EDITS} offline edits across ${PROJECTS} projects, default quotas scaled ${SCALE}x`,
    async run(): Promise<BenchResult[]> {
      const rates = scaleRates(DEFAULT_THROTTLE_RATES, SCALE) as ThrottleRates;
      const harness = await startSyncHarness({ serverRates: rates, remoteRates: rates });
      try {
        harness.proxy.setOffline(true);
        for (let edit = 0; edit < EDITS; edit++) {
          const project = (edit % PROJECTS) + 1;
          const response = await harness.local('PATCH', apiPaths.project(1, project), { notes: `edit ${edit}`, priority: (edit % 3) + 1 });
          if (response.status !== 200) throw new Error(`local edit failed: ${response.status} ${response.text}`);
        }
        const patchPath = /^\/api\/orgs\/1\/projects\/\d+\/$/;
        const writesBefore = harness.proxy.count('PATCH', patchPath);
        const requestsBefore = harness.proxy.log.filter((entry) => entry.status !== 'offline').length;
        const started = performance.now();
        harness.proxy.setOffline(false);
        await harness.synced(600_000);
        const wallMs = performance.now() - started;
        const writes = harness.proxy.count('PATCH', patchPath) - writesBefore;
        const requests = harness.proxy.log.filter((entry) => entry.status !== 'offline').length - requestsBefore;
        const throttled = harness.proxy.log.filter((entry) => entry.status === 429).length;
        const lowerBoundMs = new QuotaPacer(systemClock, rates).lowerBoundMs('project_partial_update', PROJECTS);
        return [
          {
            name: 'sync.offline_edits.requests',
            value: writes,
            baseline: PROJECTS,
            ratio: writes / PROJECTS,
            unit: 'PATCH requests',
            notes: `minimum is one PATCH per edited project; ${requests} requests in all incl. pulls; ${throttled} answered 429`,
          },
          {
            name: 'sync.offline_edits.wall_time',
            value: wallMs / 1000,
            baseline: lowerBoundMs / 1000,
            ratio: wallMs / lowerBoundMs,
            unit: 's',
            notes: `quota ${rates.project_partial_update.user} per user (real 10/min scaled ${SCALE}x); lower bound = ${PROJECTS} writes at that rate`,
          },
        ];
      } finally {
        await harness.close();
      }
    },
  },
];
