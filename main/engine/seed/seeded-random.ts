// The generator's only source of randomness: a seeded PRNG (mulberry32) and the
// seed mixing that gives each project, design and sold system its own stream. No
// Math.random and no clock, so the same seed always makes the same demo data.
import type { Country } from './country-economics.ts';

const UINT32 = 2 ** 32;

/** Folds any numbers into one 32-bit seed, so (seed, index, stream) give independent sequences. */
export function mixSeed(...parts: number[]): number {
  let hash = 0x811c9dc5;
  for (const part of parts) {
    const whole = Math.trunc(part);
    for (const word of [whole >>> 0, Math.floor(whole / UINT32) >>> 0]) {
      hash = Math.imul(hash ^ word, 0x01000193);
      hash ^= hash >>> 15;
      hash = Math.imul(hash, 0x85ebca6b);
      hash ^= hash >>> 13;
    }
  }
  return hash >>> 0;
}

/** mulberry32: tiny, fast, good enough for demo data, and the same on every platform. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed | 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / UINT32;
  }

  float(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Inclusive of both ends. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('Cannot pick from an empty list.');
    return item;
  }

  weighted<T>(entries: ReadonlyArray<readonly [T, number]>): T {
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.next() * total;
    for (const [value, weight] of entries) {
      roll -= weight;
      if (roll < 0) return value;
    }
    const last = entries[entries.length - 1];
    if (!last) throw new Error('Cannot pick from an empty list.');
    return last[0];
  }

  /** A version 4 UUID made of PRNG bits, so ids are stable across runs. */
  uuid(): string {
    const nibbles = Array.from({ length: 32 }, () => this.int(0, 15));
    nibbles[12] = 4;
    nibbles[16] = 8 + ((nibbles[16] ?? 0) & 3);
    const hex = nibbles.map((n) => n.toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  digits(count: number): string {
    return Array.from({ length: count }, () => this.int(0, 9)).join('');
  }
}

// Independent streams, so e.g. turning the design off leaves the project fields unchanged.
export const PROJECT_STREAM = 1;
export const DESIGN_STREAM = 2;
export const SOLD_SYSTEM_STREAM = 3;
/** Discount and cost-only adders (issue 16), so the designs' other values stay as they were. */
export const ADDER_STREAM = 4;
export const COUNTRY_STREAMS: Record<Country, number> = { AU: 0, US: 1 };
