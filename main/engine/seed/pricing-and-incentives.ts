// A system's price, built up in whole cents from parts, labour, overhead, margin,
// fees, discount and tax; and the rebates and certificates paid to the customer or
// to the installer in each country.
import type {
  BatterySpec,
  Incentives,
  InverterSpec,
  OtherComponentSpec,
  PriceAdder,
  PricingLineItem,
  SystemPricing,
} from '../../../shared/design-types.ts';
import type { Country, CountryProfile } from './country-economics.ts';
import type { ModuleModel, PricedPart } from './equipment-catalogue.ts';
import type { Rng } from './seeded-random.ts';
import { money, sum } from './seed-math.ts';

const toCents = (amount: number): number => Math.round(amount * 100);
const fromCents = (cents: number): number => cents / 100;

function lineItem(title: string, quantity: number, unitPrice: number): PricingLineItem {
  const unitCents = toCents(unitPrice);
  return { title, quantity, unit_price: fromCents(unitCents), total: fromCents(unitCents * quantity) };
}

interface SystemParts {
  module: ModuleModel;
  panels: number;
  inverters: PricedPart<InverterSpec>[];
  batteries: PricedPart<BatterySpec>[];
  others: PricedPart<OtherComponentSpec>[];
}

/**
 * Builds the price up from costs in whole cents, so the documented identities
 * (see SystemPricing) hold exactly rather than to within float noise.
 */
export function priceSystem(rng: Rng, parts: SystemParts, adders: readonly PriceAdder[], profile: CountryProfile): SystemPricing {
  const componentTitle = (spec: { manufacturer_name: string; code: string }) => `${spec.manufacturer_name} ${spec.code}`;
  const hardwareItems = [
    lineItem(componentTitle(parts.module), parts.panels, parts.module.watts * profile.moduleCostPerWatt),
    ...[...parts.inverters, ...parts.batteries, ...parts.others].map((part) =>
      lineItem(componentTitle(part.spec), part.spec.quantity, part.unitCost),
    ),
  ];
  const batteryUnits = sum(parts.batteries.map((part) => part.spec.quantity));
  const labourItems = [
    lineItem('Installation labour (per module)', parts.panels, profile.labourPerPanel),
    ...(batteryUnits > 0 ? [lineItem('Battery installation', batteryUnits, profile.batteryLabour)] : []),
  ];
  const hardware = sum(hardwareItems.map((item) => toCents(item.total)));
  const labor = sum(labourItems.map((item) => toCents(item.total)));
  const overhead = toCents(profile.overheadFixed + profile.overheadPerWatt * parts.panels * parts.module.watts);
  const costTotal = hardware + labor + overhead;

  const addersTotal = sum(adders.map((adder) => toCents(adder.price)));
  const margin = Math.round(costTotal * profile.marginRate);
  const dealerFee = rng.chance(profile.dealerFee.chance) ? Math.round((costTotal + margin) * profile.dealerFee.rate) : 0;
  const discount = rng.chance(0.35) ? Math.round((costTotal + margin) * rng.pick([0.02, 0.03, 0.05])) : 0;
  const beforeRounding = costTotal + addersTotal + margin + dealerFee - discount;
  // Quotes are shown in whole tens; the difference is an explicit adjustment.
  const roundingCents = Math.round(beforeRounding / 1000) * 1000 - beforeRounding;
  const excludingTax = beforeRounding + roundingCents;
  const tax = Math.round(excludingTax * profile.taxRate);
  return {
    system_price_including_tax: fromCents(excludingTax + tax),
    system_price_excluding_tax: fromCents(excludingTax),
    costs: {
      hardware: fromCents(hardware),
      labor: fromCents(labor),
      overhead: fromCents(overhead),
      total: fromCents(costTotal),
    },
    line_items: [...hardwareItems, ...labourItems],
    adders: adders.map((adder) => ({ ...adder })),
    margin: fromCents(margin),
    discount: fromCents(discount),
    dealer_fee: fromCents(dealerFee),
    tax: fromCents(tax),
    tax_rate: profile.taxRate,
    price_adjustments: roundingCents === 0 ? [] : [{ title: 'Rounding', amount: fromCents(roundingCents) }],
  };
}

/** Australia's STC zone ratings: the southern mainland and Tasmania get fewer certificates. */
const stcZoneRating = (lat: number): number => (Math.abs(lat) >= 37 ? 1.185 : 1.382);
const STC_DEEMING_YEARS = 5;
const STC_PRICE_AUD = 38;

export function incentivesFor(rng: Rng, country: Country, kw: number, batteryKwh: number, panels: number, lat: number): Incentives {
  const toCustomer =
    country === 'AU'
      ? [
          (() => {
            const certificates = Math.floor(kw * stcZoneRating(lat) * STC_DEEMING_YEARS);
            return { title: `Small-scale technology certificates (${certificates} STCs)`, amount: certificates * STC_PRICE_AUD };
          })(),
          ...(batteryKwh > 0 ? [{ title: 'Cheaper Home Batteries rebate', amount: money(batteryKwh * 330) }] : []),
        ]
      : [
          { title: 'Utility solar rebate', amount: money(Math.min(3000, kw * 200)) },
          ...(batteryKwh > 0 ? [{ title: 'State storage incentive', amount: money(batteryKwh * 250) }] : []),
        ];
  const toInstaller = rng.chance(0.4) ? [{ title: 'Manufacturer volume rebate', amount: money(panels * (country === 'AU' ? 5 : 10)) }] : [];
  return { incentive_to_customer: toCustomer, incentive_to_installer: toInstaller };
}
