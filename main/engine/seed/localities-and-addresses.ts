// Where demo projects are: real suburbs and towns in both countries with their
// postcode, coordinates, elevation, utility and time zone, and made-up street
// addresses (residential and commercial) in them.
import type { Country } from './country-economics.ts';
import type { Rng } from './seeded-random.ts';

export interface Locality {
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

export const LOCALITY_ROWS: Record<Country, readonly LocalityRow[]> = {
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
export const STATE_UTC_OFFSETS: Record<string, number> = {
  NSW: 10, VIC: 10, QLD: 10, TAS: 10, ACT: 10, SA: 9.5, WA: 8,
  CA: -8, NV: -8, AZ: -7, CO: -7, TX: -6, FL: -5, NC: -5, MA: -5,
};

export function localityFrom(row: LocalityRow): Locality {
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

export function streetAddress(rng: Rng, country: Country, commercial: boolean): string {
  if (commercial) return `${rng.int(1, 120)} ${rng.pick(COMMERCIAL_STREETS[country])}`;
  const number = country === 'AU' ? rng.int(1, 250) : rng.int(100, 9999);
  return `${number} ${rng.pick(STREET_NAMES[country])} ${rng.pick(STREET_TYPES[country])}`;
}
