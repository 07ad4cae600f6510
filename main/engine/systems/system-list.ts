// GET /api/orgs/<org>/systems/?fieldset=list and .../systems/<id>/?fieldset=list
// (hosted-docs-facts.md section 1): the systems of the org's projects' designs,
// as rows, ordered by project then by the system's place in the design.
//
// Rows are read from the designs' digests (designs/design-cache.ts: decoded once per
// design version, in the design worker), so a page reads only the digests of the
// projects it shows. Pages
// further on must know how many systems each project before them has: those
// counts are kept per project, keyed by the design's length and last 16
// characters (its gzip trailer: a CRC-32 and size of the JSON), so a change of
// design is a new key and walking the same projects again decodes nothing.
import { sql } from 'kysely';
import { z } from 'zod';
import { absoluteUrl, type EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import { fieldError } from '../http/errors.ts';
import { pageOffset, pagingQuery } from '../http/list-query.ts';
import { visibleTo } from '../projects/project-access.ts';
import { apiPaths, parseOrgReference } from '../../../shared/api-paths.ts';
import type { DesignSystem, ProjectDesign } from '../../../shared/design-types.ts';
import type { ComponentJson, SystemListJson } from '../../../shared/schemas/system.ts';
import { addersJson, SYSTEMS_PER_PROJECT, systemIds } from './system-details.ts';
import { projectDigest } from '../designs/design-cache.ts';

/** Years the lifetime figures cover: the horizon of the designs' cash flows. */
export const SYSTEM_LIFETIME_YEARS = 25;
/** A DC optimiser's efficiency where a system has them (the designs do not record one). */
const DC_OPTIMIZER_EFFICIENCY = 0.995;
/** Makers whose inverters or parts put a DC optimiser on the panels. */
const OPTIMIZER_MAKERS = ['SolarEdge', 'Tigo'];
const PROJECT_BATCH = 200;
/** Designs decoded at once to count the systems of projects a page skips. */
const SKIP_CHUNK = 50;
const MAX_CACHED_COUNTS = 500_000;

const fieldsetParam = z
  .enum(['list'], { error: 'This field is required and must be "list": send fieldset=list (the systems resource has no other fieldset).' })
  .describe('required: list');

export const systemListQuery = z.object({
  fieldset: fieldsetParam,
  ...pagingQuery,
  project: z.string().max(2000).optional().describe('a project: its id, URL or /api/orgs/<org_id>/projects/<id>/ path'),
});
export const systemDetailQuery = z.object({ fieldset: fieldsetParam });
export type SystemListQuery = z.output<typeof systemListQuery>;

const round = (value: number, places: number) => {
  const scale = 10 ** places;
  return Math.round(value * scale) / scale;
};
const sumOf = (values: number[]) => values.reduce((total, value) => total + (Number.isFinite(value) ? value : 0), 0);

/** One row of the list fieldset. */
export function systemRow(
  context: EngineContext,
  project: { id: number; org_id: number },
  system: DesignSystem,
  id: number,
  order: number,
): SystemListJson {
  const pricing = system.pricing;
  const kw = system.kw_stc;
  const panels = system.total_module_quantity;
  const adders = addersJson(system);
  const addersTotal = sumOf(adders.map((adder) => adder.total_value));
  const acKw = sumOf((system.inverters ?? []).map((inverter) => inverter.max_power_kw * inverter.quantity));
  const optimized = [...(system.inverters ?? []), ...(system.others ?? [])].some((part) => OPTIMIZER_MAKERS.includes(part.manufacturer_name));
  const consumption = system.consumption?.annual_kwh ?? 0;
  const netProfit =
    pricing.system_price_excluding_tax - (pricing.costs?.total ?? 0) - (pricing.dealer_fee ?? 0) - sumOf(adders.map((adder) => adder.total_cost));
  return {
    id,
    url: absoluteUrl(context, apiPaths.system(project.org_id, id)),
    name: system.name,
    uuid: system.uuid,
    order,
    system_lifetime: SYSTEM_LIFETIME_YEARS,
    inverter_range: acKw > 0 ? round((kw / acKw) * 100, 1) : null,
    dc_optimizer_active: optimized,
    dc_optimizer_efficiency: optimized ? DC_OPTIMIZER_EFFICIENCY : null,
    show_customer: true,
    is_current: true,
    auto_string: system.custom_data?.auto_designed === true,
    discount: pricing.discount ?? 0,
    adders_per_system: round(addersTotal, 2),
    adders_per_panel: panels > 0 ? round(addersTotal / panels, 2) : 0,
    adders_per_watt: kw > 0 ? round(addersTotal / (kw * 1000), 4) : 0,
    kw_stc: kw,
    battery_total_kwh: round(sumOf((system.batteries ?? []).map((battery) => battery.capacity_kwh * battery.quantity)), 2),
    price_including_tax: pricing.system_price_including_tax,
    price_excluding_tax: pricing.system_price_excluding_tax,
    net_profit: round(netProfit, 2),
    module_quantity: panels,
    co2_tons_lifetime: round((system.environmentals?.co2_tonnes_per_year ?? 0) * SYSTEM_LIFETIME_YEARS, 2),
    project: absoluteUrl(context, apiPaths.project(project.org_id, project.id)),
    org: absoluteUrl(context, apiPaths.org(project.org_id)),
    pricing_scheme: null,
    output_annual_kwh: system.output.annual_kwh,
    consumption_offset_percentage: consumption > 0 ? round((system.output.annual_kwh / consumption) * 100, 1) : null,
    modules: (system.modules ?? []).map((module) => ({
      module_activation_id: null,
      code: module.code,
      manufacturer_name: module.manufacturer_name,
      quantity: module.quantity,
    })),
    // The design's own lines, as systems/details gives them.
    inverters: (system.inverters ?? []) as unknown as ComponentJson[],
    batteries: (system.batteries ?? []) as unknown as ComponentJson[],
    others: (system.others ?? []) as unknown as ComponentJson[],
  };
}

/** The rows of one project's design, in its order. */
export function designRows(context: EngineContext, project: { id: number; org_id: number }, design: Pick<ProjectDesign, 'systems'> | null): SystemListJson[] {
  if (!design) return [];
  const ids = systemIds(project.id, design);
  const rows: SystemListJson[] = [];
  design.systems.forEach((system, order) => {
    const id = ids[order];
    if (id !== null && id !== undefined) rows.push(systemRow(context, project, system, id, order));
  });
  return rows;
}

type CountCache = Map<number, { key: string; count: number }>;
const systemCounts = new WeakMap<EngineContext, CountCache>();

function countCache(context: EngineContext): CountCache {
  let cache = systemCounts.get(context);
  if (!cache) systemCounts.set(context, (cache = new Map()));
  if (cache.size > MAX_CACHED_COUNTS) cache.clear();
  return cache;
}

/** The project named by the `project` filter: its id, null for another org's (no rows), 400 for no project reference. */
function projectFilter(actor: Actor, reference: string | undefined): number | null | undefined {
  if (reference === undefined || reference === '') return undefined;
  const parsed = parseOrgReference(reference, 'projects');
  if (!parsed) throw fieldError('project', 'Select a valid project: an id, a project URL or /api/orgs/<org_id>/projects/<id>/.');
  return parsed.orgId !== null && parsed.orgId !== actor.org.id ? null : parsed.id;
}

/** A page of the org's systems that the actor may see (their projects' visibility, docs/access.md). */
export async function listSystems(context: EngineContext, actor: Actor, query: SystemListQuery): Promise<SystemListJson[]> {
  const onlyProject = projectFilter(actor, query.project);
  if (onlyProject === null) return [];
  const cache = countCache(context);
  let skip = pageOffset(query);
  const rows: SystemListJson[] = [];
  let after = 0;
  for (;;) {
    let batchQuery = context.db
      .selectFrom('projects')
      .select(['id', 'org_id', sql<string>`length(design) || ':' || substr(design, length(design) - 15)`.as('design_key')])
      .where(visibleTo(actor))
      .where('design', 'is not', null)
      .where('design', '!=', '')
      .where('id', '>', after)
      .orderBy('id')
      .limit(PROJECT_BATCH);
    if (onlyProject !== undefined) batchQuery = batchQuery.where('id', '=', onlyProject);
    const batch = await batchQuery.execute();
    if (batch.length === 0) return rows;
    after = batch[batch.length - 1]!.id;

    // Skipping: a project whose count is not known yet is decoded, with the next few
    // unknown ones (about as many as the rows still to skip, at most SKIP_CHUNK).
    let index = 0;
    while (index < batch.length && skip > 0) {
      const project = batch[index]!;
      if (cache.get(project.id)?.key !== project.design_key) {
        const unknown = batch.slice(index).filter((candidate) => cache.get(candidate.id)?.key !== candidate.design_key).slice(0, Math.min(SKIP_CHUNK, skip));
        const keys = new Map(unknown.map((candidate) => [candidate.id, candidate.design_key]));
        const designs = await designsOf(context, [...keys.keys()]);
        const digests = await Promise.all(designs.map((row) => projectDigest(context, row)));
        designs.forEach((row, at) => cache.set(row.id, { key: keys.get(row.id)!, count: Math.min(digests[at]?.systems.length ?? 0, SYSTEMS_PER_PROJECT) }));
      }
      const count = cache.get(project.id)?.count ?? 0;
      if (count > skip) break;
      skip -= count;
      index++;
    }
    // Showing: the designs of the next projects, as many as rows are still wanted (each has at least one, or none).
    while (index < batch.length && rows.length < query.limit) {
      const wanted = batch.slice(index, index + (query.limit - rows.length));
      const designs = await designsOf(context, wanted.map((project) => project.id));
      const digests = new Map(await Promise.all(designs.map(async (row) => [row.id, await projectDigest(context, row)] as const)));
      for (const project of wanted) {
        index++;
        const design = digests.get(project.id) ?? null;
        cache.set(project.id, { key: project.design_key, count: Math.min(design?.systems.length ?? 0, SYSTEMS_PER_PROJECT) });
        const projectRows = designRows(context, project, design);
        rows.push(...projectRows.slice(skip, skip + (query.limit - rows.length)));
        skip = Math.max(0, skip - projectRows.length);
        if (rows.length >= query.limit) return rows;
      }
    }
    if (rows.length >= query.limit || batch.length < PROJECT_BATCH) return rows;
  }
}

async function designsOf(context: EngineContext, ids: number[]): Promise<Array<{ id: number; design: string | null }>> {
  if (ids.length === 0) return [];
  return context.db.selectFrom('projects').select(['id', 'design']).where('id', 'in', ids).execute();
}
