// The component catalogue a demo design draws from (modules, string and micro
// inverters, batteries, mounting and monitoring parts, price adders) and the choice
// of parts for a system of a given size. Unit costs are in AUD, scaled per country.
import type { BatterySpec, InverterSpec, ModuleSpec, OtherComponentSpec, PriceAdder } from '../../../shared/design-types.ts';
import type { Country, CountryProfile } from './country-economics.ts';
import type { Rng } from './seeded-random.ts';
import { money } from './seed-math.ts';

export type ModuleModel = Omit<ModuleSpec, 'quantity'>;
type InverterModel = Omit<InverterSpec, 'quantity'> & { unit_cost: number };
type BatteryModel = Omit<BatterySpec, 'quantity'> & { unit_cost: number };
type OtherModel = Omit<OtherComponentSpec, 'quantity'> & { unit_cost: number; per: 'module' | 'inverter' | 'system' };

export const MODULES: readonly ModuleModel[] = [
  { code: 'JKM440N-54HL4R-B', manufacturer_name: 'Jinko Solar', watts: 440, efficiency: 0.225, length_mm: 1722, width_mm: 1134 },
  { code: 'TSM-430NEG9R.28', manufacturer_name: 'Trina Solar', watts: 430, efficiency: 0.215, length_mm: 1762, width_mm: 1134 },
  { code: 'LR5-54HTH-435M', manufacturer_name: 'LONGi', watts: 435, efficiency: 0.223, length_mm: 1722, width_mm: 1134 },
  { code: 'REC410AA-PURE-R', manufacturer_name: 'REC', watts: 410, efficiency: 0.221, length_mm: 1730, width_mm: 1118 },
  { code: 'CS6R-420MS', manufacturer_name: 'Canadian Solar', watts: 420, efficiency: 0.215, length_mm: 1722, width_mm: 1134 },
  { code: 'Q.TRON-BLK-M-G2+-425', manufacturer_name: 'Qcells', watts: 425, efficiency: 0.218, length_mm: 1722, width_mm: 1134 },
];

/** The largest footprint in the catalog: a roof that fits these fits any module. */
export const LARGEST_MODULE = {
  length_mm: Math.max(...MODULES.map((m) => m.length_mm)),
  width_mm: Math.max(...MODULES.map((m) => m.width_mm)),
};

const STRING_INVERTERS: readonly InverterModel[] = [
  { code: 'Primo GEN24 5.0 Plus', manufacturer_name: 'Fronius', max_power_kw: 5, efficiency: 0.97, unit_cost: 2100 },
  { code: 'Sunny Boy 6.0', manufacturer_name: 'SMA', max_power_kw: 6, efficiency: 0.97, unit_cost: 1900 },
  { code: 'SE7600H-US', manufacturer_name: 'SolarEdge', max_power_kw: 7.6, efficiency: 0.99, unit_cost: 2600 },
  { code: 'SG8.0RS', manufacturer_name: 'Sungrow', max_power_kw: 8, efficiency: 0.976, unit_cost: 1500 },
  { code: 'Symo GEN24 10.0 Plus', manufacturer_name: 'Fronius', max_power_kw: 10, efficiency: 0.975, unit_cost: 3400 },
  { code: 'SG15RT', manufacturer_name: 'Sungrow', max_power_kw: 15, efficiency: 0.98, unit_cost: 2900 },
  { code: 'SG50CX', manufacturer_name: 'Sungrow', max_power_kw: 50, efficiency: 0.985, unit_cost: 6800 },
  { code: 'Sunny Tripower CORE2 110', manufacturer_name: 'SMA', max_power_kw: 110, efficiency: 0.985, unit_cost: 14500 },
];

const MICROINVERTER: InverterModel = {
  code: 'IQ8HC-72-M-INT',
  manufacturer_name: 'Enphase',
  max_power_kw: 0.384,
  efficiency: 0.97,
  unit_cost: 260,
};

const BATTERIES: readonly BatteryModel[] = [
  { code: 'Powerwall 3', manufacturer_name: 'Tesla', capacity_kwh: 13.5, power_kw: 11.5, unit_cost: 11500 },
  { code: 'Battery-Box Premium HVM 11.0', manufacturer_name: 'BYD', capacity_kwh: 11, power_kw: 10, unit_cost: 9200 },
  { code: 'SBR128', manufacturer_name: 'Sungrow', capacity_kwh: 12.8, power_kw: 6.4, unit_cost: 8300 },
  { code: 'IQ Battery 5P', manufacturer_name: 'Enphase', capacity_kwh: 5, power_kw: 3.84, unit_cost: 5600 },
  { code: 'SMILE-G3-B5', manufacturer_name: 'AlphaESS', capacity_kwh: 10.1, power_kw: 5, unit_cost: 7400 },
];

const OTHER_COMPONENTS: Record<Country, readonly OtherModel[]> = {
  AU: [
    { code: 'ER-I-05 kit', manufacturer_name: 'Clenergy', title: 'Roof mounting kit (per module)', unit_cost: 45, per: 'module' },
    { code: 'SI16-PEL64R-2', manufacturer_name: 'IMO', title: 'Rooftop DC isolator', unit_cost: 120, per: 'inverter' },
    { code: 'SA-MON-3P', manufacturer_name: 'Solar Analytics', title: 'Consumption monitoring', unit_cost: 390, per: 'system' },
  ],
  US: [
    { code: 'XR100 kit', manufacturer_name: 'IronRidge', title: 'Roof mounting kit (per module)', unit_cost: 70, per: 'module' },
    { code: 'TS4-A-F', manufacturer_name: 'Tigo', title: 'Rapid shutdown device', unit_cost: 65, per: 'module' },
    { code: 'IQ-GATEWAY', manufacturer_name: 'Enphase', title: 'Production and consumption monitoring', unit_cost: 450, per: 'system' },
  ],
};

interface AdderRule {
  title: string;
  /** AUD, before the country's scale. */
  price: number;
  per: 'system' | 'module';
  applies: (site: { storeys: number; lowestPitch: number }) => boolean;
}

const ADDERS: readonly AdderRule[] = [
  { title: 'Two-storey access and scaffolding', price: 650, per: 'system', applies: (site) => site.storeys >= 2 },
  { title: 'Tilt frames', price: 60, per: 'module', applies: (site) => site.lowestPitch < 12 },
  { title: 'Switchboard upgrade', price: 1200, per: 'system', applies: () => true },
  { title: 'Tile roof surcharge', price: 15, per: 'module', applies: () => true },
  { title: 'Extended workmanship warranty (10 years)', price: 600, per: 'system', applies: () => true },
  { title: 'Bird-proofing mesh', price: 12, per: 'module', applies: () => true },
];

export interface PricedPart<Spec> {
  spec: Spec;
  unitCost: number;
}

export function chooseInverters(rng: Rng, kw: number, panels: number, profile: CountryProfile): PricedPart<InverterSpec>[] {
  const scale = profile.catalogCostScale;
  if (panels <= 40 && rng.chance(0.25)) {
    const { unit_cost, ...spec } = MICROINVERTER;
    return [{ spec: { ...spec, quantity: panels }, unitCost: unit_cost * scale }];
  }
  // Installers undersize string inverters a little (DC/AC 1.1-1.3) since panels rarely hit nameplate.
  const targetAcKw = kw / rng.float(1.1, 1.3);
  const fitting = STRING_INVERTERS.filter((model) => model.max_power_kw >= targetAcKw);
  const largest = STRING_INVERTERS[STRING_INVERTERS.length - 1] as InverterModel;
  const model = fitting.length > 0 ? (fitting[0] as InverterModel) : largest;
  const quantity = Math.max(1, Math.ceil(targetAcKw / model.max_power_kw));
  const { unit_cost, ...spec } = model;
  return [{ spec: { ...spec, quantity }, unitCost: unit_cost * scale }];
}

export function chooseBatteries(rng: Rng, panels: number, profile: CountryProfile): PricedPart<BatterySpec>[] {
  if (panels > 150 || !rng.chance(0.4)) return [];
  const { unit_cost, ...spec } = rng.pick(BATTERIES);
  const quantity = rng.chance(0.15) ? 2 : 1;
  return [{ spec: { ...spec, quantity }, unitCost: unit_cost * profile.catalogCostScale }];
}

export function chooseOthers(
  country: Country,
  panels: number,
  inverterUnits: number,
  profile: CountryProfile,
): PricedPart<OtherComponentSpec>[] {
  const perBasis = { module: panels, inverter: inverterUnits, system: 1 };
  return OTHER_COMPONENTS[country].map(({ unit_cost, per, ...spec }) => ({
    spec: { ...spec, quantity: perBasis[per] },
    unitCost: unit_cost * profile.catalogCostScale,
  }));
}

export function chooseAdders(
  rng: Rng,
  site: { storeys: number; lowestPitch: number },
  panels: number,
  profile: CountryProfile,
): PriceAdder[] {
  const eligible = ADDERS.filter((rule) => rule.applies(site));
  const chosen = eligible.filter(() => rng.chance(0.25));
  return chosen.map((rule) => {
    const price = money(rule.price * profile.catalogCostScale * (rule.per === 'module' ? panels : 1));
    return { title: rule.title, price, cost: money(price * ADDER_COST_SHARE), quantity: rule.per === 'module' ? panels : 1, show_customer: true };
  });
}

/** What an adder costs the installer, as a share of its price. */
const ADDER_COST_SHARE = 0.7;

/**
 * A discount (a negative price) and a cost the installer bears without charging
 * for it (price 0), each on some systems. From their own stream (`rng` is made
 * for this alone), so the rest of the design is what it was before they existed.
 */
export function chooseSpecialAdders(rng: Rng, profile: CountryProfile): PriceAdder[] {
  const scale = profile.catalogCostScale;
  const adders: PriceAdder[] = [];
  if (rng.chance(0.3)) adders.push({ title: 'Referral discount', price: -money(250 * scale), cost: 0, quantity: 1, show_customer: true });
  if (rng.chance(0.3)) adders.push({ title: 'Site survey (included)', price: 0, cost: money(180 * scale), quantity: 1, show_customer: false });
  return adders;
}
