// The roof in local metres: GeoJSON lon/lat around the scene origin become east
// and north offsets, and each facet is a plane that rises from its eave (its most
// downslope edge) at its pitch, facing its azimuth. Pure functions, so the 3D
// view only turns their numbers into meshes.
import type { DesignSite, LonLat, RoofFacetFeature, SceneOrigin } from '../../../shared/design-types.ts';

export interface LocalPoint {
  east: number;
  north: number;
}

const METRES_PER_DEGREE = 111_320;
const toRadians = (degrees: number) => (degrees * Math.PI) / 180;

/** Equirectangular around the origin: exact enough over one roof (tens of metres). */
export function toLocalMetres(origin: SceneOrigin, [lon, lat]: LonLat): LocalPoint {
  return {
    east: (lon - origin.lon) * METRES_PER_DEGREE * Math.cos(toRadians(origin.lat)),
    north: (lat - origin.lat) * METRES_PER_DEGREE,
  };
}

/** The exterior ring without its closing repeat of the first position. */
export function openRing(ring: readonly LonLat[]): LonLat[] {
  const [first, last] = [ring[0], ring[ring.length - 1]];
  const isClosed = ring.length > 1 && first && last && first[0] === last[0] && first[1] === last[1];
  return isClosed ? ring.slice(0, -1) : ring.slice();
}

export interface FacetPlane {
  facetId: string;
  outline: LocalPoint[];
  /** Roof height above ground at a point of the facet's footprint. */
  heightAt(point: LocalPoint): number;
}

export function facetPlane(facet: RoofFacetFeature, origin: SceneOrigin): FacetPlane {
  const { facet_id: facetId, pitch, azimuth, height_m: eaveHeight } = facet.properties;
  const outline = openRing(facet.geometry.coordinates[0] ?? []).map((position) => toLocalMetres(origin, position));
  // Unit vector of the direction the facet faces: downslope. Azimuth is clockwise from north.
  const facing = { east: Math.sin(toRadians(azimuth)), north: Math.cos(toRadians(azimuth)) };
  const downslope = (point: LocalPoint) => point.east * facing.east + point.north * facing.north;
  const eave = Math.max(...outline.map(downslope));
  const rise = Math.tan(toRadians(pitch));
  return { facetId, outline, heightAt: (point) => eaveHeight + (eave - downslope(point)) * rise };
}

/** The box around every point, to aim the camera. */
export function boundsOf(points: readonly LocalPoint[], heights: readonly number[]) {
  const easts = points.map((point) => point.east);
  const norths = points.map((point) => point.north);
  const min = { east: Math.min(...easts), north: Math.min(...norths) };
  const max = { east: Math.max(...easts), north: Math.max(...norths) };
  const top = Math.max(0, ...heights);
  const span = Math.max(max.east - min.east, max.north - min.north, top, 1);
  return { center: { east: (min.east + max.east) / 2, north: (min.north + max.north) / 2 }, top, span };
}

export interface PanelView {
  /** Unit vector (east, north) the panel-bearing roof faces: the camera looks from that side. */
  facing: LocalPoint;
  /** Compass azimuth of `facing`, degrees clockwise from north. */
  azimuth: number;
  /** The middle of the panels, and their mean height: what the camera looks at. */
  center: LocalPoint;
  height: number;
}

/**
 * Where to look from to see a system's panels (issue 20: the view used to open on
 * a fixed side, often the roof's bare back). Each panel counts its facet's facing
 * once, so the camera stands on the side most panels face; when the panels' faces
 * cancel out (two opposite faces equally full), the face with the most panels wins.
 * Null when the system has no panel on a known facet.
 */
export function panelView(site: DesignSite, systemUuid: string | null): PanelView | null {
  const facets = new Map(site.autoFacetsGeoJson.features.map((facet) => [facet.properties.facet_id, facet]));
  const planes = new Map<string, FacetPlane>();
  const perFacet = new Map<string, number>();
  const sum = { east: 0, north: 0, centerEast: 0, centerNorth: 0, height: 0 };
  let panels = 0;
  for (const panel of site.auto_design_geojson.features) {
    if (systemUuid && panel.properties.system_uuid !== systemUuid) continue;
    const facet = facets.get(panel.properties.facet_id);
    if (!facet) continue;
    let plane = planes.get(facet.properties.facet_id);
    if (!plane) planes.set(facet.properties.facet_id, (plane = facetPlane(facet, site.scene_origin)));
    const outline = openRing(panel.geometry.coordinates[0] ?? []).map((position) => toLocalMetres(site.scene_origin, position));
    if (outline.length === 0) continue;
    const middle = { east: outline.reduce((total, point) => total + point.east, 0) / outline.length, north: outline.reduce((total, point) => total + point.north, 0) / outline.length };
    const azimuth = toRadians(facet.properties.azimuth);
    sum.east += Math.sin(azimuth);
    sum.north += Math.cos(azimuth);
    sum.centerEast += middle.east;
    sum.centerNorth += middle.north;
    sum.height += plane.heightAt(middle);
    perFacet.set(facet.properties.facet_id, (perFacet.get(facet.properties.facet_id) ?? 0) + 1);
    panels++;
  }
  if (panels === 0) return null;
  let facing = { east: sum.east / panels, north: sum.north / panels };
  if (Math.hypot(facing.east, facing.north) < 0.25) {
    const [fullest] = [...perFacet.entries()].sort((a, b) => b[1] - a[1])[0]!;
    const azimuth = toRadians(facets.get(fullest)!.properties.azimuth);
    facing = { east: Math.sin(azimuth), north: Math.cos(azimuth) };
  }
  const length = Math.hypot(facing.east, facing.north) || 1;
  facing = { east: facing.east / length, north: facing.north / length };
  return {
    facing,
    azimuth: compassAzimuth(facing),
    center: { east: sum.centerEast / panels, north: sum.centerNorth / panels },
    height: sum.height / panels,
  };
}

/** Degrees clockwise from north (0-360) of a horizontal direction. */
export function compassAzimuth(direction: LocalPoint): number {
  return ((Math.atan2(direction.east, direction.north) * 180) / Math.PI + 360) % 360;
}
