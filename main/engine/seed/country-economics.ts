// What differs between the two seeded markets, Australia and the United States:
// currency, tax, the default tariff, installers' costs and margins, finance terms,
// and the grid's carbon intensity. Pricing, bills, finance and usage all read these.

export type Country = 'AU' | 'US';

/** What a bill is computed from; defaults come from the country. */
export interface TariffAssumptions {
  pricePerKwh: number;
  feedInPerKwh: number;
  fixedChargePerMonth: number;
}

export interface LoanTerms {
  annualRate: number;
  years: number;
  depositFraction: number;
}

export interface CountryProfile {
  currency: 'AUD' | 'USD';
  taxRate: number;
  tariff: TariffAssumptions;
  /** Installer's cost of modules. */
  moduleCostPerWatt: number;
  /** Catalog unit costs are in AUD; this converts them. */
  catalogCostScale: number;
  labourPerPanel: number;
  batteryLabour: number;
  overheadFixed: number;
  overheadPerWatt: number;
  marginRate: number;
  /** Probability that a finance partner's dealer fee is built into the price, and its rate. */
  dealerFee: { chance: number; rate: number };
  gridKgCo2PerKwh: number;
  loan: LoanTerms;
  /** Leases and PPAs are only offered in the US market. */
  thirdPartyOwnership: boolean;
}

export const COUNTRY_PROFILES: Record<Country, CountryProfile> = {
  AU: {
    currency: 'AUD',
    taxRate: 0.1,
    tariff: { pricePerKwh: 0.33, feedInPerKwh: 0.05, fixedChargePerMonth: 33 },
    moduleCostPerWatt: 0.32,
    catalogCostScale: 1,
    labourPerPanel: 75,
    batteryLabour: 900,
    overheadFixed: 600,
    overheadPerWatt: 0.06,
    marginRate: 0.3,
    dealerFee: { chance: 0, rate: 0 },
    gridKgCo2PerKwh: 0.68,
    loan: { annualRate: 0.0699, years: 7, depositFraction: 0.1 },
    thirdPartyOwnership: false,
  },
  US: {
    currency: 'USD',
    taxRate: 0,
    tariff: { pricePerKwh: 0.18, feedInPerKwh: 0.08, fixedChargePerMonth: 15 },
    moduleCostPerWatt: 0.35,
    catalogCostScale: 0.75,
    labourPerPanel: 220,
    batteryLabour: 1500,
    overheadFixed: 2000,
    overheadPerWatt: 0.4,
    marginRate: 0.35,
    dealerFee: { chance: 0.5, rate: 0.03 },
    gridKgCo2PerKwh: 0.39,
    loan: { annualRate: 0.0799, years: 20, depositFraction: 0.05 },
    thirdPartyOwnership: true,
  },
};
