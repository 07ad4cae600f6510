// How the customer pays: cash, a loan, and in the US a lease or a power purchase
// agreement, each with 25 years of cash flows, payback, net present value and
// internal rate of return against the bill savings.
import type { FeaturedFigure, PaymentOption, PaymentType, QuotationLine } from '../../../shared/design-types.ts';
import type { CountryProfile, LoanTerms, TariffAssumptions } from './country-economics.ts';
import type { Rng } from './seeded-random.ts';
import { money, round, sum } from './seed-math.ts';

const ANALYSIS_YEARS = 25;
const DISCOUNT_RATE = 0.05;
const TARIFF_ESCALATION = 0.03;
const PANEL_DEGRADATION = 0.005;
const LEASE_ESCALATOR = 0.029;

function netPresentValue(flows: readonly number[], rate: number): number {
  return flows.reduce((total, flow, year) => total + flow / (1 + rate) ** year, 0);
}

/** Bisection between -99 % and 1000 %; null when the flows never change the NPV's sign there. */
function internalRateOfReturn(flows: readonly number[]): number | null {
  let low = -0.99;
  let high = 10;
  let lowValue = netPresentValue(flows, low);
  const highValue = netPresentValue(flows, high);
  if (!Number.isFinite(lowValue) || !Number.isFinite(highValue) || Math.sign(lowValue) === Math.sign(highValue)) return null;
  for (let step = 0; step < 200 && high - low > 1e-9; step++) {
    const middle = (low + high) / 2;
    const value = netPresentValue(flows, middle);
    if (Math.sign(value) === Math.sign(lowValue)) {
      low = middle;
      lowValue = value;
    } else {
      high = middle;
    }
  }
  return round((low + high) / 2, 4);
}

/** First year (1-25) whose cumulative cash flow is no longer negative. */
function paybackYear(flows: readonly number[]): number | null {
  let cumulative = 0;
  for (const [year, flow] of flows.entries()) {
    cumulative += flow;
    if (year > 0 && cumulative >= 0) return year;
  }
  return null;
}

export function yearlySavings(yearOne: number): number[] {
  const growth = (1 + TARIFF_ESCALATION) * (1 - PANEL_DEGRADATION);
  return Array.from({ length: ANALYSIS_YEARS }, (_, i) => money(yearOne * growth ** i));
}

/** Fixed monthly repayment of an amortised loan. */
function monthlyRepayment(principal: number, terms: LoanTerms): number {
  const monthlyRate = terms.annualRate / 12;
  const months = terms.years * 12;
  return principal * (monthlyRate / (1 - (1 + monthlyRate) ** -months));
}

export interface OptionContext {
  priceIncludingTax: number;
  customerIncentives: number;
  savings: number[];
  annualOutputKwh: number;
  tariff: TariffAssumptions;
  profile: CountryProfile;
}

interface OptionDraft {
  title: string;
  payment_type: PaymentType;
  upfront: number;
  /** Years 1-25. */
  yearlyPayments: number[];
  quotation_lines: QuotationLine[];
  figures: FeaturedFigure[];
}

function finishOption(id: number, draft: OptionDraft, savings: readonly number[]): PaymentOption {
  const cashFlows = [-money(draft.upfront), ...savings.map((saving, i) => money(saving - (draft.yearlyPayments[i] ?? 0)))];
  const payback = paybackYear(cashFlows);
  const irr = internalRateOfReturn(cashFlows);
  const npv = money(netPresentValue(cashFlows, DISCOUNT_RATE));
  const figures: FeaturedFigure[] = [
    ...draft.figures,
    { label: `${ANALYSIS_YEARS}-year net savings`, value: money(sum(cashFlows)), unit: 'currency' },
    ...(payback === null ? [] : [{ label: 'Payback', value: payback, unit: 'years' as const }]),
    // With next to nothing paid upfront (lease, PPA) the rate of return is huge and meaningless to show.
    ...(irr === null || draft.upfront < 1000 ? [] : [{ label: 'Return on investment', value: irr, unit: 'percent' as const }]),
  ];
  return {
    id,
    title: draft.title,
    payment_type: draft.payment_type,
    cash_flows: cashFlows,
    utility_bill_savings_yearly: [...savings],
    payback_year: payback,
    net_present_value: npv,
    internal_rate_of_return: irr,
    quotation_lines: draft.quotation_lines,
    featured_figures: figures,
  };
}

const noPayments = (): number[] => Array.from({ length: ANALYSIS_YEARS }, () => 0);

function cashDraft(ctx: OptionContext): OptionDraft {
  const due = money(ctx.priceIncludingTax - ctx.customerIncentives);
  return {
    title: 'Cash purchase',
    payment_type: 'cash',
    upfront: due,
    yearlyPayments: noPayments(),
    quotation_lines: [
      { title: 'System price (incl. tax)', amount: ctx.priceIncludingTax },
      { title: 'Less customer incentives', amount: -ctx.customerIncentives },
      { title: 'Amount due', amount: due },
    ],
    figures: [{ label: 'Year-one bill savings', value: ctx.savings[0] ?? 0, unit: 'currency' }],
  };
}

function loanDraft(ctx: OptionContext): OptionDraft {
  const terms = ctx.profile.loan;
  const net = money(ctx.priceIncludingTax - ctx.customerIncentives);
  const deposit = money(net * terms.depositFraction);
  const financed = money(net - deposit);
  const monthly = money(monthlyRepayment(financed, terms));
  return {
    title: `${terms.years}-year solar loan at ${round(terms.annualRate * 100, 2)}%`,
    payment_type: 'loan',
    upfront: deposit,
    yearlyPayments: Array.from({ length: ANALYSIS_YEARS }, (_, i) => (i < terms.years ? money(monthly * 12) : 0)),
    quotation_lines: [
      { title: 'System price (incl. tax)', amount: ctx.priceIncludingTax },
      { title: 'Less customer incentives', amount: -ctx.customerIncentives },
      { title: 'Deposit', amount: deposit },
      { title: 'Amount financed', amount: financed },
      { title: `Monthly repayment (${terms.years * 12} months)`, amount: monthly },
    ],
    figures: [{ label: 'Monthly repayment', value: monthly, unit: 'currency' }],
  };
}

/** The lessor keeps the incentives; the customer pays a fixed, escalating monthly fee. */
function leaseDraft(ctx: OptionContext): OptionDraft {
  const monthly = money(((ctx.savings[0] ?? 0) * 0.8) / 12);
  return {
    title: '25-year lease',
    payment_type: 'lease',
    upfront: monthly,
    yearlyPayments: Array.from({ length: ANALYSIS_YEARS }, (_, i) => money(monthly * 12 * (1 + LEASE_ESCALATOR) ** i)),
    quotation_lines: [
      { title: 'First month in advance', amount: monthly },
      { title: 'Monthly lease payment (year one)', amount: monthly },
      { title: `Annual escalator ${round(LEASE_ESCALATOR * 100, 1)}%`, amount: 0 },
    ],
    figures: [{ label: 'Monthly lease payment', value: monthly, unit: 'currency' }],
  };
}

/** The customer buys the system's output at a rate below the utility's. */
function ppaDraft(ctx: OptionContext): OptionDraft {
  // Priced to undercut what each solar kWh saves the customer (self-use at retail, exports at feed-in).
  const savingPerKwh = (ctx.savings[0] ?? 0) / Math.max(1, ctx.annualOutputKwh);
  const rate = round(savingPerKwh * 0.8, 4);
  const activationFee = 250;
  return {
    title: 'Power purchase agreement',
    payment_type: 'ppa',
    upfront: activationFee,
    yearlyPayments: Array.from({ length: ANALYSIS_YEARS }, (_, i) =>
      money(ctx.annualOutputKwh * (1 - PANEL_DEGRADATION) ** i * rate * (1 + LEASE_ESCALATOR) ** i),
    ),
    quotation_lines: [
      { title: 'Activation fee', amount: activationFee },
      { title: 'Energy rate per kWh (year one)', amount: rate },
    ],
    figures: [{ label: 'PPA rate per kWh', value: rate, unit: 'currency' }],
  };
}

export function paymentOptions(rng: Rng, firstId: number, ctx: OptionContext): PaymentOption[] {
  const drafts = [cashDraft(ctx), loanDraft(ctx)];
  if (ctx.profile.thirdPartyOwnership) drafts.push(rng.chance(0.5) ? leaseDraft(ctx) : ppaDraft(ctx));
  return drafts.map((draft, i) => finishOption(firstId + i, draft, ctx.savings));
}
