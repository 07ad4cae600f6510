// Distances between places on Earth: the one haversine SolarDesk uses (a photo's
// GPS position against a project's site, issue 17), and the ranges that decide what
// a photo's position means. Pure: the engine, the core and the renderer import it.

/** Mean Earth radius in metres (IUGG), the haversine's sphere. */
const EARTH_RADIUS_M = 6_371_008.8;

export interface LatLon {
  lat: number;
  lon: number;
}

/** A photo taken within this distance of exactly one project's site belongs to that project. */
export const PHOTO_SITE_MATCH_M = 150;

/** A photo attached to a project but taken farther than this from its site is flagged. */
export const PHOTO_FAR_FROM_SITE_M = 1000;

const radians = (degrees: number) => (degrees * Math.PI) / 180;

/** Great-circle distance in metres between two positions (degrees), by the haversine formula. */
export function haversineMeters(a: LatLon, b: LatLon): number {
  const dLat = radians(b.lat - a.lat);
  const dLon = radians(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(radians(a.lat)) * Math.cos(radians(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A position that can be measured from: both numbers finite and on the globe, and not the 0,0 an unset GPS writes. */
export function isUsablePosition(position: Partial<LatLon> | null | undefined): position is LatLon {
  if (!position || typeof position.lat !== 'number' || typeof position.lon !== 'number') return false;
  if (!Number.isFinite(position.lat) || !Number.isFinite(position.lon)) return false;
  if (Math.abs(position.lat) > 90 || Math.abs(position.lon) > 180) return false;
  return !(position.lat === 0 && position.lon === 0);
}

/** "40 m", "850 m", "1.2 km", "12 km": how a distance reads in a sentence. */
export function formatDistance(meters: number): string {
  if (meters < 1000) return `${Math.max(1, Math.round(meters / 10) * 10)} m`;
  if (meters < 10_000) return `${(meters / 1000).toFixed(1)} km`;
  return `${Math.round(meters / 1000).toLocaleString('en')} km`;
}
