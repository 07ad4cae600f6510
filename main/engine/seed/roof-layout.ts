// Roof geometry and panel layout for a demo design: the roof's facets as GeoJSON
// polygons, and panels placed on them row by row, sunniest facets first.
//
// A roof is planned in a local "building frame" in metres (x along the ridge,
// y across it, origin at the building's centre), then rotated so the front facet
// faces `frontAzimuth` and converted to lon/lat around the scene origin. Every
// facet, whether rectangle, trapezoid or triangle, is described the same way: an
// eave edge, a horizontal direction up the slope, and where the ridge starts and
// ends along the eave. That one description drives outlines, panel rows and areas.
import type { LinearRing, LonLat, ModuleGroup, PanelFeature, PanelOrientation, RoofFacetFeature } from '../../../shared/design-types.ts';
import { LARGEST_MODULE, type ModuleModel } from './equipment-catalogue.ts';
import type { Rng } from './seeded-random.ts';
import { normalizeDegrees, radians, round, sum } from './seed-math.ts';

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

export interface RoofShape {
  style: RoofStyle;
  width: number;
  depth: number;
  pitch: number;
  eaveHeight: number;
  verandah: Verandah | null;
}

export interface FacetPlan {
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
export interface SceneFrame {
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

export function facetFeature(facet: FacetPlan, frame: SceneFrame): RoofFacetFeature {
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
export function offSunAngle(azimuth: number, lat: number): number {
  const sunward = lat < 0 ? 0 : 180;
  const diff = Math.abs(normalizeDegrees(azimuth - sunward));
  return diff > 180 ? 360 - diff : diff;
}

/** Fills the sunniest facets first, spilling onto the others only when needed. */
export function layoutSystem(
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
export function planRoof(rng: Rng, maxPanels: number, storeys: number, lat: number, lon: number) {
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
