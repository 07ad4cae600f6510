// A system's yearly and monthly output, the household's consumption through the
// seasons, the electricity bill before and after solar, and the carbon it saves.
import type { BillComparison, EnergySeries, Environmentals, ModuleGroup, MonthlySeries } from '../../../shared/design-types.ts';
import type { CountryProfile, TariffAssumptions } from './country-economics.ts';
import { offSunAngle } from './roof-layout.ts';
import { clamp, distribute, money, radians, round, sum } from './seed-math.ts';

export const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;
const MONTHS = DAYS_IN_MONTH.map((_, month) => month);

/** Solar output peaks in local summer, and the swing grows away from the equator. */
function solarSeasonWeights(lat: number): number[] {
  const peakMonth = lat < 0 ? 11.5 : 5.5;
  const swing = clamp(0.15 + Math.abs(lat) * 0.006, 0.2, 0.45);
  return MONTHS.map((month) => 1 + swing * Math.cos((2 * Math.PI * (month - peakMonth)) / 12));
}

/** Household use peaks twice, for winter heating and summer cooling, winter a little higher. */
export function consumptionSeasonWeights(lat: number): number[] {
  const winterPeak = lat < 0 ? 6 : 0;
  return MONTHS.map(
    (month) =>
      1 + 0.12 * Math.cos((4 * Math.PI * (month - winterPeak)) / 12) + 0.06 * Math.cos((2 * Math.PI * (month - winterPeak)) / 12),
  );
}

const TREES_PER_TONNE_CO2 = 16.5;
const TONNES_CO2_PER_CAR_YEAR = 4.6;

/** Net yearly kWh per kWp on an ideal roof: more sun nearer the equator. */
export function specificYield(lat: number): number {
  return clamp(1750 - 12 * (Math.abs(lat) - 20), 1100, 1800);
}

/** Losses for facing away from the sun and for tilt far from the latitude. */
function orientationFactor(azimuth: number, pitch: number, lat: number): number {
  const offSun = radians(offSunAngle(azimuth, lat));
  const headingLoss = (1 - Math.cos(offSun)) * Math.sin(radians(pitch)) * 0.35;
  const tiltLoss = 0.0001 * (pitch - Math.abs(lat)) ** 2;
  return clamp(1 - headingLoss - tiltLoss, 0.5, 1);
}

export function systemOutput(groups: readonly ModuleGroup[], watts: number, lat: number): EnergySeries {
  const annual = sum(
    groups.map((g) => ((g.module_quantity * watts) / 1000) * specificYield(lat) * orientationFactor(g.azimuth, g.pitch, lat)),
  );
  const monthly = distribute(Math.round(annual), solarSeasonWeights(lat));
  return { annual_kwh: sum(monthly), monthly_kwh: monthly };
}

export function consumptionSeries(annualKwh: number, lat: number): EnergySeries {
  const monthly = distribute(Math.round(annualKwh), consumptionSeasonWeights(lat));
  return { annual_kwh: sum(monthly), monthly_kwh: monthly };
}

/** Share of production used on site; a battery keeps more of it at home. */
const selfConsumptionShare = (hasBattery: boolean): number => (hasBattery ? 0.7 : 0.35);

export function billComparison(
  output: EnergySeries,
  consumption: EnergySeries,
  tariff: TariffAssumptions,
  hasBattery: boolean,
  currency: string,
): BillComparison {
  const before: MonthlySeries = consumption.monthly_kwh.map((kwh) => money(kwh * tariff.pricePerKwh + tariff.fixedChargePerMonth));
  const after: MonthlySeries = consumption.monthly_kwh.map((kwh, month) => {
    const produced = output.monthly_kwh[month] ?? 0;
    const usedOnSite = Math.min(kwh, produced * selfConsumptionShare(hasBattery));
    const exported = produced - usedOnSite;
    const bill = (kwh - usedOnSite) * tariff.pricePerKwh + tariff.fixedChargePerMonth - exported * tariff.feedInPerKwh;
    return money(Math.max(0, bill));
  });
  return {
    annual_bill_before: money(sum(before)),
    annual_bill_after: money(sum(after)),
    monthly_before: before,
    monthly_after: after,
    currency,
  };
}

export function environmentals(annualKwh: number, profile: CountryProfile): Environmentals {
  const tonnes = (annualKwh * profile.gridKgCo2PerKwh) / 1000;
  return {
    co2_tonnes_per_year: round(tonnes, 2),
    trees_equivalent: Math.round(tonnes * TREES_PER_TONNE_CO2),
    cars_off_road: round(tonnes / TONNES_CO2_PER_CAR_YEAR, 1),
  };
}
