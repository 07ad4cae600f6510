// A process's memory as Linux reports it in /proc/<pid>/status, for the benchmarks
// that print it (the server after the PATCH run, the agent watching 100,000 files,
// a server during uploads).
import fs from 'node:fs';

/** VmRSS: resident now; VmHWM: the peak since start (or since the last reset, see peakGrowthMb in files.bench.ts). */
export type MemoryField = 'VmRSS' | 'VmHWM';

/** One field of the process's status, in MB. */
export function processMemoryMb(pid: number, field: MemoryField): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}
