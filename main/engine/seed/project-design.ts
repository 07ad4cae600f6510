// A whole demo design (shared/design-types.ts) from a seed: the site, the roof,
// and one or more systems, each with its parts, layout, output, bills, price,
// incentives and payment options; plus the `systems` summary a project shows.
import type { DesignDiagnostic, DesignSite, DesignSystem, EnergySeries, ModuleGroup, PanelFeature, ProjectDesign } from '../../../shared/design-types.ts';
import { countOf } from '../../../shared/words.ts';
import { COUNTRY_PROFILES, type Country, type CountryProfile, type TariffAssumptions } from './country-economics.ts';
import { chooseAdders, chooseBatteries, chooseSpecialAdders, chooseInverters, chooseOthers, MODULES, type ModuleModel } from './equipment-catalogue.ts';
import { billComparison, consumptionSeries, environmentals, specificYield, systemOutput } from './energy-and-bills.ts';
import { paymentOptions, yearlySavings } from './payment-options.ts';
import { incentivesFor, priceSystem } from './pricing-and-incentives.ts';
import { facetFeature, layoutSystem, offSunAngle, planRoof, type FacetPlan, type RoofShape, type SceneFrame } from './roof-layout.ts';
import { ADDER_STREAM, DESIGN_STREAM, mixSeed, Rng } from './seeded-random.ts';
import { clamp, money, round, sum } from './seed-math.ts';

export interface DesignOptions {
  /** Default 1-2. */
  systems?: number;
  /** Every system gets exactly this many panels; default 10-30 each. */
  panelsPerSystem?: number;
  /** Default: near Sydney. */
  origin?: { lat: number; lon: number; elevation_m?: number };
  /** Default: AU south of the equator, US north of it. */
  country?: Country;
  /** Default: a typical household's 5,000-12,000 kWh. */
  annualConsumptionKwh?: number;
  tariff?: TariffAssumptions;
  storeys?: number;
}

export interface SystemSummary {
  id: number;
  uuid: string;
  url: string;
  name: string;
  kw_stc: number;
  price_including_tax: number;
  output_annual_kwh: number;
  modules: unknown[];
  inverters: unknown[];
  batteries: unknown[];
  others: unknown[];
  is_sold: boolean;
}

interface SystemPlan {
  uuid: string;
  id: number;
  module: ModuleModel;
  panels: number;
}

interface DesignContext {
  lat: number;
  country: Country;
  profile: CountryProfile;
  tariff: TariffAssumptions;
  consumption: EnergySeries;
  storeys: number;
  facets: FacetPlan[];
  frame: SceneFrame;
}

const SYSTEM_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function buildSystem(rng: Rng, plan: SystemPlan, index: number, ctx: DesignContext): { system: DesignSystem; panels: PanelFeature[] } {
  const placed = layoutSystem(ctx.facets, ctx.frame, plan.module, plan.panels, index + 1, plan.uuid);
  const groups = placed.map((p) => p.group);
  const kw = round((plan.panels * plan.module.watts) / 1000, 3);
  const inverters = chooseInverters(rng, kw, plan.panels, ctx.profile);
  const batteries = chooseBatteries(rng, plan.panels, ctx.profile);
  const inverterUnits = sum(inverters.map((part) => part.spec.quantity));
  const others = chooseOthers(ctx.country, plan.panels, inverterUnits, ctx.profile);
  const lowestPitch = Math.min(...groups.map((g) => g.pitch));
  const adders = [
    ...chooseAdders(rng, { storeys: ctx.storeys, lowestPitch }, plan.panels, ctx.profile),
    ...chooseSpecialAdders(new Rng(mixSeed(plan.id, ADDER_STREAM)), ctx.profile),
  ];
  const pricing = priceSystem(rng, { module: plan.module, panels: plan.panels, inverters, batteries, others }, adders, ctx.profile);
  const batteryKwh = sum(batteries.map((part) => part.spec.capacity_kwh * part.spec.quantity));
  const incentives = incentivesFor(rng, ctx.country, kw, batteryKwh, plan.panels, ctx.lat);
  const output = systemOutput(groups, plan.module.watts, ctx.lat);
  const bills = billComparison(output, ctx.consumption, ctx.tariff, batteries.length > 0, ctx.profile.currency);
  const savings = yearlySavings(money(bills.annual_bill_before - bills.annual_bill_after));
  const options = paymentOptions(rng, plan.id * 10 + 1, {
    priceIncludingTax: pricing.system_price_including_tax,
    customerIncentives: money(sum(incentives.incentive_to_customer.map((line) => line.amount))),
    savings,
    annualOutputKwh: output.annual_kwh,
    tariff: ctx.tariff,
    profile: ctx.profile,
  });
  const acKw = sum(inverters.map((part) => part.spec.max_power_kw * part.spec.quantity));
  const batteryLabel = batteryKwh > 0 ? ` + ${round(batteryKwh, 1)} kWh battery` : '';
  const system: DesignSystem = {
    uuid: plan.uuid,
    id: plan.id,
    name: `Option ${SYSTEM_LETTERS[index % SYSTEM_LETTERS.length]}: ${kw.toFixed(2)} kW${batteryLabel}`,
    is_sold: false,
    kw_stc: kw,
    total_module_quantity: plan.panels,
    output,
    consumption: { annual_kwh: ctx.consumption.annual_kwh, monthly_kwh: [...ctx.consumption.monthly_kwh] },
    bills,
    environmentals: environmentals(output.annual_kwh, ctx.profile),
    modules: [{ ...plan.module, quantity: plan.panels }],
    inverters: inverters.map((part) => part.spec),
    batteries: batteries.map((part) => part.spec),
    others: others.map((part) => part.spec),
    adders,
    module_groups: groups,
    pricing,
    incentives,
    payment_options: options,
    diagnostics: diagnosticsFor(groups, kw, acKw, ctx.lat),
    custom_data: { auto_designed: true, preferred: index === 0, design_revision: rng.int(1, 4) },
  };
  return { system, panels: placed.flatMap((p) => p.panels) };
}

function diagnosticsFor(groups: readonly ModuleGroup[], kw: number, acKw: number, lat: number): DesignDiagnostic[] {
  const diagnostics: DesignDiagnostic[] = [
    { level: 'info', message: `Auto design placed ${sum(groups.map((g) => g.module_quantity))} modules on ${countOf(groups.length, 'facet')}.` },
  ];
  const ratio = kw / acKw;
  if (ratio > 1.33) {
    diagnostics.push({ level: 'warning', message: `DC/AC ratio ${ratio.toFixed(2)} exceeds 1.33: expect clipping around midday.` });
  }
  for (const group of groups) {
    if (offSunAngle(group.azimuth, lat) > 100) {
      diagnostics.push({
        level: 'warning',
        message: `${group.module_quantity} modules on ${group.facet_id} face away from the sun (azimuth ${group.azimuth}°).`,
      });
    }
  }
  return diagnostics;
}

function siteFor(rng: Rng, ctx: DesignContext, roof: RoofShape, elevation: number, panels: PanelFeature[], systems: number): DesignSite {
  const slope = round(rng.float(0, 4), 1);
  const surface = rng.pick(['grass', 'concrete', 'soil', 'gravel', 'paving']);
  return {
    scene_origin: { lat: ctx.frame.lat, lon: ctx.frame.lon, elevation_m: elevation },
    terrain: { slope_degrees: slope, ground_elevation_m: elevation, surface },
    autoFacetsGeoJson: { type: 'FeatureCollection', features: ctx.facets.map((facet) => facetFeature(facet, ctx.frame)) },
    auto_design_geojson: { type: 'FeatureCollection', features: panels },
    messages: [
      `Detected ${ctx.facets.length} roof facets (${roof.style.replace(/_/g, ' ')} roof, ${roof.pitch}° pitch).`,
      `Auto design placed ${panels.length} panels across ${countOf(systems, 'system')}.`,
      `Terrain sloped ${slope}° with ${surface} surface.`,
    ],
  };
}

const DEFAULT_ORIGIN = { lat: -33.8688, lon: 151.2093 };

/** Sized as a designer would: to cover roughly 80-140 % of the household's use, 10-30 panels. */
function defaultPanelCount(rng: Rng, annualConsumptionKwh: number, module: ModuleModel, lat: number): number {
  const kwNeeded = (annualConsumptionKwh * rng.float(0.8, 1.4)) / specificYield(lat);
  return clamp(Math.round(kwNeeded / (module.watts / 1000)), 10, 30);
}

export function generateDesign(seed: number, options: DesignOptions = {}): ProjectDesign {
  const rng = new Rng(mixSeed(seed, DESIGN_STREAM));
  const lat = options.origin?.lat ?? DEFAULT_ORIGIN.lat + rng.float(-0.05, 0.05);
  const lon = options.origin?.lon ?? DEFAULT_ORIGIN.lon + rng.float(-0.05, 0.05);
  const elevation = round(options.origin?.elevation_m ?? rng.float(5, 80), 1);
  const country = options.country ?? (lat < 0 ? 'AU' : 'US');
  const profile = COUNTRY_PROFILES[country];
  const storeys = options.storeys ?? rng.int(1, 2);
  const annualConsumption = options.annualConsumptionKwh ?? rng.int(5000, 12000);
  const systemCount = Math.max(1, options.systems ?? rng.int(1, 2));
  const firstId = rng.int(10_000, 89_999);
  const plans: SystemPlan[] = Array.from({ length: systemCount }, (_, i) => {
    const module = rng.pick(MODULES);
    const panels = options.panelsPerSystem ?? defaultPanelCount(rng, annualConsumption, module, lat);
    return { uuid: rng.uuid(), id: firstId + i, module, panels: Math.max(1, Math.round(panels)) };
  });
  const maxPanels = plans.reduce((max, plan) => Math.max(max, plan.panels), 0);
  const { roof, frame, facets } = planRoof(rng, maxPanels, storeys, lat, lon);
  const ctx: DesignContext = {
    lat,
    country,
    profile,
    tariff: options.tariff ?? profile.tariff,
    consumption: consumptionSeries(annualConsumption, lat),
    storeys,
    facets,
    frame,
  };
  const built = plans.map((plan, i) => buildSystem(rng, plan, i, ctx));
  const panels = built.flatMap((b) => b.panels);
  return {
    version: 1,
    site: siteFor(rng, ctx, roof, elevation, panels, built.length),
    systems: built.map((b) => b.system),
  };
}

/** The project's `systems` field: one summary per design system, linking to its own URL. */
export function systemsSummary(design: ProjectDesign, projectUrl: string): SystemSummary[] {
  return design.systems.map((system) => ({
    id: system.id,
    uuid: system.uuid,
    url: `${projectUrl}systems/${system.uuid}/`,
    name: system.name,
    kw_stc: system.kw_stc,
    price_including_tax: system.pricing.system_price_including_tax,
    output_annual_kwh: system.output.annual_kwh,
    modules: system.modules,
    inverters: system.inverters,
    batteries: system.batteries,
    others: system.others,
    is_sold: system.is_sold,
  }));
}
