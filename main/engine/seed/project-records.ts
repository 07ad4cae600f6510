// A demo project's own fields, without its design: place, customer contacts,
// pipeline stage and its dates, usage, tariff, notes and lead source. Its design
// comes from project-design.ts; generator.ts puts the two together.
import type { ProjectDesign } from '../../../shared/design-types.ts';
import type { Usage } from '../../../shared/usage.ts';
import { DEFAULT_WORKFLOW } from '../orgs/org-service.ts';
import { PRE_HOSTED_ROOF_TYPE_IDS } from '../../../shared/roof-types.ts';
import type { Country } from './country-economics.ts';
import { localityFrom, LOCALITY_ROWS, STATE_UTC_OFFSETS, streetAddress } from './localities-and-addresses.ts';
import { businessName, generateContact, type GeneratedContact } from './people-and-businesses.ts';
import { COUNTRY_STREAMS, mixSeed, PROJECT_STREAM, Rng } from './seeded-random.ts';
import { DAY_MS, isoDate, round } from './seed-math.ts';
import { tariffData, usageFor, USAGE_SOURCE_WEIGHTS, UTILITIES, type UtilityTariff } from './utilities-and-usage.ts';

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

/** Later stages are rarer, as in a real pipeline; 'Lost' collects plenty. */
const STAGE_WEIGHTS = [16, 10, 14, 6, 8, 6, 5, 10, 10, 5, 10] as const;
const INSTALLING_STAGE = DEFAULT_WORKFLOW.stages.findIndex((stage) => stage.title === 'Installing');

const CREATED_FROM = Date.UTC(2025, 0, 1);
/** Leaves room for sale and installation dates to stay within 2026. */
const CREATED_DAYS = Math.round((Date.UTC(2026, 7, 31) - CREATED_FROM) / DAY_MS);

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

/** What a project's design is sized from: facts about the site the project record does not show. */
export interface ProjectSite {
  storeys: number;
  annualKwh: number;
  utility: UtilityTariff;
  elevation: number;
}

/** A project's own fields, its design left null, and the site its design is sized from. */
export function generateProjectRecord(seed: number, index: number, country: Country): { project: GeneratedProject; site: ProjectSite } {
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
    // The draw of the ids before issue 16, moved as store migration 0016 moves them: the demo stays the same demo.
    roof_type_id: rng.chance(0.1) ? null : PRE_HOSTED_ROOF_TYPE_IDS[rng.int(1, 8)]!,
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
  return { project, site: { storeys, annualKwh, utility, elevation: place.elevation_m } };
}
