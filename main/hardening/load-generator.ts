// autocannon (a well-kept HTTP load generator) behind a promise, for the
// benchmarks (bench/engine.bench.ts, bench/store.bench.ts) and the load test of
// the hardening suite. Only 127.0.0.1 targets are used anywhere.
import autocannon from 'autocannon';

export type LoadOptions = autocannon.Options;
export type LoadRequest = autocannon.Request;
export type LoadResult = autocannon.Result;

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (!/^http:\/\/127\.0\.0\.1:\d+/.test(options.url)) throw new Error(`load is only ever sent to 127.0.0.1, not ${options.url}`);
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** Each status code's count, as plain numbers. */
export function statusCounts(result: LoadResult): Record<string, number> {
  return Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, Number(count)]));
}

/** Throws unless every request of the run was answered 2xx, with no connection errors or timeouts. */
export function requireAllOk(result: LoadResult, what: string): void {
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(`${what}: ${result.errors} errors, ${result.timeouts} timeouts, status counts ${JSON.stringify(statusCounts(result))}`);
  }
  if (result['2xx'] === 0) throw new Error(`${what}: no request was answered`);
}

/** The value at quantile q (0..1) of a list of numbers (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
