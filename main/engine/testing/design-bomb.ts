// A hostile design for tests (issue 36): a few hundred KB of base64 gzip that
// inflates far past MAX_DESIGN_JSON_BYTES. Made of many small gzip members (valid
// gzip: readers inflate member after member), so it costs milliseconds to make, and
// its trailer states only the last member's small size, as a lying design would:
// only a decoder that counts what it inflates stops it.
import { createGzip, gzipSync } from 'node:zlib';

const MEGABYTE = 1024 * 1024;

/** base64 gzip of `{"version":1,"systems":[],"padding":"aaaa…"}`, about inflatedMegabytes MB of JSON. */
export function designBomb(inflatedMegabytes = 300): string {
  const head = gzipSync('{"version":1,"systems":[],"padding":"');
  const padding = gzipSync(Buffer.alloc(MEGABYTE, 'a'), { level: 9 });
  const tail = gzipSync('"}');
  return Buffer.concat([head, ...Array.from({ length: inflatedMegabytes }, () => padding), tail]).toString('base64');
}

/**
 * The same design as one gzip member (as a hostile design tool would write it), its
 * trailer rewritten to state 100 bytes: a decoder must count what it inflates.
 * Compressed as a stream, so the JSON is never whole in memory.
 */
export async function oneMemberDesignBomb(inflatedMegabytes = 300): Promise<string> {
  const gzip = createGzip({ level: 9 });
  const output: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => output.push(chunk));
  const ended = new Promise((resolve, reject) => gzip.on('end', resolve).on('error', reject));
  const write = (chunk: Buffer | string) => new Promise<void>((resolve) => (gzip.write(chunk) ? resolve() : gzip.once('drain', resolve)));
  await write('{"version":1,"systems":[],"padding":"');
  const padding = Buffer.alloc(MEGABYTE, 'a');
  for (let written = 0; written < inflatedMegabytes; written++) await write(padding);
  gzip.end('"}');
  await ended;
  const gzipped = Buffer.concat(output);
  gzipped.writeUInt32LE(100, gzipped.length - 4);
  return gzipped.toString('base64');
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
