// The electricity retailers' tariffs a demo project is billed on, and the usage a
// customer reports (kWh or bills, yearly to monthly, or a rough estimate), derived
// from the household's true consumption so usage and designs agree.
import type { Usage, UsageDataSource } from '../../../shared/usage.ts';
import { COUNTRY_PROFILES, type Country } from './country-economics.ts';
import { consumptionSeasonWeights, DAYS_IN_MONTH } from './energy-and-bills.ts';
import { distribute, groupSums, sum } from './seed-math.ts';

export interface UtilityTariff {
  utility_name: string;
  tariff_name: string;
  tariff_code: string;
  energy_rate_per_kwh: number;
  feed_in_rate_per_kwh: number;
  fixed_charge_per_month: number;
}

export const UTILITIES: Record<string, UtilityTariff> = {
  ausgrid: { utility_name: 'Ausgrid', tariff_name: 'Residential flat rate', tariff_code: 'EA010', energy_rate_per_kwh: 0.34, feed_in_rate_per_kwh: 0.05, fixed_charge_per_month: 34 },
  endeavour: { utility_name: 'Endeavour Energy', tariff_name: 'Residential flat rate', tariff_code: 'N70', energy_rate_per_kwh: 0.35, feed_in_rate_per_kwh: 0.05, fixed_charge_per_month: 36 },
  jemena: { utility_name: 'Jemena', tariff_name: 'Residential single rate', tariff_code: 'A100', energy_rate_per_kwh: 0.29, feed_in_rate_per_kwh: 0.04, fixed_charge_per_month: 35 },
  united: { utility_name: 'United Energy', tariff_name: 'Residential single rate', tariff_code: 'LVS1R', energy_rate_per_kwh: 0.28, feed_in_rate_per_kwh: 0.04, fixed_charge_per_month: 33 },
  powercor: { utility_name: 'Powercor', tariff_name: 'Residential single rate', tariff_code: 'NDM1', energy_rate_per_kwh: 0.3, feed_in_rate_per_kwh: 0.04, fixed_charge_per_month: 36 },
  energex: { utility_name: 'Energex', tariff_name: 'Residential flat (Tariff 11)', tariff_code: '8400', energy_rate_per_kwh: 0.31, feed_in_rate_per_kwh: 0.05, fixed_charge_per_month: 32 },
  synergy: { utility_name: 'Synergy', tariff_name: 'Home Plan (A1)', tariff_code: 'A1', energy_rate_per_kwh: 0.31, feed_in_rate_per_kwh: 0.02, fixed_charge_per_month: 34 },
  sapn: { utility_name: 'SA Power Networks', tariff_name: 'Residential single rate', tariff_code: 'RSR', energy_rate_per_kwh: 0.42, feed_in_rate_per_kwh: 0.05, fixed_charge_per_month: 35 },
  tasnetworks: { utility_name: 'TasNetworks', tariff_name: 'Residential light and power (Tariff 31)', tariff_code: 'TAS31', energy_rate_per_kwh: 0.29, feed_in_rate_per_kwh: 0.09, fixed_charge_per_month: 39 },
  evoenergy: { utility_name: 'Evoenergy', tariff_name: 'Residential basic', tariff_code: '010', energy_rate_per_kwh: 0.27, feed_in_rate_per_kwh: 0.06, fixed_charge_per_month: 31 },
  sdge: { utility_name: 'San Diego Gas & Electric', tariff_name: 'TOU-DR1', tariff_code: 'TOU-DR1', energy_rate_per_kwh: 0.42, feed_in_rate_per_kwh: 0.08, fixed_charge_per_month: 24 },
  smud: { utility_name: 'Sacramento Municipal Utility District', tariff_name: 'Time-of-Day (5-8 p.m.)', tariff_code: 'R-TOD', energy_rate_per_kwh: 0.17, feed_in_rate_per_kwh: 0.07, fixed_charge_per_month: 25 },
  pge: { utility_name: 'Pacific Gas & Electric', tariff_name: 'E-TOU-C', tariff_code: 'E-TOU-C', energy_rate_per_kwh: 0.38, feed_in_rate_per_kwh: 0.05, fixed_charge_per_month: 15 },
  aps: { utility_name: 'Arizona Public Service', tariff_name: 'Saver Choice', tariff_code: 'R-TOU-E', energy_rate_per_kwh: 0.15, feed_in_rate_per_kwh: 0.07, fixed_charge_per_month: 17 },
  tep: { utility_name: 'Tucson Electric Power', tariff_name: 'Residential basic', tariff_code: 'R-01', energy_rate_per_kwh: 0.14, feed_in_rate_per_kwh: 0.07, fixed_charge_per_month: 16 },
  austin: { utility_name: 'Austin Energy', tariff_name: 'Residential standard', tariff_code: 'E01', energy_rate_per_kwh: 0.13, feed_in_rate_per_kwh: 0.1, fixed_charge_per_month: 15 },
  cps: { utility_name: 'CPS Energy', tariff_name: 'Residential electric service', tariff_code: 'RS', energy_rate_per_kwh: 0.12, feed_in_rate_per_kwh: 0.07, fixed_charge_per_month: 10 },
  xcel: { utility_name: 'Xcel Energy', tariff_name: 'Residential time-of-use', tariff_code: 'RE-TOU', energy_rate_per_kwh: 0.16, feed_in_rate_per_kwh: 0.06, fixed_charge_per_month: 8 },
  nvenergy: { utility_name: 'NV Energy', tariff_name: 'Residential standard', tariff_code: 'RS', energy_rate_per_kwh: 0.13, feed_in_rate_per_kwh: 0.08, fixed_charge_per_month: 18 },
  duke_fl: { utility_name: 'Duke Energy Florida', tariff_name: 'Residential service', tariff_code: 'RS-1', energy_rate_per_kwh: 0.16, feed_in_rate_per_kwh: 0.16, fixed_charge_per_month: 15 },
  duke_nc: { utility_name: 'Duke Energy Carolinas', tariff_name: 'Residential service', tariff_code: 'RS', energy_rate_per_kwh: 0.13, feed_in_rate_per_kwh: 0.04, fixed_charge_per_month: 14 },
  eversource: { utility_name: 'Eversource', tariff_name: 'Residential R-1', tariff_code: 'R-1', energy_rate_per_kwh: 0.31, feed_in_rate_per_kwh: 0.25, fixed_charge_per_month: 10 },
};

export const USAGE_SOURCE_WEIGHTS: ReadonlyArray<readonly [UsageDataSource | null, number]> = [
  [null, 12],
  ['kwh_annual', 10],
  ['kwh_monthly', 14],
  ['kwh_every_second_month', 6],
  ['kwh_quarterly', 10],
  ['kwh_daily_per_month', 5],
  ['bill_annual', 8],
  ['bill_monthly', 10],
  ['bill_every_second_month', 5],
  ['bill_quarterly', 10],
  ['estimate', 10],
];

/** The usage as a customer would report it, for a known true consumption. */
export function usageFor(source: UsageDataSource, annualKwh: number, lat: number, tariff: UtilityTariff): Usage {
  const monthlyKwh = distribute(annualKwh, consumptionSeasonWeights(lat));
  const monthlyBills = monthlyKwh.map((kwh) => Math.round(kwh * tariff.energy_rate_per_kwh + tariff.fixed_charge_per_month));
  const values = ((): Usage['values'] => {
    switch (source) {
      case 'kwh_annual':
        return annualKwh;
      case 'kwh_monthly':
        return monthlyKwh;
      case 'kwh_every_second_month':
        return groupSums(monthlyKwh, 2);
      case 'kwh_quarterly':
        return groupSums(monthlyKwh, 3);
      case 'kwh_daily_per_month':
        return monthlyKwh.map((kwh, month) => Math.round(kwh / (DAYS_IN_MONTH[month] ?? 30)));
      case 'bill_annual':
        return sum(monthlyBills);
      case 'bill_monthly':
        return monthlyBills;
      case 'bill_every_second_month':
        return groupSums(monthlyBills, 2);
      case 'bill_quarterly':
        return groupSums(monthlyBills, 3);
      case 'estimate':
        return annualKwh < 5000 ? 'Low' : annualKwh < 8500 ? 'Medium' : 'High';
    }
  })();
  return { usage_data_source: source, values };
}

export function tariffData(tariff: UtilityTariff, country: Country): Record<string, unknown> {
  return { ...tariff, currency: COUNTRY_PROFILES[country].currency };
}
