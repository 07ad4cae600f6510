// Deterministic demo data: projects and their decoded designs (shared/design-types.ts)
// from a seed number. Demo databases, tests and benchmarks all need realistic data
// that is identical from run to run, so everything here comes from one seeded PRNG:
// no Math.random, no clock. Same (seed, index, options) => byte-identical output.
import type {
  BatterySpec,
  BillComparison,
  DesignDiagnostic,
  DesignSite,
  DesignSystem,
  EnergySeries,
  Environmentals,
  FeaturedFigure,
  Incentives,
  InverterSpec,
  LinearRing,
  LonLat,
  ModuleGroup,
  ModuleSpec,
  MonthlySeries,
  OtherComponentSpec,
  PanelFeature,
  PanelOrientation,
  PaymentOption,
  PaymentType,
  PriceAdder,
  PricingLineItem,
  ProjectDesign,
  QuotationLine,
  RoofFacetFeature,
  SystemPricing,
} from '../../../shared/design-types.ts';
import type { Usage, UsageDataSource } from '../../../shared/usage.ts';
import { DEFAULT_WORKFLOW } from '../orgs/org-service.ts';

export type Country = 'AU' | 'US';

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

/** What a bill is computed from; defaults come from the country. */
export interface TariffAssumptions {
  pricePerKwh: number;
  feedInPerKwh: number;
  fixedChargePerMonth: number;
}

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

// ===========================================================================
// Seeded randomness

const UINT32 = 2 ** 32;

/** Folds any numbers into one 32-bit seed, so (seed, index, stream) give independent sequences. */
function mixSeed(...parts: number[]): number {
  let hash = 0x811c9dc5;
  for (const part of parts) {
    const whole = Math.trunc(part);
    for (const word of [whole >>> 0, Math.floor(whole / UINT32) >>> 0]) {
      hash = Math.imul(hash ^ word, 0x01000193);
      hash ^= hash >>> 15;
      hash = Math.imul(hash, 0x85ebca6b);
      hash ^= hash >>> 13;
    }
  }
  return hash >>> 0;
}

/** mulberry32: tiny, fast, good enough for demo data, and the same on every platform. */
class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed | 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / UINT32;
  }

  float(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Inclusive of both ends. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('Cannot pick from an empty list.');
    return item;
  }

  weighted<T>(entries: ReadonlyArray<readonly [T, number]>): T {
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.next() * total;
    for (const [value, weight] of entries) {
      roll -= weight;
      if (roll < 0) return value;
    }
    const last = entries[entries.length - 1];
    if (!last) throw new Error('Cannot pick from an empty list.');
    return last[0];
  }

  /** A version 4 UUID made of PRNG bits, so ids are stable across runs. */
  uuid(): string {
    const nibbles = Array.from({ length: 32 }, () => this.int(0, 15));
    nibbles[12] = 4;
    nibbles[16] = 8 + ((nibbles[16] ?? 0) & 3);
    const hex = nibbles.map((n) => n.toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  digits(count: number): string {
    return Array.from({ length: count }, () => this.int(0, 9)).join('');
  }
}

// Independent streams, so e.g. turning the design off leaves the project fields unchanged.
const PROJECT_STREAM = 1;
const DESIGN_STREAM = 2;
const SOLD_SYSTEM_STREAM = 3;
const COUNTRY_STREAMS: Record<Country, number> = { AU: 0, US: 1 };

// ===========================================================================
// Small numeric helpers

const round = (value: number, decimals: number): number => {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
};
const money = (value: number): number => round(value, 2);
const sum = (values: readonly number[]): number => values.reduce((total, v) => total + v, 0);
const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));
const radians = (degrees: number): number => (degrees * Math.PI) / 180;
const normalizeDegrees = (degrees: number): number => ((degrees % 360) + 360) % 360;

/** Splits a total into integer parts proportional to the weights; the parts add up to the total. */
function distribute(total: number, weights: readonly number[]): number[] {
  const weightSum = sum(weights);
  let carried = 0;
  let assigned = 0;
  return weights.map((weight) => {
    carried += (total * weight) / weightSum;
    const upTo = Math.round(carried);
    const part = upTo - assigned;
    assigned = upTo;
    return part;
  });
}

function groupSums(values: readonly number[], size: number): number[] {
  const groups: number[] = [];
  for (let start = 0; start < values.length; start += size) groups.push(sum(values.slice(start, start + size)));
  return groups;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;
const MONTHS = DAYS_IN_MONTH.map((_, month) => month);

/** Solar output peaks in local summer, and the swing grows away from the equator. */
function solarSeasonWeights(lat: number): number[] {
  const peakMonth = lat < 0 ? 11.5 : 5.5;
  const swing = clamp(0.15 + Math.abs(lat) * 0.006, 0.2, 0.45);
  return MONTHS.map((month) => 1 + swing * Math.cos((2 * Math.PI * (month - peakMonth)) / 12));
}

/** Household use peaks twice, for winter heating and summer cooling, winter a little higher. */
function consumptionSeasonWeights(lat: number): number[] {
  const winterPeak = lat < 0 ? 6 : 0;
  return MONTHS.map(
    (month) =>
      1 + 0.12 * Math.cos((4 * Math.PI * (month - winterPeak)) / 12) + 0.06 * Math.cos((2 * Math.PI * (month - winterPeak)) / 12),
  );
}

// ===========================================================================
// Country economics

interface LoanTerms {
  annualRate: number;
  years: number;
  depositFraction: number;
}

interface CountryProfile {
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

const COUNTRY_PROFILES: Record<Country, CountryProfile> = {
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

const ANALYSIS_YEARS = 25;
const DISCOUNT_RATE = 0.05;
const TARIFF_ESCALATION = 0.03;
const PANEL_DEGRADATION = 0.005;
const LEASE_ESCALATOR = 0.029;
const TREES_PER_TONNE_CO2 = 16.5;
const TONNES_CO2_PER_CAR_YEAR = 4.6;

// ===========================================================================
// Component catalog (unit costs in AUD, before the country's scale)

type ModuleModel = Omit<ModuleSpec, 'quantity'>;
type InverterModel = Omit<InverterSpec, 'quantity'> & { unit_cost: number };
type BatteryModel = Omit<BatterySpec, 'quantity'> & { unit_cost: number };
type OtherModel = Omit<OtherComponentSpec, 'quantity'> & { unit_cost: number; per: 'module' | 'inverter' | 'system' };

const MODULES: readonly ModuleModel[] = [
  { code: 'JKM440N-54HL4R-B', manufacturer_name: 'Jinko Solar', watts: 440, efficiency: 0.225, length_mm: 1722, width_mm: 1134 },
  { code: 'TSM-430NEG9R.28', manufacturer_name: 'Trina Solar', watts: 430, efficiency: 0.215, length_mm: 1762, width_mm: 1134 },
  { code: 'LR5-54HTH-435M', manufacturer_name: 'LONGi', watts: 435, efficiency: 0.223, length_mm: 1722, width_mm: 1134 },
  { code: 'REC410AA-PURE-R', manufacturer_name: 'REC', watts: 410, efficiency: 0.221, length_mm: 1730, width_mm: 1118 },
  { code: 'CS6R-420MS', manufacturer_name: 'Canadian Solar', watts: 420, efficiency: 0.215, length_mm: 1722, width_mm: 1134 },
  { code: 'Q.TRON-BLK-M-G2+-425', manufacturer_name: 'Qcells', watts: 425, efficiency: 0.218, length_mm: 1722, width_mm: 1134 },
];

/** The largest footprint in the catalog: a roof that fits these fits any module. */
const LARGEST_MODULE = {
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

// ===========================================================================
// Roof geometry
//
// A roof is planned in a local "building frame" in metres (x along the ridge,
// y across it, origin at the building's centre), then rotated so the front facet
// faces `frontAzimuth` and converted to lon/lat around the scene origin. Every
// facet, whether rectangle, trapezoid or triangle, is described the same way: an
// eave edge, a horizontal direction up the slope, and where the ridge starts and
// ends along the eave. That one description drives outlines, panel rows and areas.

interface Vec2 {
  x: number;
  y: number;
}

type RoofStyle = 'gable' | 'hip' | 'gable_with_verandah';

interface Verandah {
  offset: number;
  width: number;
  depth: number;
  pitch: number;
}

interface RoofShape {
  style: RoofStyle;
  width: number;
  depth: number;
  pitch: number;
  eaveHeight: number;
  verandah: Verandah | null;
}

interface FacetPlan {
  id: string;
  /** Left end of the eave, in the building frame. */
  origin: Vec2;
  /** Unit vector along the eave. */
  along: Vec2;
  /** Horizontal unit vector from the eave towards the ridge. */
  inward: Vec2;
  eaveLength: number;
  /** Horizontal distance from eave to ridge. */
  run: number;
  /** Where the ridge starts and ends, measured along the eave (equal for a triangle). */
  ridgeStart: number;
  ridgeEnd: number;
  pitch: number;
  azimuth: number;
  heightM: number;
  orientation: PanelOrientation;
}

/** Rotation of the building frame into east/north metres, plus the lon/lat scale at the origin. */
interface SceneFrame {
  lat: number;
  lon: number;
  axisX: Vec2;
  axisY: Vec2;
  metresPerDegreeLon: number;
}

const METRES_PER_DEGREE_LAT = 111_320;
const EDGE_SETBACK_M = 0.3;
const PANEL_GAP_M = 0.02;
const VERANDAH_EAVE_M = 2.4;
const COORDINATE_DECIMALS = 7; // about 1 cm

function sceneFrame(lat: number, lon: number, frontAzimuth: number): SceneFrame {
  const az = radians(frontAzimuth);
  // The front facet faces local -y; the frame stays right-handed.
  return {
    lat,
    lon,
    axisX: { x: -Math.cos(az), y: Math.sin(az) },
    axisY: { x: -Math.sin(az), y: -Math.cos(az) },
    metresPerDegreeLon: METRES_PER_DEGREE_LAT * Math.cos(radians(lat)),
  };
}

function toWorld(frame: SceneFrame, p: Vec2): Vec2 {
  return { x: p.x * frame.axisX.x + p.y * frame.axisY.x, y: p.x * frame.axisX.y + p.y * frame.axisY.y };
}

function toLonLat(frame: SceneFrame, p: Vec2): LonLat {
  const world = toWorld(frame, p);
  return [
    round(frame.lon + world.x / frame.metresPerDegreeLon, COORDINATE_DECIMALS),
    round(frame.lat + world.y / METRES_PER_DEGREE_LAT, COORDINATE_DECIMALS),
  ];
}

/** Compass bearing of a horizontal world vector (x east, y north). */
function azimuthOf(world: Vec2): number {
  return round(normalizeDegrees((Math.atan2(world.x, world.y) * 180) / Math.PI), 1);
}

/** A point on a facet in its own coordinates (a along the eave, b up the slope, horizontal). */
function facetPoint(facet: FacetPlan, a: number, b: number): Vec2 {
  return {
    x: facet.origin.x + a * facet.along.x + b * facet.inward.x,
    y: facet.origin.y + a * facet.along.y + b * facet.inward.y,
  };
}

type FacetGeometry = Omit<FacetPlan, 'id' | 'azimuth' | 'orientation'>;

function roofFacets(roof: RoofShape, frame: SceneFrame, orientations: readonly PanelOrientation[]): FacetPlan[] {
  const halfW = roof.width / 2;
  const halfD = roof.depth / 2;
  const main = { pitch: roof.pitch, heightM: roof.eaveHeight };
  const hipInset = roof.style === 'hip' ? halfD : 0;
  const slope = { eaveLength: roof.width, run: halfD, ridgeStart: hipInset, ridgeEnd: roof.width - hipInset, ...main };
  const planes: FacetGeometry[] = [
    { origin: { x: -halfW, y: -halfD }, along: { x: 1, y: 0 }, inward: { x: 0, y: 1 }, ...slope },
    { origin: { x: halfW, y: halfD }, along: { x: -1, y: 0 }, inward: { x: 0, y: -1 }, ...slope },
  ];
  if (roof.style === 'hip') {
    const end = { eaveLength: roof.depth, run: halfD, ridgeStart: halfD, ridgeEnd: halfD, ...main };
    planes.push({ origin: { x: -halfW, y: halfD }, along: { x: 0, y: -1 }, inward: { x: 1, y: 0 }, ...end });
    planes.push({ origin: { x: halfW, y: -halfD }, along: { x: 0, y: 1 }, inward: { x: -1, y: 0 }, ...end });
  }
  const verandah = roof.verandah;
  if (verandah) {
    planes.push({
      origin: { x: -halfW + verandah.offset, y: -halfD - verandah.depth },
      along: { x: 1, y: 0 },
      inward: { x: 0, y: 1 },
      eaveLength: verandah.width,
      run: verandah.depth,
      ridgeStart: 0,
      ridgeEnd: verandah.width,
      pitch: verandah.pitch,
      heightM: VERANDAH_EAVE_M,
    });
  }
  return planes.map((plane, i) => ({
    ...plane,
    id: `facet_${i + 1}`,
    azimuth: azimuthOf(toWorld(frame, { x: -plane.inward.x, y: -plane.inward.y })),
    orientation: orientations[i] ?? 'portrait',
  }));
}

/** Counter-clockwise by construction: along x inward is +1 for every facet. */
function facetRing(facet: FacetPlan, frame: SceneFrame): LinearRing {
  const corners: Array<[number, number]> = [
    [0, 0],
    [facet.eaveLength, 0],
    [facet.ridgeEnd, facet.run],
  ];
  if (facet.ridgeStart !== facet.ridgeEnd) corners.push([facet.ridgeStart, facet.run]);
  const ring = corners.map(([a, b]) => toLonLat(frame, facetPoint(facet, a, b)));
  return [...ring, ring[0] as LonLat];
}

function facetArea(facet: FacetPlan): number {
  const footprint = (facet.run * (facet.eaveLength + facet.ridgeEnd - facet.ridgeStart)) / 2;
  return footprint / Math.cos(radians(facet.pitch));
}

function facetFeature(facet: FacetPlan, frame: SceneFrame): RoofFacetFeature {
  return {
    type: 'Feature',
    geometry: { type: 'Polygon', coordinates: [facetRing(facet, frame)] },
    properties: {
      facet_id: facet.id,
      pitch: facet.pitch,
      azimuth: facet.azimuth,
      area_m2: round(facetArea(facet), 1),
      height_m: round(facet.heightM, 2),
    },
  };
}

// ---------------------------------------------------------------------------
// Panel layout

/** A panel's size on the roof: metres along the eave, and up the slope. */
interface PanelSize {
  along: number;
  slope: number;
}

interface PanelRow {
  /** Bottom and top of the row, horizontal distance from the eave. */
  b0: number;
  b1: number;
  left: number;
  right: number;
  capacity: number;
}

function panelSize(module: { length_mm: number; width_mm: number }, orientation: PanelOrientation): PanelSize {
  const long = module.length_mm / 1000;
  const short = module.width_mm / 1000;
  return orientation === 'portrait' ? { along: short, slope: long } : { along: long, slope: short };
}

/** The facet's left and right edges at distance b up the slope (hips narrow the facet). */
const edgeLeft = (facet: FacetPlan, b: number): number => (facet.ridgeStart * b) / facet.run;
const edgeRight = (facet: FacetPlan, b: number): number =>
  facet.eaveLength + ((facet.ridgeEnd - facet.eaveLength) * b) / facet.run;

function panelRows(facet: FacetPlan, size: PanelSize): PanelRow[] {
  const cosPitch = Math.cos(radians(facet.pitch));
  const rowDepth = size.slope * cosPitch;
  const rowStep = (size.slope + PANEL_GAP_M) * cosPitch;
  const rows: PanelRow[] = [];
  for (let r = 0; ; r++) {
    const b0 = EDGE_SETBACK_M + r * rowStep;
    const b1 = b0 + rowDepth;
    if (b1 > facet.run - EDGE_SETBACK_M) break;
    const left = Math.max(edgeLeft(facet, b0), edgeLeft(facet, b1)) + EDGE_SETBACK_M;
    const right = Math.min(edgeRight(facet, b0), edgeRight(facet, b1)) - EDGE_SETBACK_M;
    const capacity = Math.floor((right - left + PANEL_GAP_M) / (size.along + PANEL_GAP_M));
    if (capacity > 0) rows.push({ b0, b1, left, right, capacity });
  }
  return rows;
}

function roofCapacity(facets: readonly FacetPlan[]): number {
  return sum(facets.map((facet) => sum(panelRows(facet, panelSize(LARGEST_MODULE, facet.orientation)).map((row) => row.capacity))));
}

interface PlacedGroup {
  group: ModuleGroup;
  panels: PanelFeature[];
}

function placeOnFacet(
  facet: FacetPlan,
  frame: SceneFrame,
  module: ModuleModel,
  count: number,
  ids: { systemUuid: string; groupId: string },
): PlacedGroup {
  const size = panelSize(module, facet.orientation);
  const panels: PanelFeature[] = [];
  let rows = 0;
  let columns = 0;
  for (const row of panelRows(facet, size)) {
    const inRow = Math.min(row.capacity, count - panels.length);
    if (inRow <= 0) break;
    const span = inRow * size.along + (inRow - 1) * PANEL_GAP_M;
    const start = (row.left + row.right - span) / 2;
    for (let column = 0; column < inRow; column++) {
      const a0 = start + column * (size.along + PANEL_GAP_M);
      const a1 = a0 + size.along;
      const ring = [
        toLonLat(frame, facetPoint(facet, a0, row.b0)),
        toLonLat(frame, facetPoint(facet, a1, row.b0)),
        toLonLat(frame, facetPoint(facet, a1, row.b1)),
        toLonLat(frame, facetPoint(facet, a0, row.b1)),
      ];
      panels.push({
        type: 'Feature',
        geometry: { type: 'Polygon', coordinates: [[...ring, ring[0] as LonLat]] },
        properties: {
          system_uuid: ids.systemUuid,
          facet_id: facet.id,
          module_group_id: ids.groupId,
          orientation: facet.orientation,
        },
      });
    }
    rows++;
    columns = Math.max(columns, inRow);
  }
  return {
    group: {
      id: ids.groupId,
      facet_id: facet.id,
      azimuth: facet.azimuth,
      pitch: facet.pitch,
      module_quantity: panels.length,
      rows,
      columns,
    },
    panels,
  };
}

/** Angle between a facet's azimuth and the sun's side of the sky (north in the south, and vice versa). */
function offSunAngle(azimuth: number, lat: number): number {
  const sunward = lat < 0 ? 0 : 180;
  const diff = Math.abs(normalizeDegrees(azimuth - sunward));
  return diff > 180 ? 360 - diff : diff;
}

/** Fills the sunniest facets first, spilling onto the others only when needed. */
function layoutSystem(
  facets: readonly FacetPlan[],
  frame: SceneFrame,
  module: ModuleModel,
  count: number,
  systemNumber: number,
  systemUuid: string,
): PlacedGroup[] {
  const bySun = [...facets].sort(
    (a, b) => offSunAngle(a.azimuth, frame.lat) - offSunAngle(b.azimuth, frame.lat) || facetArea(b) - facetArea(a),
  );
  const placed: PlacedGroup[] = [];
  let remaining = count;
  for (const facet of bySun) {
    if (remaining <= 0) break;
    const groupId = `mg_${systemNumber}_${placed.length + 1}`;
    const result = placeOnFacet(facet, frame, module, remaining, { systemUuid, groupId });
    if (result.panels.length === 0) continue;
    placed.push(result);
    remaining -= result.panels.length;
  }
  if (remaining > 0) throw new Error(`Roof too small: ${remaining} of ${count} panels could not be placed.`);
  return placed;
}

/** A house-sized roof, grown until it can hold the largest system asked for. */
function planRoof(rng: Rng, maxPanels: number, storeys: number, lat: number, lon: number) {
  const commercial = maxPanels > 150;
  const style: RoofStyle = rng.weighted<RoofStyle>([
    ['gable', 4],
    ['hip', 4],
    ['gable_with_verandah', commercial ? 0 : 2],
  ]);
  const depth = rng.float(8, 12);
  let roof: RoofShape = {
    style,
    depth,
    width: depth * rng.float(1.3, 2),
    pitch: commercial ? rng.int(10, 15) : rng.int(15, 32),
    eaveHeight: commercial ? rng.float(5.5, 7.5) : storeys * 2.8 + 0.2,
    verandah:
      style === 'gable_with_verandah'
        ? { offset: 0, width: 0, depth: rng.float(2.5, 3.5), pitch: rng.int(10, 14) }
        : null,
  };
  if (roof.verandah) {
    const widthShare = rng.float(0.4, 0.7);
    roof.verandah.width = roof.width * widthShare;
    roof.verandah.offset = roof.width * (1 - widthShare) * rng.next();
  }
  // Face the front roughly towards the sun, as builders and the auto-designer prefer.
  const sunward = lat < 0 ? 0 : 180;
  const frame = sceneFrame(lat, lon, normalizeDegrees(sunward + rng.float(-70, 70)));
  const orientations = Array.from({ length: 5 }, (): PanelOrientation => (rng.chance(0.75) ? 'portrait' : 'landscape'));
  let facets = roofFacets(roof, frame, orientations);
  for (let capacity = roofCapacity(facets); capacity < maxPanels; capacity = roofCapacity(facets)) {
    roof = scaleRoof(roof, Math.max(1.1, Math.sqrt(maxPanels / Math.max(capacity, 1)) * 1.05));
    facets = roofFacets(roof, frame, orientations);
  }
  return { roof, frame, facets };
}

function scaleRoof(roof: RoofShape, factor: number): RoofShape {
  const verandah = roof.verandah;
  return {
    ...roof,
    width: roof.width * factor,
    depth: roof.depth * factor,
    verandah: verandah
      ? { ...verandah, offset: verandah.offset * factor, width: verandah.width * factor, depth: verandah.depth * factor }
      : null,
  };
}

// ===========================================================================
// Energy, bills and environmentals

/** Net yearly kWh per kWp on an ideal roof: more sun nearer the equator. */
function specificYield(lat: number): number {
  return clamp(1750 - 12 * (Math.abs(lat) - 20), 1100, 1800);
}

/** Losses for facing away from the sun and for tilt far from the latitude. */
function orientationFactor(azimuth: number, pitch: number, lat: number): number {
  const offSun = radians(offSunAngle(azimuth, lat));
  const headingLoss = (1 - Math.cos(offSun)) * Math.sin(radians(pitch)) * 0.35;
  const tiltLoss = 0.0001 * (pitch - Math.abs(lat)) ** 2;
  return clamp(1 - headingLoss - tiltLoss, 0.5, 1);
}

function systemOutput(groups: readonly ModuleGroup[], watts: number, lat: number): EnergySeries {
  const annual = sum(
    groups.map((g) => ((g.module_quantity * watts) / 1000) * specificYield(lat) * orientationFactor(g.azimuth, g.pitch, lat)),
  );
  const monthly = distribute(Math.round(annual), solarSeasonWeights(lat));
  return { annual_kwh: sum(monthly), monthly_kwh: monthly };
}

function consumptionSeries(annualKwh: number, lat: number): EnergySeries {
  const monthly = distribute(Math.round(annualKwh), consumptionSeasonWeights(lat));
  return { annual_kwh: sum(monthly), monthly_kwh: monthly };
}

/** Share of production used on site; a battery keeps more of it at home. */
const selfConsumptionShare = (hasBattery: boolean): number => (hasBattery ? 0.7 : 0.35);

function billComparison(
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

function environmentals(annualKwh: number, profile: CountryProfile): Environmentals {
  const tonnes = (annualKwh * profile.gridKgCo2PerKwh) / 1000;
  return {
    co2_tonnes_per_year: round(tonnes, 2),
    trees_equivalent: Math.round(tonnes * TREES_PER_TONNE_CO2),
    cars_off_road: round(tonnes / TONNES_CO2_PER_CAR_YEAR, 1),
  };
}

// ===========================================================================
// Components and pricing

interface PricedPart<Spec> {
  spec: Spec;
  unitCost: number;
}

function chooseInverters(rng: Rng, kw: number, panels: number, profile: CountryProfile): PricedPart<InverterSpec>[] {
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

function chooseBatteries(rng: Rng, panels: number, profile: CountryProfile): PricedPart<BatterySpec>[] {
  if (panels > 150 || !rng.chance(0.4)) return [];
  const { unit_cost, ...spec } = rng.pick(BATTERIES);
  const quantity = rng.chance(0.15) ? 2 : 1;
  return [{ spec: { ...spec, quantity }, unitCost: unit_cost * profile.catalogCostScale }];
}

function chooseOthers(
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

function chooseAdders(
  rng: Rng,
  site: { storeys: number; lowestPitch: number },
  panels: number,
  profile: CountryProfile,
): PriceAdder[] {
  const eligible = ADDERS.filter((rule) => rule.applies(site));
  const chosen = eligible.filter(() => rng.chance(0.25));
  return chosen.map((rule) => ({
    title: rule.title,
    price: money(rule.price * profile.catalogCostScale * (rule.per === 'module' ? panels : 1)),
  }));
}

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
function priceSystem(rng: Rng, parts: SystemParts, adders: readonly PriceAdder[], profile: CountryProfile): SystemPricing {
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

function incentivesFor(rng: Rng, country: Country, kw: number, batteryKwh: number, panels: number, lat: number): Incentives {
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

// ===========================================================================
// Payment options

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

function yearlySavings(yearOne: number): number[] {
  const growth = (1 + TARIFF_ESCALATION) * (1 - PANEL_DEGRADATION);
  return Array.from({ length: ANALYSIS_YEARS }, (_, i) => money(yearOne * growth ** i));
}

/** Fixed monthly repayment of an amortised loan. */
function monthlyRepayment(principal: number, terms: LoanTerms): number {
  const monthlyRate = terms.annualRate / 12;
  const months = terms.years * 12;
  return principal * (monthlyRate / (1 - (1 + monthlyRate) ** -months));
}

interface OptionContext {
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

function paymentOptions(rng: Rng, firstId: number, ctx: OptionContext): PaymentOption[] {
  const drafts = [cashDraft(ctx), loanDraft(ctx)];
  if (ctx.profile.thirdPartyOwnership) drafts.push(rng.chance(0.5) ? leaseDraft(ctx) : ppaDraft(ctx));
  return drafts.map((draft, i) => finishOption(firstId + i, draft, ctx.savings));
}

// ===========================================================================
// Systems and the whole design

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
  const adders = chooseAdders(rng, { storeys: ctx.storeys, lowestPitch }, plan.panels, ctx.profile);
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
    { level: 'info', message: `Auto design placed ${sum(groups.map((g) => g.module_quantity))} modules on ${groups.length} facet(s).` },
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
      `Auto design placed ${panels.length} panels across ${systems} system(s).`,
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

const DAY_MS = 86_400_000;
const CREATED_FROM = Date.UTC(2025, 0, 1);
/** Leaves room for sale and installation dates to stay within 2026. */
const CREATED_DAYS = Math.round((Date.UTC(2026, 7, 31) - CREATED_FROM) / DAY_MS);

const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

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
