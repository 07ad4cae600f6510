// Issue 15: how soon a change made on a SolarDesk server reaches an idle agent's
// replica, through the change feed (the agent's poll interval at its 30 s default,
// so only the feed can bring it early) against the same agent polling a server
// with `--no-change-feed`. The polling baseline runs with a 10 s poll interval
// (not 30 s) to keep the benchmark short: at the default the baseline would be
// about three times slower still. Median of N changes each
// (SOLARDESK_BENCH_FEED_SAMPLES, default 5), each made at a random moment.
import { startSyncHarness } from '../main/sync/testing/sync-harness.ts';
import { apiPaths } from '../shared/api-paths.ts';
import type { Benchmark } from './bench-types.ts';

const ORG = 1;
const PROJECT = 9;
const SAMPLES = Number(process.env.SOLARDESK_BENCH_FEED_SAMPLES ?? 5);
const BASELINE_POLL_SECONDS = 10;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds from each change on the server to the replica answering it, for `samples` changes. */
async function changeLatencies(feed: boolean, pollIntervalSeconds: number, samples: number): Promise<number[]> {
  const harness = await startSyncHarness({ pollIntervalSeconds, serverChangeFeed: feed });
  try {
    if (feed) {
      for (let waited = 0; harness.agent.feed?.state !== 'listening'; waited += 50) {
        if (waited > 10_000) throw new Error('the agent never started listening to the feed');
        await sleep(50);
      }
    }
    const latencies: number[] = [];
    for (let sample = 0; sample < samples; sample++) {
      await sleep(Math.random() * 2000); // a random moment in the poll cycle
      const notes = `bench ${feed ? 'feed' : 'poll'} ${sample} ${Date.now()}`;
      const started = performance.now();
      const changed = await harness.remote('PATCH', apiPaths.project(ORG, PROJECT), { notes });
      if (changed.status !== 200) throw new Error(`the change failed: ${changed.text}`);
      for (;;) {
        if ((await harness.local('GET', apiPaths.project(ORG, PROJECT))).json?.notes === notes) break;
        if (performance.now() - started > pollIntervalSeconds * 1000 * 3 + 10_000) throw new Error('the change never reached the replica');
        await sleep(20);
      }
      latencies.push(performance.now() - started);
    }
    return latencies;
  } finally {
    await harness.close();
  }
}

export const benchmarks: Benchmark[] = [
  {
    name: 'sync.change_feed_latency',
    description: `a server change reaching an idle agent: change feed (30 s poll) vs polling (${BASELINE_POLL_SECONDS} s poll), median of ${SAMPLES}`,
    async run() {
      const withFeed = await changeLatencies(true, 30, SAMPLES);
      const polling = await changeLatencies(false, BASELINE_POLL_SECONDS, SAMPLES);
      const value = median(withFeed);
      const baseline = median(polling);
      return [
        {
          name: 'sync.change_feed_latency',
          value,
          baseline,
          ratio: value / baseline,
          unit: 'ms',
          notes: `median of ${SAMPLES}; feed ${withFeed.map((ms) => ms.toFixed(0)).join('/')} ms, polling every ${BASELINE_POLL_SECONDS} s ${polling.map((ms) => ms.toFixed(0)).join('/')} ms`,
        },
      ];
    },
  },
];
