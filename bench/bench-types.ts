// The shape every benchmark module follows (docs/benchmarks.md).

export interface BenchResult {
  name: string;
  /** What was measured for SolarDesk. */
  value: number;
  /** The same quantity for the baseline measured in the same run. */
  baseline: number;
  /** value / baseline (or the inverse where the notes say so); what docs/benchmarks.md interprets. */
  ratio: number;
  unit: string;
  notes: string;
}

export interface Benchmark {
  name: string;
  /** One line on what is measured against what. */
  description: string;
  run(): Promise<BenchResult[]>;
}
