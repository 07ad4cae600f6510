// Small numeric and date helpers the seed generator's modules share: rounding to
// decimals and to money, sums, angles, splitting a total into whole parts, and days.

export const round = (value: number, decimals: number): number => {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
};
export const money = (value: number): number => round(value, 2);
export const sum = (values: readonly number[]): number => values.reduce((total, v) => total + v, 0);
export const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));
export const radians = (degrees: number): number => (degrees * Math.PI) / 180;
export const normalizeDegrees = (degrees: number): number => ((degrees % 360) + 360) % 360;

/** Splits a total into integer parts proportional to the weights; the parts add up to the total. */
export function distribute(total: number, weights: readonly number[]): number[] {
  const weightSum = sum(weights);
  let carried = 0;
  let assigned = 0;
  return weights.map((weight) => {
    carried += (total * weight) / weightSum;
    const upTo = Math.round(carried);
    const part = upTo - assigned;
    assigned = upTo;
    return part;
  });
}

export function groupSums(values: readonly number[], size: number): number[] {
  const groups: number[] = [];
  for (let start = 0; start < values.length; start += size) groups.push(sum(values.slice(start, start + size)));
  return groups;
}

export const DAY_MS = 86_400_000;

export const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
