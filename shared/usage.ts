// Energy usage input (service.md 4.1, "Update usage body"): each usage_data_source
// and the shape of its values, plus the annual estimate derived from it. Used by
// the engine's validation and by the renderer's usage editor.

export type UsageValuesShape =
  | { readonly type: 'integer' }
  | { readonly type: 'integer_list'; readonly length: number }
  | { readonly type: 'estimate' };

export const USAGE_SOURCES = {
  kwh_annual: { type: 'integer' },
  kwh_monthly: { type: 'integer_list', length: 12 },
  kwh_every_second_month: { type: 'integer_list', length: 6 },
  kwh_quarterly: { type: 'integer_list', length: 4 },
  kwh_daily_per_month: { type: 'integer_list', length: 12 },
  bill_annual: { type: 'integer' },
  bill_monthly: { type: 'integer_list', length: 12 },
  bill_every_second_month: { type: 'integer_list', length: 6 },
  bill_quarterly: { type: 'integer_list', length: 4 },
  estimate: { type: 'estimate' },
} as const satisfies Record<string, UsageValuesShape>;

export type UsageDataSource = keyof typeof USAGE_SOURCES;
export const USAGE_DATA_SOURCES = Object.keys(USAGE_SOURCES) as UsageDataSource[];
export const USAGE_ESTIMATES = ['Low', 'Medium', 'High'] as const;
export type UsageEstimate = (typeof USAGE_ESTIMATES)[number];

export interface Usage {
  usage_data_source: UsageDataSource;
  values: number | number[] | UsageEstimate;
}

/**
 * Checks a usage value against its source. Returns the problem in words, or null
 * when the pair is valid. Kept free of any validation library so the renderer's
 * editor can give the same message as the engine's 400.
 */
export function describeUsageProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'Expected an object {usage_data_source, values}.';
  }
  const { usage_data_source: source, values } = value as Record<string, unknown>;
  if (typeof source !== 'string' || !(source in USAGE_SOURCES)) {
    return `usage_data_source must be one of: ${USAGE_DATA_SOURCES.join(', ')}.`;
  }
  const shape: UsageValuesShape = USAGE_SOURCES[source as UsageDataSource];
  switch (shape.type) {
    case 'integer':
      return isNonNegativeInteger(values) ? null : `${source} takes one non-negative integer.`;
    case 'integer_list':
      return Array.isArray(values) && values.length === shape.length && values.every(isNonNegativeInteger)
        ? null
        : `${source} takes a list of ${shape.length} non-negative integers.`;
    case 'estimate':
      return typeof values === 'string' && (USAGE_ESTIMATES as readonly string[]).includes(values)
        ? null
        : `estimate takes one of: ${USAGE_ESTIMATES.join(', ')}.`;
  }
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** Used only to turn a bill into energy when no tariff says better. */
export const ASSUMED_PRICE_PER_KWH = 0.25;
const ESTIMATE_KWH: Record<UsageEstimate, number> = { Low: 4000, Medium: 6500, High: 10000 };
const RESIDENTIAL_GUESS_KWH = 6500;
const COMMERCIAL_GUESS_KWH = 40000;

/** `usage_annual_or_guess`: annual kWh from the usage given, or a guess for the kind of site. */
export function annualUsageOrGuess(usage: Usage | null, isResidential: boolean): number {
  if (!usage) return isResidential ? RESIDENTIAL_GUESS_KWH : COMMERCIAL_GUESS_KWH;
  const { usage_data_source: source, values } = usage;
  const sum = (list: number[]) => list.reduce((total, v) => total + v, 0);
  switch (source) {
    case 'kwh_annual':
      return values as number;
    case 'kwh_monthly':
    case 'kwh_every_second_month':
    case 'kwh_quarterly':
      return sum(values as number[]);
    case 'kwh_daily_per_month':
      return sum((values as number[]).map((perDay, month) => perDay * (DAYS_IN_MONTH[month] ?? 30)));
    case 'bill_annual':
      return Math.round((values as number) / ASSUMED_PRICE_PER_KWH);
    case 'bill_monthly':
    case 'bill_every_second_month':
    case 'bill_quarterly':
      return Math.round(sum(values as number[]) / ASSUMED_PRICE_PER_KWH);
    case 'estimate':
      return ESTIMATE_KWH[values as UsageEstimate];
  }
}
