// `npm run test:hardening`: runs every main/hardening/*.hardening.ts file, one at a
// time (each starts its own servers; the load test wants the machine to itself; the
// transfers file, bound by its slow link rather than the CPU, runs beside them),
// reports each test as `node --test` does, then prints what the suite tried and
// what it lost, from the tallies the files report (summary.ts). Exits non-zero
// when a test failed or anything was lost. (Each file also runs on its own:
// `node --import tsx --test main/hardening/load.hardening.ts`.)
import fs from 'node:fs';
import path from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { SUMMARY_PREFIX, type Tally } from './summary.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Bandwidth-bound, its CPU mostly idle (a 64 KB/s link for minutes): it runs beside the others rather than after them, and its report is printed once they are done. */
const RUNS_BESIDE = new Set(['transfers.hardening.ts']);
const names = fs.readdirSync(here).filter((name) => name.endsWith('.hardening.ts')).sort();
const started = Date.now();
const tallies: Tally[] = [];
let failed = 0;

/** Runs `group` one file at a time, counting its failures and tallies; its report goes to `output`. */
function runGroup(group: string[], output: Writable): Promise<void> {
  const stream = run({ files: group.map((name) => path.join(here, name)), concurrency: 1, timeout: 15 * 60_000 });
  stream.on('test:diagnostic', (event: { message: string }) => {
    if (event.message.startsWith(SUMMARY_PREFIX)) tallies.push(JSON.parse(event.message.slice(SUMMARY_PREFIX.length)) as Tally);
  });
  stream.on('test:fail', () => failed++);
  const report = stream.compose(new spec());
  report.pipe(output, { end: false });
  return new Promise((resolve) => report.once('end', resolve));
}

let besideReport = '';
const besideOutput = new Writable({
  write(chunk: Buffer | string, _encoding, callback) {
    besideReport += chunk.toString();
    callback();
  },
});
const beside = runGroup(names.filter((name) => RUNS_BESIDE.has(name)), besideOutput);
await runGroup(names.filter((name) => !RUNS_BESIDE.has(name)), process.stdout);
await beside;
process.stdout.write(besideReport);

const pad = (text: string | number, width: number) => String(text).padStart(width);
const total = tallies.reduce((sum, tally) => ({ inputs: sum.inputs + tally.inputs, faults: sum.faults + tally.faults, lost: sum.lost + tally.lost }), { inputs: 0, faults: 0, lost: 0 });
const lines = [
  '',
  `Hardening summary (${names.length} files, ${((Date.now() - started) / 1000).toFixed(0)} s)`,
  `${'part'.padEnd(12)}${pad('inputs', 10)}${pad('faults', 8)}${pad('lost', 6)}`,
  ...tallies.map((tally) => `${tally.part.padEnd(12)}${pad(tally.inputs, 10)}${pad(tally.faults, 8)}${pad(tally.lost, 6)}`),
  `${'total'.padEnd(12)}${pad(total.inputs, 10)}${pad(total.faults, 8)}${pad(total.lost, 6)}`,
  ...tallies.flatMap((tally) => tally.notes.map((note) => `  ${tally.part}: ${note}`)),
  failed > 0 ? `${failed} test failures reported` : total.lost > 0 ? `LOST ${total.lost}` : 'nothing lost, no test failed',
];
console.log(lines.join('\n'));
const expectedParts = names.length;
if (failed > 0 || total.lost > 0 || tallies.length < expectedParts) process.exitCode = 1;
