// A hostile design for tests (issue 36): a few hundred KB of base64 gzip that
// inflates far past MAX_DESIGN_JSON_BYTES. Made of many small gzip members (valid
// gzip: readers inflate member after member), so it costs milliseconds to make, and
// its trailer states only the last member's small size, as a lying design would:
// only a decoder that counts what it inflates stops it.
import { gzipSync } from 'node:zlib';

const MEGABYTE = 1024 * 1024;

/** base64 gzip of `{"version":1,"systems":[],"padding":"aaaa…"}`, about inflatedMegabytes MB of JSON. */
export function designBomb(inflatedMegabytes = 300): string {
  const head = gzipSync('{"version":1,"systems":[],"padding":"');
  const padding = gzipSync(Buffer.alloc(MEGABYTE, 'a'), { level: 9 });
  const tail = gzipSync('"}');
  return Buffer.concat([head, ...Array.from({ length: inflatedMegabytes }, () => padding), tail]).toString('base64');
}

export interface TimedAnswer<T> {
  answer: T;
  ms: number;
}

export async function timed<T>(work: () => Promise<T>): Promise<TimedAnswer<T>> {
  const started = performance.now();
  const answer = await work();
  return { answer, ms: performance.now() - started };
}

/**
 * Runs `work` while asking `probe` again and again (one at a time, at most
 * maxProbes times), and gives work's answer with every probe's time: what other
 * users saw while the design was being refused.
 */
export async function probedWhile<T>(work: () => Promise<T>, probe: () => Promise<unknown>, maxProbes = 200): Promise<{ answer: T; probeMs: number[] }> {
  let isDone = false;
  const probeMs: number[] = [];
  const probing = (async () => {
    while (!isDone && probeMs.length < maxProbes) probeMs.push((await timed(probe)).ms);
  })();
  try {
    return { answer: await work(), probeMs };
  } finally {
    isDone = true;
    await probing;
  }
}
