// Deterministic demo projects: a project's own fields (place, people, usage, stage,
// dates) and, through project-design.ts, its design, all from one seed. Same
// (seed, index, options) => byte-identical output: see seeded-random.ts.
import type { ProjectDesign } from '../../../shared/design-types.ts';
import type { Usage, UsageDataSource } from '../../../shared/usage.ts';
import { DEFAULT_WORKFLOW } from '../orgs/org-service.ts';
import { COUNTRY_PROFILES, type Country } from './country-economics.ts';
import { consumptionSeasonWeights, DAYS_IN_MONTH } from './energy-and-bills.ts';
import { generateDesign } from './project-design.ts';
import { COUNTRY_STREAMS, DESIGN_STREAM, mixSeed, PROJECT_STREAM, Rng, SOLD_SYSTEM_STREAM } from './seeded-random.ts';
import { DAY_MS, distribute, groupSums, isoDate, round, sum } from './seed-math.ts';

export interface GeneratedContact {
  first_name: string;
  family_name: string;
  email: string;
  phone: string;
  date_of_birth: string | null;
  /** 0 = unset, 1 = female, 2 = male (service.md 2.1, contact record). */
  gender: 0 | 1 | 2;
}

export interface GeneratedProject {
  title: string;
  identifier: string;
  address: string;
  locality: string;
  county: string | null;
  state: string;
  zip: string;
  country_iso2: Country;
  lat: number;
  lon: number;
  timezone_offset: number;
  business_name: string | null;
  is_residential: boolean;
  number_of_phases: number | null;
  number_of_storeys: number | null;
  /** 1..8: one of the seeded roof types. */
  roof_type_id: number | null;
  /** 1..3. */
  priority: number;
  notes: string;
  site_notes: string;
  lead_source: string;
  /** Index into DEFAULT_WORKFLOW.stages. */
  stage_index: number;
  /** One or two. */
  contacts: GeneratedContact[];
  usage: Usage | null;
  custom_data: Record<string, unknown> | null;
  utility_tariff_current_data: Record<string, unknown> | null;
  installation_date: string | null;
  sold_date: string | null;
  contract_date: string | null;
  /** ISO timestamp in 2025-2026. */
  created_date: string;
  design: ProjectDesign | null;
}

export interface ProjectOptions {
  /** Default true. */
  withDesign?: boolean;
  /** Default 'AU'. */
  country?: Country;
}

// ===========================================================================
// Places, people and businesses

interface UtilityTariff {
  utility_name: string;
  tariff_name: string;
  tariff_code: string;
  energy_rate_per_kwh: number;
  feed_in_rate_per_kwh: number;
  fixed_charge_per_month: number;
}

const UTILITIES: Record<string, UtilityTariff> = {
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

interface Locality {
  locality: string;
  state: string;
  zip: string;
  county: string | null;
  lat: number;
  lon: number;
  elevation_m: number;
  utility: string;
  /** US telephone area code; unused in Australia, where demo numbers are mobiles. */
  area_code: string;
}

// [locality, state, zip, county, lat, lon, elevation_m, utility key, area code]
type LocalityRow = readonly [string, string, string, string | null, number, number, number, string, string];

const LOCALITY_ROWS: Record<Country, readonly LocalityRow[]> = {
  AU: [
    ['Paddington', 'NSW', '2021', null, -33.8847, 151.2262, 40, 'ausgrid', ''],
    ['Marrickville', 'NSW', '2204', null, -33.911, 151.155, 15, 'ausgrid', ''],
    ['Castle Hill', 'NSW', '2154', null, -33.731, 151.004, 140, 'endeavour', ''],
    ['Penrith', 'NSW', '2750', null, -33.7507, 150.6877, 30, 'endeavour', ''],
    ['Brunswick', 'VIC', '3056', null, -37.7667, 144.96, 50, 'jemena', ''],
    ['Glen Waverley', 'VIC', '3150', null, -37.8781, 145.1648, 110, 'united', ''],
    ['Geelong West', 'VIC', '3218', null, -38.138, 144.347, 20, 'powercor', ''],
    ['Paddington', 'QLD', '4064', null, -27.4598, 153.0082, 30, 'energex', ''],
    ['Chermside', 'QLD', '4032', null, -27.3856, 153.031, 25, 'energex', ''],
    ['Mermaid Beach', 'QLD', '4218', null, -28.044, 153.434, 5, 'energex', ''],
    ['Subiaco', 'WA', '6008', null, -31.949, 115.826, 20, 'synergy', ''],
    ['Fremantle', 'WA', '6160', null, -32.0569, 115.7439, 10, 'synergy', ''],
    ['Norwood', 'SA', '5067', null, -34.921, 138.633, 60, 'sapn', ''],
    ['Glenelg', 'SA', '5045', null, -34.98, 138.515, 5, 'sapn', ''],
    ['Sandy Bay', 'TAS', '7005', null, -42.9, 147.325, 30, 'tasnetworks', ''],
    ['Belconnen', 'ACT', '2617', null, -35.2383, 149.066, 580, 'evoenergy', ''],
  ],
  US: [
    ['San Diego', 'CA', '92104', 'San Diego County', 32.7405, -117.1296, 100, 'sdge', '619'],
    ['Sacramento', 'CA', '95818', 'Sacramento County', 38.5566, -121.495, 8, 'smud', '916'],
    ['Fresno', 'CA', '93704', 'Fresno County', 36.8037, -119.8, 100, 'pge', '559'],
    ['Phoenix', 'AZ', '85018', 'Maricopa County', 33.4942, -111.99, 380, 'aps', '602'],
    ['Tucson', 'AZ', '85716', 'Pima County', 32.2468, -110.9225, 750, 'tep', '520'],
    ['Austin', 'TX', '78704', 'Travis County', 30.2433, -97.7665, 150, 'austin', '512'],
    ['San Antonio', 'TX', '78209', 'Bexar County', 29.4889, -98.4554, 250, 'cps', '210'],
    ['Denver', 'CO', '80210', 'Denver County', 39.678, -104.962, 1610, 'xcel', '303'],
    ['Las Vegas', 'NV', '89117', 'Clark County', 36.145, -115.275, 780, 'nvenergy', '702'],
    ['Orlando', 'FL', '32803', 'Orange County', 28.5539, -81.3519, 30, 'duke_fl', '407'],
    ['Raleigh', 'NC', '27608', 'Wake County', 35.809, -78.648, 110, 'duke_nc', '919'],
    ['Boston', 'MA', '02130', 'Suffolk County', 42.3097, -71.1151, 20, 'eversource', '617'],
  ],
};

/** Standard time, hours from UTC (daylight saving is the app's concern, not the seed's). */
const STATE_UTC_OFFSETS: Record<string, number> = {
  NSW: 10, VIC: 10, QLD: 10, TAS: 10, ACT: 10, SA: 9.5, WA: 8,
  CA: -8, NV: -8, AZ: -7, CO: -7, TX: -6, FL: -5, NC: -5, MA: -5,
};

function localityFrom(row: LocalityRow): Locality {
  const [locality, state, zip, county, lat, lon, elevation_m, utility, area_code] = row;
  return { locality, state, zip, county, lat, lon, elevation_m, utility, area_code };
}

const STREET_NAMES: Record<Country, readonly string[]> = {
  AU: ['Wattle', 'Banksia', 'Jacaranda', 'Victoria', 'George', 'Church', 'Railway', 'Beach', 'Hill', 'Park', 'Darling', 'Bellevue', 'Grevillea', 'Ocean', 'Kent', 'Albert', 'Macquarie', 'Waratah'],
  US: ['Maple', 'Oak', 'Cedar', 'Elm', 'Pine', 'Sunset', 'Highland', 'Willow', 'Lakeview', 'Magnolia', 'Juniper', 'Mesa Verde', 'Aspen', 'Washington', 'Lincoln', 'Mission', 'Canyon', 'Meadow'],
};
const STREET_TYPES: Record<Country, readonly string[]> = {
  AU: ['Street', 'Street', 'Road', 'Avenue', 'Parade', 'Crescent', 'Close', 'Court', 'Place', 'Terrace'],
  US: ['St', 'St', 'Ave', 'Dr', 'Ln', 'Way', 'Ct', 'Blvd', 'Pl', 'Rd'],
};
const COMMERCIAL_STREETS: Record<Country, readonly string[]> = {
  AU: ['Enterprise Drive', 'Industry Road', 'Commercial Road', 'Factory Street', 'Trade Park Drive'],
  US: ['Commerce Blvd', 'Industrial Way', 'Business Park Dr', 'Enterprise Ave', 'Distribution Dr'],
};

const FIRST_NAMES: ReadonlyArray<readonly [string, 1 | 2]> = [
  ['Olivia', 1], ['Liam', 2], ['Charlotte', 1], ['Noah', 2], ['Amelia', 1], ['Jack', 2], ['Isla', 1], ['William', 2],
  ['Mia', 1], ['Oliver', 2], ['Priya', 1], ['Arjun', 2], ['Mei', 1], ['Wei', 2], ['Sofia', 1], ['Mateo', 2],
  ['Aisha', 1], ['Omar', 2], ['Chloe', 1], ['Lachlan', 2], ['Grace', 1], ['Ethan', 2], ['Hannah', 1], ['Lucas', 2],
  ['Zara', 1], ['Daniel', 2], ['Emily', 1], ['James', 2], ['Ava', 1], ['Tomás', 2],
];
const FAMILY_NAMES: readonly string[] = [
  'Smith', 'Nguyen', 'Williams', 'Brown', 'Patel', 'Chen', 'Kelly', 'Wilson', 'Taylor', 'Garcia',
  'Martinez', "O'Brien", 'Singh', 'Kim', 'Rossi', 'Murphy', 'Walker', 'Johnson', 'Anderson', 'Thompson',
  'Lee', 'Wang', 'Hughes', 'Campbell', 'Ramirez', 'Cohen', 'Nakamura', 'Kowalski', 'Papadopoulos', 'Okafor',
];
const EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org'] as const;

const BUSINESS_PREFIXES = ['Harbourside', 'Greenfield', 'Northside', 'Riverbend', 'Summit', 'Bayview', 'Ironbark', 'Lakeside', 'Redgum', 'Westgate'];
const BUSINESS_KINDS = ['Dental', 'Bakery', 'Physiotherapy', 'Self Storage', 'Motors', 'Veterinary Clinic', 'Brewing Co', 'Joinery', 'Early Learning', 'Cold Storage', 'Printing', 'Fitness'];
const BUSINESS_SUFFIXES: Record<Country, readonly string[]> = { AU: ['Pty Ltd', 'Pty Ltd', ''], US: ['LLC', 'Inc.', ''] };

const LEAD_SOURCES = ['Website enquiry', 'Referral', 'Google Ads', 'Facebook', 'Home show', 'Door knocking', 'Repeat customer', 'Quote comparison site', 'Local newspaper'];

const PROJECT_NOTES = [
  'Interested in adding a battery to cover evening usage.',
  'Has an EV and charges overnight; wants to shift charging to daytime.',
  'Wants a second option with premium panels for comparison.',
  'Asked about finance options and monthly repayments.',
  'Existing 1.5 kW system from 2010 to be removed.',
  'Prefers email contact; works night shifts.',
  'Neighbour had panels installed by us last year.',
  '',
];
const SITE_NOTES: Record<Country, readonly string[]> = {
  AU: [
    'Tin roof in good condition. Switchboard has room for a new breaker.',
    'Tile roof; a few cracked tiles near the ridge to be replaced.',
    'Access via side gate. Dog on property.',
    'Large gum tree shades the west facet after 3 pm.',
    'Meter box on the north wall; inverter can go in the garage.',
    'Asbestos switchboard: needs replacing before install.',
    '',
  ],
  US: [
    'Composition shingle roof, about 8 years old.',
    'Main panel is 200 A; room for a backfeed breaker.',
    'HOA approval required before install.',
    'Mature oak shades the south-west corner in winter afternoons.',
    'Access via side gate. Dog on property.',
    'Detached garage could take a second array later.',
    '',
  ],
};

const EMAIL_SAFE = /[^a-z]/g;
const emailPart = (name: string): string => name.toLowerCase().normalize('NFD').replace(EMAIL_SAFE, '');

// ===========================================================================
// Projects

/** Later stages are rarer, as in a real pipeline; 'Lost' collects plenty. */
const STAGE_WEIGHTS = [16, 10, 14, 6, 8, 6, 5, 10, 10, 5, 10] as const;
const INSTALLING_STAGE = DEFAULT_WORKFLOW.stages.findIndex((stage) => stage.title === 'Installing');

const CREATED_FROM = Date.UTC(2025, 0, 1);
/** Leaves room for sale and installation dates to stay within 2026. */
const CREATED_DAYS = Math.round((Date.UTC(2026, 7, 31) - CREATED_FROM) / DAY_MS);


function generateContact(rng: Rng, country: Country, locality: Locality, familyName: string | null): GeneratedContact {
  const [first, gender] = rng.pick(FIRST_NAMES);
  const family = familyName ?? rng.pick(FAMILY_NAMES);
  const local = rng.chance(0.6) ? `${emailPart(first)}.${emailPart(family)}` : `${emailPart(first)}${emailPart(family).slice(0, 1)}${rng.int(1, 99)}`;
  const phone = country === 'AU' ? `0491 57${rng.int(0, 9)} ${rng.digits(3)}` : `(${locality.area_code}) 555-01${rng.digits(2)}`;
  const birthMs = Date.UTC(1950, 0, 1) + rng.int(0, 45 * 365) * DAY_MS;
  return {
    first_name: first,
    family_name: family,
    email: `${local}@${rng.pick(EMAIL_DOMAINS)}`,
    phone,
    date_of_birth: rng.chance(0.4) ? isoDate(birthMs) : null,
    gender: rng.chance(0.4) ? 0 : gender,
  };
}

const USAGE_SOURCE_WEIGHTS: ReadonlyArray<readonly [UsageDataSource | null, number]> = [
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
function usageFor(source: UsageDataSource, annualKwh: number, lat: number, tariff: UtilityTariff): Usage {
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

function tariffData(tariff: UtilityTariff, country: Country): Record<string, unknown> {
  return { ...tariff, currency: COUNTRY_PROFILES[country].currency };
}

function customData(rng: Rng): Record<string, unknown> | null {
  if (rng.chance(0.4)) return null;
  return {
    referral_code: `REF-${rng.digits(4)}`,
    preferred_contact: rng.pick(['email', 'phone', 'sms']),
    has_ev: rng.chance(0.3),
    roof_age_years: rng.int(2, 35),
  };
}

interface ProjectDates {
  created_date: string;
  sold_date: string | null;
  contract_date: string | null;
  installation_date: string | null;
}

/** Sale dates only once a contract is signed; installation once it is scheduled or done. */
function projectDates(rng: Rng, stageIndex: number): ProjectDates {
  const createdMs = CREATED_FROM + rng.int(0, CREATED_DAYS) * DAY_MS + rng.int(8 * 3600, 18 * 3600) * 1000;
  const milestone = DEFAULT_WORKFLOW.stages[stageIndex]?.milestone ?? 0;
  const isSold = milestone === 2 || milestone === 3;
  const soldMs = createdMs + rng.int(5, 40) * DAY_MS;
  const installed = isSold && (milestone === 3 || stageIndex >= INSTALLING_STAGE);
  const installMs = soldMs + rng.int(20, 75) * DAY_MS;
  return {
    created_date: new Date(createdMs).toISOString(),
    sold_date: isSold ? isoDate(soldMs) : null,
    contract_date: isSold ? isoDate(soldMs) : null,
    installation_date: installed ? isoDate(installMs) : null,
  };
}

function businessName(rng: Rng, country: Country): string {
  const suffix = rng.pick(BUSINESS_SUFFIXES[country]);
  return [rng.pick(BUSINESS_PREFIXES), rng.pick(BUSINESS_KINDS), suffix].filter(Boolean).join(' ');
}

function streetAddress(rng: Rng, country: Country, commercial: boolean): string {
  if (commercial) return `${rng.int(1, 120)} ${rng.pick(COMMERCIAL_STREETS[country])}`;
  const number = country === 'AU' ? rng.int(1, 250) : rng.int(100, 9999);
  return `${number} ${rng.pick(STREET_NAMES[country])} ${rng.pick(STREET_TYPES[country])}`;
}

export function generateProject(seed: number, index: number, options: ProjectOptions = {}): GeneratedProject {
  const country = options.country ?? 'AU';
  const rng = new Rng(mixSeed(seed, index, PROJECT_STREAM, COUNTRY_STREAMS[country]));
  const place = localityFrom(rng.pick(LOCALITY_ROWS[country]));
  const utility = UTILITIES[place.utility];
  if (!utility) throw new Error(`No utility "${place.utility}" for ${place.locality}.`);
  const commercial = rng.chance(0.15);
  const business = commercial ? businessName(rng, country) : null;
  const address = streetAddress(rng, country, commercial);
  const lat = round(place.lat + rng.float(-0.01, 0.01), 6);
  const lon = round(place.lon + rng.float(-0.01, 0.01), 6);
  const primary = generateContact(rng, country, place, null);
  const contacts = [primary, ...(rng.chance(0.3) ? [generateContact(rng, country, place, primary.family_name)] : [])];
  const stageIndex = rng.weighted(STAGE_WEIGHTS.map((weight, stage) => [stage, weight] as const));
  const dates = projectDates(rng, stageIndex);
  const storeys = commercial ? rng.int(1, 3) : rng.int(1, 2);
  const annualKwh = commercial ? rng.int(30_000, 90_000) : rng.int(3_500, 14_000);
  const usageSource = rng.weighted(USAGE_SOURCE_WEIGHTS.filter(([source]) => !(commercial && source === 'estimate')));
  const yearCreated = dates.created_date.slice(0, 4);
  const project: GeneratedProject = {
    title: business ?? (rng.chance(0.5) ? `${primary.family_name} residence` : `${address}, ${place.locality}`),
    identifier: `${country === 'AU' ? 'SD' : 'SDU'}-${yearCreated}-${String(index + 1).padStart(4, '0')}`,
    address,
    locality: place.locality,
    county: place.county,
    state: place.state,
    zip: place.zip,
    country_iso2: country,
    lat,
    lon,
    timezone_offset: STATE_UTC_OFFSETS[place.state] ?? 0,
    business_name: business,
    is_residential: !commercial,
    number_of_phases: rng.chance(0.1) ? null : commercial || (country === 'AU' && rng.chance(0.2)) ? 3 : 1,
    number_of_storeys: rng.chance(0.1) ? null : storeys,
    roof_type_id: rng.chance(0.1) ? null : rng.int(1, 8),
    priority: rng.int(1, 3),
    notes: rng.pick(PROJECT_NOTES),
    site_notes: rng.pick(SITE_NOTES[country]),
    lead_source: rng.pick(LEAD_SOURCES),
    stage_index: stageIndex,
    contacts,
    usage: usageSource === null ? null : usageFor(usageSource, annualKwh, lat, utility),
    custom_data: customData(rng),
    utility_tariff_current_data: rng.chance(0.3) ? null : tariffData(utility, country),
    ...dates,
    design: null,
  };
  if (options.withDesign ?? true) project.design = designForProject(seed, index, project, { storeys, annualKwh, utility, elevation: place.elevation_m });
  return project;
}

function designForProject(
  seed: number,
  index: number,
  project: GeneratedProject,
  site: { storeys: number; annualKwh: number; utility: UtilityTariff; elevation: number },
): ProjectDesign {
  const countryStream = COUNTRY_STREAMS[project.country_iso2];
  const designSeed = mixSeed(seed, index, DESIGN_STREAM, countryStream);
  const sizing = new Rng(mixSeed(seed, index, SOLD_SYSTEM_STREAM, countryStream));
  const design = generateDesign(designSeed, {
    origin: { lat: project.lat, lon: project.lon, elevation_m: site.elevation },
    country: project.country_iso2,
    annualConsumptionKwh: site.annualKwh,
    storeys: site.storeys,
    tariff: {
      pricePerKwh: site.utility.energy_rate_per_kwh,
      feedInPerKwh: site.utility.feed_in_rate_per_kwh,
      fixedChargePerMonth: site.utility.fixed_charge_per_month,
    },
    ...(project.is_residential ? {} : { panelsPerSystem: sizing.int(40, 150) }),
  });
  if (project.sold_date !== null) {
    const sold = sizing.pick(design.systems);
    sold.is_sold = true;
  }
  return design;
}
