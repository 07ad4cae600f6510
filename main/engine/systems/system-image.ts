// A plan view of one system: the roof facets of the design, shaded by the way
// they face, this system's panels on them, and a north arrow. Drawn as SVG from
// the design's GeoJSON (lon/lat projected to metres around the scene origin) and
// rendered to PNG by sharp at exactly the requested size.
import { loadSharp } from '../lazy-modules.ts';
import type { ProjectDesign } from '../../../shared/design-types.ts';
import { facetShade, planFitter, roofPlan, type PlanPoint } from '../designs/roof-plan.ts';

export const MIN_IMAGE_SIDE = 16;
export const MAX_IMAGE_SIDE = 4096;

const COLOURS = { ground: '#e4ebdf', facetEdge: '#5b5149', panel: '#1c3f6e', panelEdge: '#b9d4ea', arrow: '#222222' };

type Point = PlanPoint;

function facetFill(azimuth: number): string {
  const [hue, saturation, lightness] = facetShade(azimuth);
  return `hsl(${hue}, ${saturation}%, ${lightness}%)`;
}

const pathOf = (points: readonly Point[]) => `M${points.map(([x, y]) => `${x.toFixed(2)},${y.toFixed(2)}`).join('L')}Z`;

/** An arrow pointing up with an "N" under it, drawn as strokes so no font is needed. */
function northArrow(width: number, height: number, stroke: number): string {
  const size = Math.max(8, Math.min(width, height) * 0.09);
  const x = width - size * 0.9;
  const y = size * 0.5;
  const head = pathOf([[x, y], [x + size * 0.32, y + size * 0.8], [x, y + size * 0.6], [x - size * 0.32, y + size * 0.8]]);
  const letterTop = y + size * 0.95;
  const letterBottom = letterTop + size * 0.5;
  const half = size * 0.17;
  const letter = `M${x - half},${letterBottom}L${x - half},${letterTop}L${x + half},${letterBottom}L${x + half},${letterTop}`;
  return `<path d="${head}" fill="${COLOURS.arrow}"/><path d="${letter}" fill="none" stroke="${COLOURS.arrow}" stroke-width="${stroke * 1.2}" stroke-linejoin="round"/>`;
}

export function systemImageSvg(design: ProjectDesign, systemUuid: string, width: number, height: number): string {
  const plan = roofPlan(design, systemUuid);
  const facets = plan.facets;
  const panels = plan.panels.map((panel) => panel.ring);
  const place = planFitter([...facets.flatMap((facet) => facet.ring), ...panels.flat()], width, height);
  const stroke = Math.max(0.5, Math.min(width, height) / 400);
  const facetPaths = facets.map(
    (facet) => `<path d="${pathOf(facet.ring.map(place))}" fill="${facetFill(facet.azimuth)}" stroke="${COLOURS.facetEdge}" stroke-width="${stroke * 1.5}" stroke-linejoin="round"/>`,
  );
  const panelPaths = panels.map(
    (ring) => `<path d="${pathOf(ring.map(place))}" fill="${COLOURS.panel}" stroke="${COLOURS.panelEdge}" stroke-width="${stroke}"/>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="${width}" height="${height}" fill="${COLOURS.ground}"/>`,
    ...facetPaths,
    ...panelPaths,
    northArrow(width, height, stroke),
    '</svg>',
  ].join('');
}

/** The PNG of a plan drawn by systemImageSvg (in the design worker: designs/design-decoder.ts). */
export async function renderSystemImage(svg: string, width: number, height: number): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(Buffer.from(svg), { density: 72 }).resize(width, height, { fit: 'fill' }).png({ compressionLevel: 9 }).toBuffer();
}
