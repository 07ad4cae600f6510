// `npm run bench [-- --json FILE] [-- --only PREFIX]`: runs every bench/*.bench.ts
// module and prints one table. Each benchmark measures SolarDesk against a
// baseline taken in the same run, because absolute times on a shared machine are noise.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Benchmark, BenchResult } from './bench-types.ts';

const benchDir = path.dirname(fileURLToPath(import.meta.url));

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { json: { type: 'string' }, only: { type: 'string' } } });
  const modules = fs.readdirSync(benchDir).filter((file) => file.endsWith('.bench.ts')).sort();
  const results: BenchResult[] = [];
  for (const file of modules) {
    const { benchmarks } = (await import(pathToFileURL(path.join(benchDir, file)).href)) as { benchmarks: Benchmark[] };
    for (const benchmark of benchmarks) {
      if (values.only && !benchmark.name.startsWith(values.only)) continue;
      process.stderr.write(`running ${benchmark.name}: ${benchmark.description}\n`);
      const started = Date.now();
      try {
        const measured = await benchmark.run();
        results.push(...measured);
        for (const result of measured) process.stderr.write(`  ${formatRow(result)}\n`);
      } catch (error) {
        process.stderr.write(`  FAILED: ${(error as Error).stack ?? String(error)}\n`);
        process.exitCode = 1;
      }
      process.stderr.write(`  (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
    }
  }
  console.log(renderTable(results));
  if (values.json) fs.writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  return magnitude >= 100 ? value.toFixed(0) : magnitude >= 1 ? value.toFixed(2) : value.toPrecision(3);
}

function formatRow(result: BenchResult): string {
  return `${result.name}: ${formatNumber(result.value)} ${result.unit} vs baseline ${formatNumber(result.baseline)} -> ratio ${formatNumber(result.ratio)}`;
}

export function renderTable(results: BenchResult[]): string {
  const header = '| benchmark | value | baseline | ratio | unit | notes |\n|---|---:|---:|---:|---|---|';
  const rows = results.map(
    (result) => `| ${result.name} | ${formatNumber(result.value)} | ${formatNumber(result.baseline)} | ${formatNumber(result.ratio)} | ${result.unit} | ${result.notes} |`,
  );
  return [header, ...rows].join('\n');
}

await main();
