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

/** What of a tariff turns a bill into energy: the price of a kWh and the fixed charge of a month. */
export interface UsageTariff {
  energy_rate_per_kwh: number;
  fixed_charge_per_month: number;
  /** ISO 4217 code, when the tariff names it. */
  currency: string | null;
}

/**
 * Reads a project's tariff object (`utility_tariff_current_data`, stored as the
 * service gives it) for what a bill conversion needs, or null when it has no usable rate.
 */
export function usageTariffOf(data: unknown): UsageTariff | null {
  if (typeof data !== 'object' || data === null) return null;
  const record = data as Record<string, unknown>;
  const rate = record.energy_rate_per_kwh;
  if (typeof rate !== 'number' || !(rate > 0)) return null;
  const fixed = record.fixed_charge_per_month;
  const currency = record.currency;
  return {
    energy_rate_per_kwh: rate,
    fixed_charge_per_month: typeof fixed === 'number' && fixed >= 0 ? fixed : 0,
    currency: typeof currency === 'string' && /^[A-Z]{3}$/.test(currency) ? currency : null,
  };
}

/** kWh a bill of `months` months pays for: its fixed charges off, the rest at the tariff's rate (the assumed price without one). */
function kwhOfBill(amount: number, months: number, tariff: UsageTariff | null): number {
  if (!tariff) return amount / ASSUMED_PRICE_PER_KWH;
  return Math.max(0, amount - tariff.fixed_charge_per_month * months) / tariff.energy_rate_per_kwh;
}

/**
 * `usage_annual_or_guess`: annual kWh from the usage given (bills turned into energy
 * with the project's tariff when it has one), or a guess for the kind of site. The
 * one computation of the figure: the engine's serializer, the usage editor and the
 * design view all call it, so every tab shows the same number.
 */
export function annualUsageOrGuess(usage: Usage | null, isResidential: boolean, tariff: UsageTariff | null = null): number {
  if (!usage) return isResidential ? RESIDENTIAL_GUESS_KWH : COMMERCIAL_GUESS_KWH;
  const { usage_data_source: source, values } = usage;
  const sum = (list: number[]) => list.reduce((total, v) => total + v, 0);
  const billsKwh = (list: number[], monthsEach: number) => sum(list.map((amount) => kwhOfBill(amount, monthsEach, tariff)));
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
      return Math.round(kwhOfBill(values as number, 12, tariff));
    case 'bill_monthly':
      return Math.round(billsKwh(values as number[], 1));
    case 'bill_every_second_month':
      return Math.round(billsKwh(values as number[], 2));
    case 'bill_quarterly':
      return Math.round(billsKwh(values as number[], 3));
    case 'estimate':
      return ESTIMATE_KWH[values as UsageEstimate];
  }
}

/** The fields of a project the annual figure reads (a detail or studio row, or the engine's own). */
export interface ProjectUsageFacts {
  usage: unknown;
  is_residential: boolean;
  utility_tariff_current_data?: unknown;
}

/** A project's annual usage in kWh: what Details, Design and `usage_annual_or_guess` all show. */
export function projectAnnualUsage(project: ProjectUsageFacts, usage: Usage | null = asUsage(project.usage)): number {
  return annualUsageOrGuess(usage, project.is_residential, usageTariffOf(project.utility_tariff_current_data));
}

function asUsage(value: unknown): Usage | null {
  return describeUsageProblem(value) === null ? (value as Usage) : null;
}

// ---------------------------------------------------------------------------
// The usage editor's boxes, in people's words: labels, money with cents, and the
// values carried over when the source changes.

/** How each source reads in the editor. */
export const USAGE_SOURCE_LABELS: Record<UsageDataSource, string> = {
  kwh_annual: 'kWh for the year',
  kwh_monthly: 'kWh each month',
  kwh_every_second_month: 'kWh every two months',
  kwh_quarterly: 'kWh each quarter',
  kwh_daily_per_month: 'kWh per day, for each month',
  bill_annual: 'Bill for the year',
  bill_monthly: 'Bill each month',
  bill_every_second_month: 'Bill every two months',
  bill_quarterly: 'Bill each quarter',
  estimate: 'Rough estimate (low, medium or high)',
};

export function isBillSource(source: UsageDataSource): boolean {
  return source.startsWith('bill_');
}

export type UsageBox = { ok: true; value: number; isRounded: boolean } | { ok: false; message: string };

/**
 * One box of the editor: a bill takes money with cents ("226.40", "$1,226.40"),
 * energy takes kWh (decimals allowed). The service takes whole numbers, so the
 * value is rounded to whole dollars or kWh; `isRounded` says it was.
 */
export function parseUsageBox(source: UsageDataSource, text: string): UsageBox {
  const isBill = isBillSource(source);
  const cleaned = text.trim().replace(/[\s,]/g, '').replace(isBill ? /^[^\d.+-]{1,3}/ : /$^/, '');
  if (cleaned === '') return { ok: false, message: isBill ? 'Enter the amount of the bill (0 if none).' : 'Enter the kWh (0 if none).' };
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(cleaned)) {
    return { ok: false, message: isBill ? 'Enter an amount such as 226.40.' : 'Enter a number of kWh such as 512.' };
  }
  const number = Number(cleaned);
  if (number < 0) return { ok: false, message: 'Cannot be below zero.' };
  if (number > 1e9) return { ok: false, message: 'That is more than any site uses: check the number.' };
  const value = Math.round(number);
  return { ok: true, value, isRounded: value !== number };
}

export type UsageFromBoxes =
  | { ok: true; usage: Usage; isRounded: boolean }
  | { ok: false; /** One message per box, null where the box is fine. */ boxErrors: (string | null)[] };

/** The usage the boxes amount to, or the message of each box at fault. */
export function usageFromBoxes(source: UsageDataSource, texts: readonly string[]): UsageFromBoxes {
  const shape: UsageValuesShape = USAGE_SOURCES[source];
  if (shape.type === 'estimate') {
    const estimate = texts[0];
    return (USAGE_ESTIMATES as readonly string[]).includes(estimate ?? '')
      ? { ok: true, usage: { usage_data_source: source, values: estimate as UsageEstimate }, isRounded: false }
      : { ok: false, boxErrors: ['Choose low, medium or high.'] };
  }
  const count = shape.type === 'integer' ? 1 : shape.length;
  const boxes = Array.from({ length: count }, (_, index) => parseUsageBox(source, texts[index] ?? ''));
  if (boxes.some((box) => !box.ok)) return { ok: false, boxErrors: boxes.map((box) => (box.ok ? null : box.message)) };
  const values = boxes.map((box) => (box as { value: number }).value);
  const isRounded = boxes.some((box) => box.ok && box.isRounded);
  return { ok: true, usage: { usage_data_source: source, values: shape.type === 'integer' ? values[0]! : values }, isRounded };
}

/** The texts of the boxes for a stored usage. */
export function boxTextsOf(usage: Usage): string[] {
  const values = usage.values;
  return Array.isArray(values) ? values.map(String) : [String(values)];
}

/** Blank boxes for a source (the estimate starts at Medium). */
export function blankBoxTexts(source: UsageDataSource): string[] {
  const shape: UsageValuesShape = USAGE_SOURCES[source];
  if (shape.type === 'integer_list') return Array.from({ length: shape.length }, () => '');
  return [shape.type === 'estimate' ? 'Medium' : ''];
}

/** How many months each box of a source covers (null: the estimate, or kWh per day). */
function monthsPerBox(source: UsageDataSource): number | null {
  switch (source) {
    case 'kwh_annual':
    case 'bill_annual':
      return 12;
    case 'kwh_monthly':
    case 'bill_monthly':
      return 1;
    case 'kwh_every_second_month':
    case 'bill_every_second_month':
      return 2;
    case 'kwh_quarterly':
    case 'bill_quarterly':
      return 3;
    default:
      return null;
  }
}

/**
 * The boxes of `to` worked out from the values typed for `from`, where that still
 * makes sense: sums into longer periods (monthly kWh -> the year, monthly bills ->
 * quarters), kWh per day <-> kWh a month. Never kWh <-> bills (that needs a price),
 * never a longer period split into shorter ones (the split is unknown): null then.
 * Sums keep the cents a bill was typed with.
 */
export function carryUsageBoxes(from: UsageDataSource, texts: readonly string[], to: UsageDataSource): string[] | null {
  if (from === to) return [...texts];
  if (from === 'estimate' || to === 'estimate' || isBillSource(from) !== isBillSource(to)) return null;
  const numbers = texts.map((text) => parseUsageBox(from, text));
  if (numbers.some((box) => !box.ok)) return null;
  const exact = texts.map((text) => Number(text.trim().replace(/[\s,]/g, '').replace(/^[^\d.+-]{1,3}/, '')));
  // Monthly figures first: kWh per day becomes kWh a month.
  let monthly: number[] | null = null;
  if (from === 'kwh_daily_per_month') monthly = exact.map((perDay, month) => perDay * (DAYS_IN_MONTH[month] ?? 30));
  else if (monthsPerBox(from) === 1) monthly = exact;
  const format = (value: number) => String(Math.round(value * 100) / 100);
  if (to === 'kwh_daily_per_month') return monthly ? monthly.map((kwh, month) => format(kwh / (DAYS_IN_MONTH[month] ?? 30))) : null;
  const toMonths = monthsPerBox(to)!;
  const fromMonths = monthly ? 1 : monthsPerBox(from)!;
  const series = monthly ?? exact;
  if (toMonths < fromMonths || toMonths % fromMonths !== 0) return null;
  const perBox = toMonths / fromMonths;
  const out: string[] = [];
  for (let start = 0; start < series.length; start += perBox) out.push(format(series.slice(start, start + perBox).reduce((total, v) => total + v, 0)));
  return out;
}

/** Currencies of the countries installers work in most, for a bill when the project's tariff names none. */
const COUNTRY_CURRENCIES: Record<string, string> = {
  AU: 'AUD', NZ: 'NZD', US: 'USD', CA: 'CAD', GB: 'GBP', IE: 'EUR', DE: 'EUR', FR: 'EUR', ES: 'EUR', IT: 'EUR', NL: 'EUR', BE: 'EUR', PT: 'EUR',
  ZA: 'ZAR', IN: 'INR', MX: 'MXN', BR: 'BRL', CL: 'CLP', PH: 'PHP', MY: 'MYR', SG: 'SGD', JP: 'JPY',
};

/** The currency a project's bills are in: its tariff's, else its country's; null when neither says. */
export function billCurrencyOf(project: { utility_tariff_current_data?: unknown; country_iso2?: string }): string | null {
  return usageTariffOf(project.utility_tariff_current_data)?.currency ?? COUNTRY_CURRENCIES[(project.country_iso2 ?? '').toUpperCase()] ?? null;
}
