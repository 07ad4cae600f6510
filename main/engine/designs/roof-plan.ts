// A system's roof plan in metres: each facet's outline (east, north from the scene
// origin) with the way it faces, and this system's panels on it. Drawn by the system
// image (systems/system-image.ts) and by the generated documents (documents/), from
// the whole design, so it is worked out in the design worker (design-worker.ts).
import type { LinearRing, ProjectDesign } from '../../../shared/design-types.ts';

/** Metres east and north of the scene origin. */
export type PlanPoint = [x: number, y: number];

export interface PlanFacet {
  facetId: string;
  azimuth: number;
  pitch: number;
  ring: PlanPoint[];
}

export interface PlanPanel {
  facetId: string;
  ring: PlanPoint[];
}

export interface RoofPlan {
  facets: PlanFacet[];
  panels: PlanPanel[];
}

const METRES_PER_DEGREE_LAT = 111_320;

/** Equirectangular projection around the origin: metres east and north; plenty for one roof. */
function projector(origin: { lat: number; lon: number }) {
  const metresPerDegreeLon = METRES_PER_DEGREE_LAT * Math.cos((origin.lat * Math.PI) / 180);
  return ([lon, lat]: readonly [number, number]): PlanPoint => [(lon - origin.lon) * metresPerDegreeLon, (lat - origin.lat) * METRES_PER_DEGREE_LAT];
}

export function roofPlan(design: ProjectDesign, systemUuid: string): RoofPlan {
  const project = projector(design.site.scene_origin);
  const ringOf = (rings: LinearRing[]) => (rings[0] ?? []).map(project);
  return {
    facets: design.site.autoFacetsGeoJson.features.map((feature) => ({
      facetId: feature.properties.facet_id,
      azimuth: feature.properties.azimuth,
      pitch: feature.properties.pitch,
      ring: ringOf(feature.geometry.coordinates),
    })),
    panels: design.site.auto_design_geojson.features
      .filter((feature) => feature.properties.system_uuid === systemUuid)
      .map((feature) => ({ facetId: feature.properties.facet_id, ring: ringOf(feature.geometry.coordinates) })),
  };
}

/** Fits plan points into a box of width x height with a margin, north up; y grows downwards. */
export function planFitter(points: readonly PlanPoint[], width: number, height: number, margin = Math.max(4, Math.min(width, height) * 0.08)) {
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const [minX, maxX, minY, maxY] = xs.length > 0 ? [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)] : [-1, 1, -1, 1];
  const scale = Math.min((width - 2 * margin) / Math.max(maxX - minX, 1), (height - 2 * margin) / Math.max(maxY - minY, 1));
  const centreX = (minX + maxX) / 2;
  const centreY = (minY + maxY) / 2;
  return ([x, y]: PlanPoint): PlanPoint => [width / 2 + (x - centreX) * scale, height / 2 - (y - centreY) * scale];
}

/**
 * Light from the north-west, as on most maps: a facet facing it is bright, one
 * facing away is dark, so the roof's shape reads at a glance. [hue, saturation %, lightness %].
 */
export function facetShade(azimuth: number): [number, number, number] {
  const towardsLight = Math.cos(((azimuth - 315) * Math.PI) / 180);
  return [22, 28, Math.round(58 + 22 * towardsLight)];
}
