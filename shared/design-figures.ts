// The figures of a designed system, each from one function: the Design tab shows
// them and the generated documents print them (issue 29), so a proposal can never
// say another price, payback or size than the screen. Pure: no Node module, no DOM.
import type { DesignSystem, FeaturedFigure, PaymentOption, ProjectDesign } from './design-types.ts';

/** The system a view opens on: the one asked for, else the sold one, else the first. */
export function chosenSystem(design: ProjectDesign, systemUuid: string | null = null): DesignSystem | undefined {
  return design.systems.find((candidate) => candidate.uuid === systemUuid) ?? design.systems.find((candidate) => candidate.is_sold) ?? design.systems[0];
}

/** The payment option a view opens on: the one asked for, else the system's first. */
export function chosenPaymentOption(system: DesignSystem, optionId: number | null = null): PaymentOption | undefined {
  return system.payment_options.find((candidate) => candidate.id === optionId) ?? system.payment_options[0];
}

export interface PriceLine {
  title: string;
  amount: number;
}

/**
 * The price build-up as the customer reads it: costs, adders, margin, fees, the
 * discount (negative), adjustments and tax; lines of zero left out. Their sum is
 * the price including tax (design-types.ts SystemPricing).
 */
export function priceLines(system: DesignSystem): PriceLine[] {
  const { pricing } = system;
  const lines: PriceLine[] = [
    { title: 'Hardware', amount: pricing.costs.hardware },
    { title: 'Labour', amount: pricing.costs.labor },
    { title: 'Overhead', amount: pricing.costs.overhead },
    ...pricing.adders.map((adder) => ({ title: adder.title, amount: adder.price })),
    { title: 'Margin', amount: pricing.margin },
    { title: 'Dealer fee', amount: pricing.dealer_fee },
    { title: 'Discount', amount: -pricing.discount },
    ...pricing.price_adjustments.map((adjustment) => ({ title: adjustment.title, amount: adjustment.amount })),
    { title: 'Tax', amount: pricing.tax },
  ];
  return lines.filter((line) => line.amount !== 0);
}

/**
 * The price as the customer's documents print it: the installer's costs, margin, fee
 * and the adders the customer is not shown are one line, the system supplied and
 * installed; then the adders shown to the customer, the discount, adjustments and
 * tax. Lines of zero left out; the sum is still the price including tax.
 */
export function customerPriceLines(system: DesignSystem): PriceLine[] {
  const { pricing } = system;
  const shown = pricing.adders.filter((adder) => adder.show_customer !== false);
  const folded = pricing.adders.filter((adder) => adder.show_customer === false).reduce((total, adder) => total + adder.price, 0);
  const lines: PriceLine[] = [
    { title: 'Solar system, supplied and installed', amount: pricing.costs.total + pricing.margin + pricing.dealer_fee + folded },
    ...shown.map((adder) => ({ title: adder.title, amount: adder.price })),
    { title: 'Discount', amount: -pricing.discount },
    ...pricing.price_adjustments.map((adjustment) => ({ title: adjustment.title, amount: adjustment.amount })),
    { title: 'Tax', amount: pricing.tax },
  ];
  return lines.filter((line) => line.amount !== 0);
}

/** Year 0 onwards: the running total of the customer's cash flows. */
export function runningTotals(flows: readonly number[]): number[] {
  const totals: number[] = [];
  for (const flow of flows) totals.push((totals[totals.length - 1] ?? 0) + flow);
  return totals;
}

const isRateOfReturn = (figure: FeaturedFigure) => figure.unit === 'percent' && /rate of return|return on investment|\birr\b/i.test(figure.label);

/**
 * A headline figure that says again what the payment facts say (payback, rate of
 * return, net present value): each number is shown once (issue 20).
 */
function repeatsAFact(figure: FeaturedFigure): boolean {
  if (figure.unit === 'years' && /payback/i.test(figure.label)) return true;
  if (isRateOfReturn(figure)) return true;
  return figure.unit === 'currency' && /net present value|\bnpv\b/i.test(figure.label);
}

/** The option's featured figures that are not already among its payment facts. */
export function extraFeaturedFigures(option: PaymentOption): FeaturedFigure[] {
  return option.featured_figures.filter((figure) => !repeatsAFact(figure));
}

/** "Year 7", or the sentence for cash flows that never pay back within their 25 years. */
export function paybackText(option: PaymentOption): string {
  return option.payback_year === null ? 'Not within 25 years' : `Year ${option.payback_year}`;
}

/** The headline figures of a system and one of its payment options. */
export interface SystemFigures {
  /** DC size, kW. */
  kwStc: number;
  moduleCount: number;
  priceIncludingTax: number;
  priceExcludingTax: number;
  /** What incentives paid to the customer take off what they pay. */
  customerIncentives: number;
  annualOutputKwh: number;
  annualUsageKwh: number;
  /** Output over usage, a fraction; null when the usage is unknown (zero). */
  offset: number | null;
  /** Year-one utility bill savings. */
  billSavingsYearOne: number;
  /** Bill savings over the option's 25 years (0 without a payment option). */
  billSavingsLifetime: number;
  paybackYear: number | null;
  currency: string;
}

/** `annualUsageKwh`: the project's figure (shared/usage.ts projectAnnualUsage), the one Details shows too. */
export function systemFigures(system: DesignSystem, option: PaymentOption | undefined, annualUsageKwh: number): SystemFigures {
  return {
    kwStc: system.kw_stc,
    moduleCount: system.total_module_quantity,
    priceIncludingTax: system.pricing.system_price_including_tax,
    priceExcludingTax: system.pricing.system_price_excluding_tax,
    customerIncentives: system.incentives.incentive_to_customer.reduce((total, line) => total + line.amount, 0),
    annualOutputKwh: system.output.annual_kwh,
    annualUsageKwh,
    offset: annualUsageKwh > 0 ? system.output.annual_kwh / annualUsageKwh : null,
    billSavingsYearOne: system.bills.annual_bill_before - system.bills.annual_bill_after,
    billSavingsLifetime: (option?.utility_bill_savings_yearly ?? []).reduce((total, saving) => total + saving, 0),
    paybackYear: option?.payback_year ?? null,
    currency: system.bills.currency,
  };
}

// ---------------------------------------------------------------------------
// Formatting, so the screen and the page print a figure the same way. `locale`
// undefined: the reader's own (the app); the documents pass their language.

export function formatMoney(amount: number, currency = 'AUD', locale?: string): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency, maximumFractionDigits: 0 }).format(amount);
}

export function formatNumber(value: number, fractionDigits = 0, locale?: string): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: fractionDigits }).format(value);
}

export function formatPercent(fraction: number | null): string {
  return fraction === null ? '—' : `${(fraction * 100).toFixed(1)} %`;
}

/** "6.6 kW": the size as the Design tab shows it. */
export function formatKw(kw: number, locale?: string): string {
  return `${formatNumber(kw, 2, locale)} kW`;
}
