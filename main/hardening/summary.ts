// What each part of the hardening suite tried and what it lost. Each test reports
// its tally as a test diagnostic ("hardening-summary {json}"); main/hardening/run.ts
// collects them from every file and prints the suite's total.
import type { TestContext } from 'node:test';

export const SUMMARY_PREFIX = 'hardening-summary ';

export interface Tally {
  part: string;
  /** Requests or inputs sent. */
  inputs: number;
  /** Faults injected (processes killed). */
  faults: number;
  /** Acknowledged writes, deliveries or records missing afterwards: must be 0. */
  lost: number;
  /** One line each: what was measured or checked. */
  notes: string[];
}

export function newTally(part: string): Tally {
  return { part, inputs: 0, faults: 0, lost: 0, notes: [] };
}

export function reportTally(t: TestContext, tally: Tally): void {
  t.diagnostic(`${SUMMARY_PREFIX}${JSON.stringify(tally)}`);
}

/** The seed of this run's random inputs: HARDENING_SEED when set (to replay a failure), else fresh. */
export function runSeed(): number {
  const fromEnvironment = Number(process.env.HARDENING_SEED);
  return Number.isSafeInteger(fromEnvironment) ? fromEnvironment : Math.floor(Math.random() * 2 ** 31);
}

/** A small seeded generator (xorshift32), so a failing run can be replayed with HARDENING_SEED. */
export function seededRandom(seed: number): { random: () => number; between: (low: number, high: number) => number } {
  let state = seed >>> 0 || 1;
  const random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  return { random, between: (low, high) => low + Math.floor(random() * (high - low + 1)) };
}
