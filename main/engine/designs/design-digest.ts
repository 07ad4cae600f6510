// What the engine derives from a decoded design for its routes (systems list and
// details, the system image's system, proposal data): the systems and each module
// group's panel layout. The site's panels and facets, most of a design's size,
// stay in the worker that decoded them, so handing a digest to the thread that
// serves requests costs little.
import type { DesignSystem, PanelOrientation, ProjectDesign } from '../../../shared/design-types.ts';

export interface DesignDigest {
  systems: DesignSystem[];
  /** Each module group's layout, read from its first panel in the site's layout. */
  layouts: Map<string, PanelOrientation>;
  /** About how much memory the digest holds (its systems' JSON length), for the cache's budget. */
  sizeBytes: number;
}

/** Why a project has no systems to show: its design is too large, or it cannot be read. */
export interface DesignFailure {
  reason: 'too-large' | 'unreadable';
  message: string;
}

export type DesignOutcome = { digest: DesignDigest } | { failure: DesignFailure };

/** The digest of a decoded design, or null when it has no systems list (not a design). */
export function digestOf(design: Partial<ProjectDesign> | null): DesignDigest | null {
  if (!design || !Array.isArray(design.systems)) return null;
  const layouts = new Map<string, PanelOrientation>();
  for (const panel of design.site?.auto_design_geojson?.features ?? []) {
    const group = panel?.properties?.module_group_id;
    if (group !== undefined && !layouts.has(group)) layouts.set(group, panel.properties.orientation === 'landscape' ? 'landscape' : 'portrait');
  }
  return { systems: design.systems, layouts, sizeBytes: JSON.stringify(design.systems).length };
}
