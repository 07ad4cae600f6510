// design.decode: reading a ~5 MB design (the JSON) the way the app does, with
// shared/design-codec.ts (pako, atob and TextDecoder: it also runs in the
// renderer, where Node's zlib is not), against Node's native zlib.gunzipSync plus
// JSON.parse on the same base64 string. ratio = codec time / native time.
import zlib from 'node:zlib';
import { isDeepStrictEqual } from 'node:util';
import type { Benchmark, BenchResult } from './bench-types.ts';
import { decodeDesign, encodeDesign } from '../shared/design-codec.ts';
import { generateDesign } from '../main/engine/seed/project-design.ts';
import { median } from './bench-servers.ts';

const SYSTEMS = 4;
/** Panels per system that make the design's JSON about 5 MB. */
const PANELS_PER_SYSTEM = 3700;
const RUNS = 15;

function millisecondsOf(work: () => unknown): number {
  const started = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export const benchmarks: Benchmark[] = [
  {
    name: 'design.decode',
    description: 'decode a ~5 MB design with shared/design-codec.ts vs zlib.gunzipSync + JSON.parse',
    async run(): Promise<BenchResult[]> {
      const design = generateDesign(20261122, { systems: SYSTEMS, panelsPerSystem: PANELS_PER_SYSTEM });
      const jsonBytes = Buffer.byteLength(JSON.stringify(design));
      const encoded = encodeDesign(design);
      const native = () => JSON.parse(zlib.gunzipSync(Buffer.from(encoded, 'base64')).toString('utf8')) as unknown;
      if (!isDeepStrictEqual(decodeDesign(encoded), native())) throw new Error('the codec and zlib decode the design differently');
      const codecTimes: number[] = [];
      const nativeTimes: number[] = [];
      // Interleaved, so a slow moment of the machine falls on both.
      for (let run = 0; run < RUNS; run++) {
        codecTimes.push(millisecondsOf(() => decodeDesign(encoded)));
        nativeTimes.push(millisecondsOf(native));
      }
      const value = median(codecTimes);
      const baseline = median(nativeTimes);
      return [
        {
          name: 'design.decode',
          value,
          baseline,
          ratio: value / baseline,
          unit: 'ms',
          notes:
            `median of ${RUNS}; ${(jsonBytes / 1e6).toFixed(1)} MB of JSON (${SYSTEMS} systems x ${PANELS_PER_SYSTEM} panels), ` +
            `${(encoded.length / 1e6).toFixed(2)} MB as base64 gzip; lower is better, 1 = as fast as Node's native zlib`,
        },
      ];
    },
  },
];
