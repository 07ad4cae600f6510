// The roof in local metres: GeoJSON lon/lat around the scene origin become east
// and north offsets, and each facet is a plane that rises from its eave (its most
// downslope edge) at its pitch, facing its azimuth. Pure functions, so the 3D
// view only turns their numbers into meshes.
import type { LonLat, RoofFacetFeature, SceneOrigin } from '../../../shared/design-types.ts';

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
