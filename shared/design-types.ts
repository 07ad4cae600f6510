// The decoded project `design` (service.md 2.1, "design"): what base64(gzip(JSON))
// unpacks to. Types only, so the engine, the seed generator, the 3D view and the
// charts agree on one shape without pulling any runtime code into the renderer.
// Field names follow the hosted service (hence the odd camelCase `autoFacetsGeoJson`
// next to snake_case everywhere else); money is in the system's currency, energy in
// kWh, lengths in metres, angles in degrees and rates as fractions (0.05 = 5 %).

export interface ProjectDesign {
  /** Bumped when the decoded shape changes incompatibly, so readers can refuse old data. */
  version: 1;
  site: DesignSite;
  /** Alternative designs for the same roof; at most one is sold. */
  systems: DesignSystem[];
}

// ---------------------------------------------------------------------------
// GeoJSON (RFC 7946), only the parts the design uses. Declared here rather than
// taken from @types/geojson so the shared layer stays dependency-free.

/** [longitude, latitude] in WGS 84 degrees: GeoJSON order, not lat/lon. */
export type LonLat = [lon: number, lat: number];
/** Closed ring: the last position repeats the first. Exterior rings run counter-clockwise. */
export type LinearRing = LonLat[];

export interface PolygonGeometry {
  type: 'Polygon';
  /** The exterior ring, then any holes (the generator never makes holes). */
  coordinates: LinearRing[];
}

export interface PolygonFeature<Properties> {
  type: 'Feature';
  geometry: PolygonGeometry;
  properties: Properties;
}

export interface FeatureCollection<Feature> {
  type: 'FeatureCollection';
  features: Feature[];
}

// ---------------------------------------------------------------------------
// Site: the 3D scene every system is designed in.

export interface DesignSite {
  /** Where the scene's local metre grid is anchored; the 3D view converts lon/lat around it. */
  scene_origin: SceneOrigin;
  terrain: Terrain;
  /** Detected roof planes; panels reference them by `facet_id`. */
  autoFacetsGeoJson: RoofFacetCollection;
  /** Every placed panel of every system; filter by `system_uuid` to draw one system. */
  auto_design_geojson: PanelLayoutCollection;
  /** Human-readable notes from facet detection and auto design. */
  messages: string[];
}

export interface SceneOrigin {
  lat: number;
  lon: number;
  /** Ground elevation above sea level at the origin. */
  elevation_m: number;
}

export interface Terrain {
  slope_degrees: number;
  ground_elevation_m: number;
  /** Free text such as "grass" or "concrete"; only shown, never interpreted. */
  surface: string;
}

export interface RoofFacetProperties {
  facet_id: string;
  /** Tilt from horizontal. */
  pitch: number;
  /** Direction the facet faces (downslope), degrees clockwise from true north, 0-360. */
  azimuth: number;
  /** Sloped area, not the footprint: what panels can actually cover. */
  area_m2: number;
  /** Eave height above ground, so the 3D view can extrude the roof. */
  height_m: number;
}

export type RoofFacetFeature = PolygonFeature<RoofFacetProperties>;
export type RoofFacetCollection = FeatureCollection<RoofFacetFeature>;

export type PanelOrientation = 'portrait' | 'landscape';

export interface PanelProperties {
  system_uuid: string;
  facet_id: string;
  module_group_id: string;
  orientation: PanelOrientation;
}

/** One panel's footprint (its projection on the ground plane). */
export type PanelFeature = PolygonFeature<PanelProperties>;
export type PanelLayoutCollection = FeatureCollection<PanelFeature>;

// ---------------------------------------------------------------------------
// Systems.

/** Twelve values, January first. Kept as a plain array so JSON round-trips type-check. */
export type MonthlySeries = number[];

export interface DesignSystem {
  uuid: string;
  id: number;
  name: string;
  is_sold: boolean;
  /** DC nameplate: module count x module watts / 1000. */
  kw_stc: number;
  total_module_quantity: number;
  output: EnergySeries;
  /**
   * Output of each hour of a year (8760 values, from 1 January 00:00 local time), when the
   * design tool worked it out; designs without it cannot give system_performance_8760.
   */
  hourly_output_kwh?: number[];
  consumption: EnergySeries;
  bills: BillComparison;
  environmentals: Environmentals;
  modules: ModuleSpec[];
  inverters: InverterSpec[];
  batteries: BatterySpec[];
  others: OtherComponentSpec[];
  adders: PriceAdder[];
  module_groups: ModuleGroup[];
  pricing: SystemPricing;
  incentives: Incentives;
  payment_options: PaymentOption[];
  diagnostics: DesignDiagnostic[];
  /** Org-defined extra data (returned as `data` by the systems endpoint on some plans). */
  custom_data: Record<string, unknown>;
}

export interface EnergySeries {
  /** Equals the sum of `monthly_kwh`, so totals and charts never disagree. */
  annual_kwh: number;
  monthly_kwh: MonthlySeries;
}

export interface BillComparison {
  /** Year-one utility bill without the system. */
  annual_bill_before: number;
  /** Year-one utility bill with the system (never below zero: credits are not modelled). */
  annual_bill_after: number;
  monthly_before: MonthlySeries;
  monthly_after: MonthlySeries;
  /** ISO 4217 code, e.g. "AUD". */
  currency: string;
}

export interface Environmentals {
  co2_tonnes_per_year: number;
  trees_equivalent: number;
  cars_off_road: number;
}

/** What every component line has, whatever its kind. */
export interface ComponentSpec {
  code: string;
  manufacturer_name: string;
  quantity: number;
}

export interface ModuleSpec extends ComponentSpec {
  watts: number;
  /** Fraction, e.g. 0.215. */
  efficiency: number;
  /** Long side. */
  length_mm: number;
  /** Short side. */
  width_mm: number;
}

export interface InverterSpec extends ComponentSpec {
  /** AC rating per unit. */
  max_power_kw: number;
  /** Fraction. */
  efficiency: number;
}

export interface BatterySpec extends ComponentSpec {
  /** Usable capacity per unit. */
  capacity_kwh: number;
  /** Continuous power per unit. */
  power_kw: number;
}

export interface OtherComponentSpec extends ComponentSpec {
  /** What the part is, since its code rarely says. */
  title: string;
}

export interface PriceAdder {
  title: string;
  /** What the customer pays for it: negative for a discount, 0 for a cost the installer bears alone. */
  price: number;
  /** What it costs the installer; designs made before issue 16 have none (read as 0). */
  cost?: number;
  /** The units it is priced for (the modules, for a per-module adder); absent: 1. */
  quantity?: number;
  /** Whether the customer's proposal shows it; absent: true. */
  show_customer?: boolean;
}

/** A block of panels on one facet, laid out in rows. */
export interface ModuleGroup {
  id: string;
  facet_id: string;
  azimuth: number;
  pitch: number;
  module_quantity: number;
  rows: number;
  /** The widest row; rows on hip ends and triangles hold fewer. */
  columns: number;
}

// ---------------------------------------------------------------------------
// Pricing, incentives and payment options.

/**
 * The price build-up. It is consistent by construction:
 * system_price_excluding_tax = costs.total + sum(adders.price) + margin + dealer_fee
 *   - discount + sum(price_adjustments.amount), and
 * system_price_including_tax = system_price_excluding_tax + tax.
 */
export interface SystemPricing {
  system_price_including_tax: number;
  system_price_excluding_tax: number;
  costs: PricingCosts;
  /** The installer's cost lines; their totals add up to costs.hardware + costs.labor. */
  line_items: PricingLineItem[];
  adders: PriceAdder[];
  margin: number;
  discount: number;
  /** Fee charged by a finance partner, passed on in the price. */
  dealer_fee: number;
  tax: number;
  /** Fraction applied to the price excluding tax (GST, sales tax). */
  tax_rate: number;
  price_adjustments: PriceAdjustment[];
}

export interface PricingCosts {
  hardware: number;
  labor: number;
  /** Permits, design, connection and other soft costs. */
  overhead: number;
  total: number;
}

export interface PricingLineItem {
  title: string;
  quantity: number;
  unit_price: number;
  total: number;
}

export interface PriceAdjustment {
  title: string;
  /** Negative lowers the price. */
  amount: number;
}

export interface Incentives {
  /** Paid to (or claimed by) the customer; reduces what they pay upfront. */
  incentive_to_customer: IncentiveLine[];
  /** Paid to the installer; does not change the customer's price. */
  incentive_to_installer: IncentiveLine[];
}

export interface IncentiveLine {
  title: string;
  amount: number;
}

export type PaymentType = 'cash' | 'loan' | 'lease' | 'ppa';

export interface PaymentOption {
  id: number;
  title: string;
  payment_type: PaymentType;
  /**
   * 26 entries from the customer's point of view: index 0 is the upfront payment
   * (negative), then years 1-25 of bill savings less any repayments.
   */
  cash_flows: number[];
  /** Years 1-25 (25 entries), with tariff escalation and panel degradation applied. */
  utility_bill_savings_yearly: number[];
  /** First year whose cumulative cash flow is no longer negative; null if never within 25 years. */
  payback_year: number | null;
  /** Of `cash_flows` at the discount rate the option was priced with (5 %). */
  net_present_value: number;
  /** Fraction; null when the cash flows have no rate of return (they never change sign). */
  internal_rate_of_return: number | null;
  quotation_lines: QuotationLine[];
  featured_figures: FeaturedFigure[];
}

export interface QuotationLine {
  title: string;
  amount: number;
}

/** A headline number for proposals; `unit` tells the view how to format it ('percent' values are fractions). */
export interface FeaturedFigure {
  label: string;
  value: number;
  unit: 'currency' | 'years' | 'percent' | 'kwh';
}

export interface DesignDiagnostic {
  level: 'info' | 'warning';
  message: string;
}
