// Webhook field paths (service.md 6): the default trigger and payload lists, the
// model names, and the two rules that use paths: "did this path change?" and
// "cut this record to these paths". Shared so the engine delivers and the
// renderer's pickers explain with the same code.

export const WEBHOOK_MODELS = ['project', 'contact', 'event', 'quote', 'quoteactivitylog'] as const;
export type WebhookModel = (typeof WEBHOOK_MODELS)[number];

/** How each model is named in a delivery body (compatibility.md "Webhooks"). */
export const WEBHOOK_MODEL_NAMES: Record<WebhookModel, string> = {
  project: 'Project',
  contact: 'Contact',
  event: 'Event',
  quote: 'Quote',
  quoteactivitylog: 'QuoteActivityLog',
};

export const DEFAULT_TRIGGER_FIELDS = [
  'contact.*', 'event.*', 'project.address', 'project.zip', 'project.state', 'project.lat', 'project.lon', 'project.country',
  'project.locality', 'project.county', 'project.contacts', 'project.identifier', 'project.notes',
  'project.systems.price_including_tax', 'project.systems.output_annual_kwh', 'project.systems.modules', 'project.systems.inverters',
  'project.systems.others', 'project.systems.batteries', 'project.systems.kw_stc', 'project.stage', 'project.system_sold',
  'project.payment_option_sold', 'project.sold_date', 'project.installation_date', 'project.system_installed',
  'project.assigned_installer_role', 'project.assigned_role', 'project.assigned_site_inspector_role', 'project.events_data',
  'project.usage', 'project.utility_tariff_or_guess', 'project.utility_tariff_proposed', 'quote.*', 'quoteactivitylog.*',
] as const;

export const DEFAULT_PAYLOAD_FIELDS = [
  'contact.*', 'event.*', 'project.address', 'project.zip', 'project.state', 'project.lat', 'project.lon', 'project.country_iso2',
  'project.locality', 'project.county', 'project.contacts_data.email', 'project.contacts_data.family_name',
  'project.contacts_data.first_name', 'project.contacts_data.id', 'project.contacts_data.phone',
  'project.systems.price_including_tax', 'project.systems.output_annual_kwh', 'project.systems.url', 'project.systems.modules',
  'project.systems.inverters', 'project.systems.others', 'project.systems.batteries', 'project.systems.kw_stc', 'project.id',
  'project.identifier', 'project.notes', 'project.site_notes', 'project.actions', 'project.stage', 'project.system_sold',
  'project.payment_option_sold', 'project.sold_date', 'project.installation_date', 'project.system_installed',
  'project.assigned_installer_role_data.user_email', 'project.assigned_installer_role_data.id',
  'project.assigned_installer_role_data.first_name', 'project.assigned_installer_role_data.family_name',
  'project.assigned_installer_role_data.phone', 'project.assigned_role_data.user_email', 'project.assigned_role_data.id',
  'project.assigned_role_data.first_name', 'project.assigned_role_data.family_name', 'project.assigned_role_data.phone',
  'project.assigned_site_inspector_role_data.user_email', 'project.assigned_site_inspector_role_data.id',
  'project.assigned_site_inspector_role_data.first_name', 'project.assigned_site_inspector_role_data.family_name',
  'project.assigned_site_inspector_role_data.phone', 'project.events_data', 'project.usage', 'project.utility_tariff_or_guess.data',
  'project.utility_tariff_proposed_or_guess.data', 'quote.*', 'quoteactivitylog.*',
] as const;

/** Fields that change on every write and so never count as "the data changed". */
const BOOKKEEPING_FIELDS = new Set(['modified_date']);

/** The paths of one model in a list, without the model prefix: `project.systems.kw_stc` -> ["systems", "kw_stc"]. */
export function pathsForModel(paths: readonly string[] | null, model: WebhookModel): string[][] {
  if (!paths) return [];
  return paths
    .map((path) => path.trim().split('.'))
    .filter(([first]) => first === model)
    .map((segments) => segments.slice(1));
}

export function modelIsListed(paths: readonly string[] | null, model: WebhookModel): boolean {
  return pathsForModel(paths, model).length > 0;
}

/**
 * The value at a path, reaching through arrays: `contacts_data.email` of a project
 * is the list of its contacts' emails.
 */
export function valueAtPath(value: unknown, path: readonly string[]): unknown {
  if (path.length === 0) return value;
  if (Array.isArray(value)) return value.map((item) => valueAtPath(item, path));
  if (typeof value !== 'object' || value === null) return undefined;
  const [head, ...rest] = path;
  return valueAtPath((value as Record<string, unknown>)[head!], rest);
}

export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => sameJson(item, other[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) if (!sameJson(left[key], right[key])) return false;
  return true;
}

/** Whether an update of a record changed what a path (or `*`) points at. */
export function pathChanged(before: Record<string, unknown>, after: Record<string, unknown>, path: readonly string[]): boolean {
  if (path.length === 1 && path[0] === '*') {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const key of keys) if (!BOOKKEEPING_FIELDS.has(key) && !sameJson(before[key], after[key])) return true;
    return false;
  }
  return !sameJson(valueAtPath(before, path), valueAtPath(after, path));
}

/**
 * The record cut to the listed paths of its model (service.md 6 rules 2 and 3): a
 * model absent from the list, or listed as `model.*`, is sent whole.
 */
export function cutToPaths(record: Record<string, unknown>, paths: readonly string[] | null, model: WebhookModel): Record<string, unknown> {
  const modelPaths = pathsForModel(paths, model);
  if (modelPaths.length === 0 || modelPaths.some((path) => path.length === 1 && path[0] === '*')) return record;
  let cut: Record<string, unknown> = {};
  for (const path of modelPaths) cut = mergePicked(cut, pick(record, path)) as Record<string, unknown>;
  return cut;
}

function pick(value: unknown, path: readonly string[]): unknown {
  if (path.length === 0) return value;
  if (Array.isArray(value)) return value.map((item) => pick(item, path));
  if (typeof value !== 'object' || value === null) return undefined;
  const [head, ...rest] = path;
  const record = value as Record<string, unknown>;
  if (!(head! in record)) return {};
  return { [head!]: pick(record[head!], rest) };
}

function mergePicked(a: unknown, b: unknown): unknown {
  if (Array.isArray(a) && Array.isArray(b)) return a.map((item, index) => mergePicked(item, b[index]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const merged: Record<string, unknown> = { ...a };
    for (const [key, value] of Object.entries(b)) merged[key] = key in merged ? mergePicked(merged[key], value) : value;
    return merged;
  }
  return b === undefined ? a : b;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
