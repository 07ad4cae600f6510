// GET .../projects/<id>/systems/details/ (service.md 4.4, compatibility.md "Systems"):
// one entry per system of the project's design, with the parts a client asks for.
import { z } from 'zod';
import { absoluteUrl, type EngineContext } from '../context.ts';
import type { ProjectRow } from '../store/tables.ts';
import { nonFieldError, validationError, type FieldErrors } from '../http/errors.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { decodeDesign } from '../../../shared/design-codec.ts';
import type { DesignSystem, ProjectDesign } from '../../../shared/design-types.ts';
import { booleanField } from '../../../shared/schemas/coercing-fields.ts';

/** The parts of a system entry that include_parts and exclude_parts choose among. */
export const SYSTEM_PARTS = ['modules', 'inverters', 'batteries', 'other_components', 'adders', 'module_groups', 'incentives', 'data'] as const;
export type SystemPart = (typeof SYSTEM_PARTS)[number];

const emptyAsMissing = (value: unknown) => (value === '' ? undefined : value);

export const systemDetailsQuery = z.object({
  limit_to_sold: z.preprocess(emptyAsMissing, booleanField().optional()).describe('only the sold system'),
  include_parts: z.string().optional().describe(`comma list of parts to include, of: ${SYSTEM_PARTS.join(', ')}`),
  exclude_parts: z.string().optional().describe('comma list of parts to leave out (not with include_parts)'),
});
export type SystemDetailsQuery = z.output<typeof systemDetailsQuery>;

/** The project's decoded design, or null when it has none (or one that cannot be read). */
export function projectDesign(project: ProjectRow): ProjectDesign | null {
  if (!project.design) return null;
  try {
    const design = decodeDesign<ProjectDesign>(project.design);
    return Array.isArray(design?.systems) ? design : null;
  } catch {
    return null;
  }
}

function parsePartList(field: string, text: string, errors: FieldErrors): SystemPart[] {
  const names = text.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(SYSTEM_PARTS as readonly string[]).includes(name));
  if (unknown.length > 0) errors[field] = [`Unknown part${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')}. The parts are: ${SYSTEM_PARTS.join(', ')}.`];
  return names as SystemPart[];
}

/** Which parts the entries carry: include_parts, or all but exclude_parts; never both (400). */
export function chosenParts(query: SystemDetailsQuery): Set<SystemPart> {
  if (query.include_parts !== undefined && query.exclude_parts !== undefined) {
    throw nonFieldError('Use include_parts or exclude_parts, not both.');
  }
  const errors: FieldErrors = {};
  const included = query.include_parts === undefined ? undefined : parsePartList('include_parts', query.include_parts, errors);
  const excluded = query.exclude_parts === undefined ? [] : parsePartList('exclude_parts', query.exclude_parts, errors);
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return new Set((included ?? SYSTEM_PARTS).filter((part) => !excluded.includes(part)));
}

function systemParts(system: DesignSystem): Record<SystemPart, unknown> {
  return {
    modules: system.modules,
    inverters: system.inverters,
    batteries: system.batteries,
    other_components: system.others,
    adders: system.adders,
    module_groups: system.module_groups,
    incentives: system.incentives,
    data: system.custom_data,
  };
}

/**
 * `{systems: [...]}`. `data` (the system's custom data) appears only when the
 * plan includes design data (service.md 5.5: omitted on API Access).
 */
export function systemDetails(
  context: EngineContext,
  project: ProjectRow,
  design: ProjectDesign | null,
  query: SystemDetailsQuery,
  includesDesignData: boolean,
): { systems: Array<Record<string, unknown>> } {
  const parts = chosenParts(query);
  if (!includesDesignData) parts.delete('data');
  const projectUrl = absoluteUrl(context, apiPaths.project(project.org_id, project.id));
  const systems = (design?.systems ?? []).filter((system) => !query.limit_to_sold || system.is_sold);
  return {
    systems: systems.map((system) => {
      const entry: Record<string, unknown> = {
        id: system.id,
        uuid: system.uuid,
        url: `${projectUrl}systems/${system.uuid}/`,
        name: system.name,
        is_sold: system.is_sold,
        kw_stc: system.kw_stc,
        total_module_quantity: system.total_module_quantity,
        output_annual_kwh: system.output.annual_kwh,
        price_including_tax: system.pricing.system_price_including_tax,
      };
      for (const [part, value] of Object.entries(systemParts(system))) if (parts.has(part as SystemPart)) entry[part] = value;
      return entry;
    }),
  };
}
