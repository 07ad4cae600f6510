// GET .../projects/<id>/systems/details/ (service.md 4.4, compatibility.md "Systems",
// hosted-docs-facts.md section 5): one entry per system of the project's design, in
// the hosted shapes; include_parts / exclude_parts cut the system's `data` object.
import { z } from 'zod';
import { absoluteUrl, type EngineContext } from '../context.ts';
import type { ProjectRow } from '../store/tables.ts';
import { fieldError, nonFieldError } from '../http/errors.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { decodeDesign } from '../../../shared/design-codec.ts';
import type { DesignSystem, PanelOrientation, ProjectDesign } from '../../../shared/design-types.ts';
import type { DesignDigest } from '../designs/design-digest.ts';
import { booleanQueryParam } from '../../../shared/schemas/coercing-fields.ts';
import type { SystemAdderJson, SystemIncentiveJson, SystemMcsJson, SystemModuleGroupJson } from '../../../shared/schemas/system.ts';

/** The part of `data` SolarDesk derives from the design (hosted-docs-facts.md 5); the rest is the system's custom data. */
export const MCS_PART = 'mcs';
const PART_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export const systemDetailsQuery = z.object({
  limit_to_sold: booleanQueryParam().describe('only the sold system'),
  include_parts: z.string().optional().describe("comma list of the parts of each system's `data` to keep (e.g. mcs); the other fields always stay"),
  exclude_parts: z.string().optional().describe("comma list of the parts of each system's `data` to leave out (not with include_parts)"),
});
export type SystemDetailsQuery = z.output<typeof systemDetailsQuery>;

/**
 * The project's decoded design, or null when it has none (or one that cannot be read
 * or is too large), decoded on the caller's thread: for the seed only. Routes read
 * the design's digest from designs/design-cache.ts, decoded off the request path.
 */
export function projectDesign(project: Pick<ProjectRow, 'design'>): ProjectDesign | null {
  if (!project.design) return null;
  try {
    const design = decodeDesign<ProjectDesign>(project.design);
    return Array.isArray(design?.systems) ? design : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------
// System ids. The hosted service numbers systems in its own table; SolarDesk reads
// them from designs, so a system's id is made from its project's id and the
// system's own id in the design: unique in the org, the same on every read, and
// resolvable with one project's design (GET .../systems/<id>/).

/** Systems a project may number; a design with more lists its first 1000. */
export const SYSTEMS_PER_PROJECT = 1000;

/**
 * The API id of each system of the design, in the design's order: the project's
 * id x 1000 plus the last three digits of the system's id in the design, or the
 * next free number when an earlier system took them (or the design gives no id).
 * Null for systems past the 1000th.
 */
export function systemIds(projectId: number, design: Pick<ProjectDesign, 'systems'>): Array<number | null> {
  const taken = new Set<number>();
  return design.systems.map((system) => {
    if (taken.size >= SYSTEMS_PER_PROJECT) return null;
    const own = Number.isSafeInteger(system?.id) ? system.id : 0;
    let slot = ((own % SYSTEMS_PER_PROJECT) + SYSTEMS_PER_PROJECT) % SYSTEMS_PER_PROJECT;
    while (taken.has(slot)) slot = (slot + 1) % SYSTEMS_PER_PROJECT;
    taken.add(slot);
    return projectId * SYSTEMS_PER_PROJECT + slot;
  });
}

/** The project an API system id belongs to. */
export const projectOfSystemId = (id: number): number => Math.floor(id / SYSTEMS_PER_PROJECT);

// ---------------------------------------------------------------------------
// The parts, in the hosted shapes (hosted-docs-facts.md section 5).

export function incentivesJson(system: DesignSystem): SystemIncentiveJson[] {
  const lines = (paidToCustomer: boolean, entries: Array<{ title: string; amount: number }> | undefined) =>
    (entries ?? []).map((line) => ({ paid_to_customer: paidToCustomer, value: line.amount, title: line.title }));
  return [...lines(true, system.incentives?.incentive_to_customer), ...lines(false, system.incentives?.incentive_to_installer)];
}

export function addersJson(system: DesignSystem): SystemAdderJson[] {
  return (system.adders ?? []).map((adder) => ({
    label: adder.title,
    total_value: adder.price,
    total_cost: adder.cost ?? 0,
    show_customer: adder.show_customer ?? true,
    quantity: adder.quantity ?? 1,
  }));
}

export function moduleGroupsJson(system: DesignSystem, layouts: Map<string, PanelOrientation>): SystemModuleGroupJson[] {
  return (system.module_groups ?? []).map((group) => ({
    module_quantity: group.module_quantity,
    azimuth: group.azimuth,
    slope: group.pitch,
    layout: layouts.get(group.id) ?? 'portrait',
  }));
}

const decimal = (value: number, places: number) => (Number.isFinite(value) ? value.toFixed(places) : '');

/**
 * `data.mcs`: the MCS text fields. Each group's azimuth and tilt, the postcode and
 * its region (the project's zip and state), the specific yield (the design's annual
 * output per kWp), the shading factor (1.00: designs record no shading objects) and
 * MCS's default occupancy archetype (designs record none).
 */
export function mcsJson(system: DesignSystem, project: Pick<ProjectRow, 'zip' | 'state'>): SystemMcsJson {
  return {
    panel_groups: (system.module_groups ?? []).map((group) => ({
      module_quantity: String(group.module_quantity),
      azimuth: decimal(group.azimuth, 0),
      tilt: decimal(group.pitch, 0),
    })),
    postcode_region: [project.zip, project.state].filter(Boolean).join(' '),
    specific_yield: system.kw_stc > 0 ? decimal(system.output.annual_kwh / system.kw_stc, 0) : '',
    shading_factor: '1.00',
    occupancy: 'In half the day',
  };
}

/** The system's `data` object: its custom data and `mcs`. */
function systemData(system: DesignSystem, project: Pick<ProjectRow, 'zip' | 'state'>): Record<string, unknown> {
  const custom = system.custom_data && typeof system.custom_data === 'object' && !Array.isArray(system.custom_data) ? system.custom_data : {};
  return { ...custom, [MCS_PART]: mcsJson(system, project) };
}

function parsePartList(field: string, text: string): string[] {
  const names = text.split(',').map((name) => name.trim()).filter(Boolean);
  const bad = names.filter((name) => !PART_NAME.test(name));
  if (bad.length > 0) {
    throw fieldError(field, `Not a part name: ${bad.map((name) => JSON.stringify(name.slice(0, 70))).join(', ')}. Name parts of each system's data, e.g. ${MCS_PART}.`);
  }
  return names;
}

/** Which parts of `data` to keep: include_parts, or all but exclude_parts; never both (400). */
export function chosenDataParts(query: SystemDetailsQuery): (name: string) => boolean {
  if (query.include_parts !== undefined && query.exclude_parts !== undefined) {
    throw nonFieldError('Use include_parts or exclude_parts, not both.');
  }
  if (query.include_parts !== undefined) {
    const included = new Set(parsePartList('include_parts', query.include_parts));
    return (name) => included.has(name);
  }
  const excluded = new Set(query.exclude_parts === undefined ? [] : parsePartList('exclude_parts', query.exclude_parts));
  return (name) => !excluded.has(name);
}

/**
 * `{systems: [...]}`. `data` (the system's custom data and `mcs`) appears only when
 * the plan includes design data (service.md 5.5: omitted on API Access).
 */
export function systemDetails(
  context: EngineContext,
  project: ProjectRow,
  design: DesignDigest | null,
  query: SystemDetailsQuery,
  includesDesignData: boolean,
): { systems: Array<Record<string, unknown>> } {
  const keepPart = chosenDataParts(query);
  const projectUrl = absoluteUrl(context, apiPaths.project(project.org_id, project.id));
  const ids = design ? systemIds(project.id, design) : [];
  const layouts = design?.layouts ?? new Map<string, PanelOrientation>();
  const systems = (design?.systems ?? [])
    .map((system, index) => ({ system, id: ids[index] ?? null }))
    .filter((entry): entry is { system: DesignSystem; id: number } => entry.id !== null && (!query.limit_to_sold || entry.system.is_sold));
  return {
    systems: systems.map(({ system, id }) => {
      const entry: Record<string, unknown> = {
        id,
        uuid: system.uuid,
        url: `${projectUrl}systems/${system.uuid}/`,
        name: system.name,
        is_sold: system.is_sold,
        kw_stc: system.kw_stc,
        total_module_quantity: system.total_module_quantity,
        output_annual_kwh: system.output.annual_kwh,
        price_including_tax: system.pricing.system_price_including_tax,
        modules: system.modules,
        inverters: system.inverters,
        batteries: system.batteries,
        other_components: system.others,
        adders: addersJson(system),
        module_groups: moduleGroupsJson(system, layouts),
        incentives: incentivesJson(system),
      };
      if (includesDesignData) {
        entry.data = Object.fromEntries(Object.entries(systemData(system, project)).filter(([name]) => keepPart(name)));
      }
      return entry;
    }),
  };
}
