// store.scale: does the engine slow down as an org grows? Median latency of a
// project's detail and of the first 100-item list page when Sunrise Solar holds
// 10,000 and 100,000 projects, over the same at 1,000. The same store grows
// between measurements (generated projects without designs, dated after the demo
// ones so the default list order shows a page of them at every size), and the
// same project is fetched at every size. Requests go one at a time over one
// kept-alive connection to `solardesk server` in its own process: latency, not throughput.
// Besides the default order: the natural title order and word searches (issue 20),
// and the systems list, whole and of one project (issue 16).
import type { Benchmark, BenchResult } from './bench-types.ts';
import { UNTHROTTLED_NOTE, createBenchStore, growSunrise, median, sequentialLatencies, startBenchEngine } from './bench-servers.ts';
import { apiPaths } from '../shared/api-paths.ts';

const SIZES = [1_000, 10_000, 100_000] as const;
const DETAIL_REQUESTS = 300;
const LIST_REQUESTS = 100;
const LIST_PATH = '/api/orgs/1/projects/?limit=100';
/** Issue 20: the list in natural title order, a one-word search and a two-word search (each word anywhere). */
const TITLE_PATH = '/api/orgs/1/projects/?limit=100&ordering=title';
const WORD_PATH = '/api/orgs/1/projects/?limit=100&search=waratah';
const WORDS_PATH = '/api/orgs/1/projects/?limit=100&search=Waratah%20Glenelg';
/** Issue 16: the systems resource (read from the designs) and one project's systems. */
const SYSTEMS_PATH = '/api/orgs/1/systems/?fieldset=list&limit=100';
const PROJECT_SYSTEMS_PATH = '/api/orgs/1/systems/?fieldset=list&project=1';

const LISTS = [
  ['listMs', 'list', LIST_PATH],
  ['titleMs', 'list_title', TITLE_PATH],
  ['wordMs', 'search_word', WORD_PATH],
  ['wordsMs', 'search_words', WORDS_PATH],
  ['systemsMs', 'systems', SYSTEMS_PATH],
  ['projectSystemsMs', 'project_systems', PROJECT_SYSTEMS_PATH],
] as const;

type Measured = { detailMs: number } & Record<(typeof LISTS)[number][0], number>;

export const benchmarks: Benchmark[] = [
  {
    name: 'store.scale',
    description: 'detail and list latency at 10,000 and 100,000 projects over the same at 1,000',
    async run(): Promise<BenchResult[]> {
      const store = await createBenchStore(SIZES[0], { newest: true });
      const measured = new Map<number, Measured>();
      let detailPath = '';
      try {
        for (const size of SIZES) {
          await growSunrise(store.dataDir, size, { newest: true });
          const engine = await startBenchEngine(store);
          try {
            if (!detailPath) {
              // The first generated project (Sunrise's 49th by id): there at every size.
              const [first] = JSON.parse(await engine.get('/api/orgs/1/projects/?ordering=id&limit=1&page=49')) as Array<{ id: number }>;
              detailPath = apiPaths.project(1, first!.id);
            }
            const detail = await sequentialLatencies(`${engine.server.baseUrl}${detailPath}`, engine.token, DETAIL_REQUESTS);
            const lists: Partial<Measured> = { detailMs: median(detail) };
            for (const [key, , listPath] of LISTS) lists[key] = median(await sequentialLatencies(`${engine.server.baseUrl}${listPath}`, engine.token, LIST_REQUESTS));
            measured.set(size, lists as Measured);
          } finally {
            await engine.stop();
          }
        }
      } finally {
        store.remove();
      }
      const base = measured.get(SIZES[0])!;
      const rows: BenchResult[] = [];
      const measures = [['detailMs', 'detail', DETAIL_REQUESTS, detailPath], ...LISTS.map(([key, label, listPath]) => [key, label, LIST_REQUESTS, listPath] as const)] as const;
      for (const [key, label, requests, requestPath] of measures) {
        for (const size of SIZES.slice(1)) {
          const value = measured.get(size)![key];
          rows.push({
            name: `store.scale.${label}_${size / 1000}k`,
            value,
            baseline: base[key],
            ratio: value / base[key],
            unit: 'ms (p50)',
            notes:
              `GET ${requestPath} at ${size.toLocaleString('en')} projects vs ${SIZES[0].toLocaleString('en')}; ` +
              `median of ${requests} sequential requests; ${UNTHROTTLED_NOTE}; lower is better, 1 = no slower as the org grows`,
          });
        }
      }
      return rows;
    },
  },
];
