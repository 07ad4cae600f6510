// Webhook field paths (service.md 6): the default trigger and payload lists, the
// model names, and the two rules that use paths: "did this path change?" and
// "cut this record to these paths". Shared so the engine delivers and the
// renderer's pickers explain with the same code. Also the one list of the paths
// SolarDesk knows for each model (the pickers offer them) and the rules a webhook's
// settings are checked by, in the form and in the engine alike.
import { contactJsonSchema, contactRecordSchema } from './schemas/contact.ts';
import { eventJsonSchema, eventWhoSchema } from './schemas/event.ts';
import { projectDetailJsonSchema } from './schemas/project.ts';

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

// ---------------------------------------------------------------------------
// Known paths, per model

/** A Contact delivery carries the contact's record (with its projects); a project's contacts_data the shorter JSON. */
const CONTACT_FIELDS = Object.keys(contactRecordSchema.shape);
const CONTACTS_DATA_FIELDS = Object.keys(contactJsonSchema.shape);
const EVENT_FIELDS = [...Object.keys(eventJsonSchema.shape), ...Object.keys(eventWhoSchema.shape).map((field) => `who.${field}`)];
/** A project's webhook view is its detail without the design (docs/webhooks.md). */
const PROJECT_FIELDS = Object.keys(projectDetailJsonSchema.shape).filter((field) => field !== 'design');
const ROLE_DATA_FIELDS = ['id', 'user_email', 'first_name', 'family_name', 'phone'];

/**
 * Every path SolarDesk knows, per model: `model.*`, each field of the record as the
 * API answers it, the fields inside its contact, event and role lists, and the
 * documented default paths (which name the design's systems). Quotes and their
 * activity logs are the hosted service's only: `*` is all SolarDesk knows of them.
 */
export const KNOWN_WEBHOOK_PATHS: Readonly<Record<WebhookModel, readonly string[]>> = Object.fromEntries(
  WEBHOOK_MODELS.map((model) => {
    const fields: string[] =
      model === 'project'
        ? [
            ...PROJECT_FIELDS,
            ...CONTACTS_DATA_FIELDS.map((field) => `contacts_data.${field}`),
            ...EVENT_FIELDS.map((field) => `events_data.${field}`),
            ...['assigned_role_data', 'assigned_installer_role_data', 'assigned_site_inspector_role_data'].flatMap((role) =>
              ROLE_DATA_FIELDS.map((field) => `${role}.${field}`),
            ),
          ]
        : model === 'contact'
          ? CONTACT_FIELDS
          : model === 'event'
            ? EVENT_FIELDS
            : [];
    const defaults = [...DEFAULT_TRIGGER_FIELDS, ...DEFAULT_PAYLOAD_FIELDS].filter((path) => path.startsWith(`${model}.`)).map((path) => path.slice(model.length + 1));
    const known = [...new Set([...fields, ...defaults])].filter((field) => field !== '*').sort();
    return [model, [`${model}.*`, ...known.map((field) => `${model}.${field}`)]];
  }),
) as unknown as Record<WebhookModel, readonly string[]>;

const KNOWN_PATH_SET = new Set(Object.values(KNOWN_WEBHOOK_PATHS).flat());

/** Whether SolarDesk knows this path (the hosted service knows more: an unknown path is still accepted). */
export function isKnownWebhookPath(path: string): boolean {
  return KNOWN_PATH_SET.has(path.trim());
}

export function isWebhookModel(name: string): name is WebhookModel {
  return (WEBHOOK_MODELS as readonly string[]).includes(name);
}

/**
 * What the app's forms say of a path whose first segment is not a model webhooks
 * watch (`id`, `event_type_id`, `customer.email`), or null. It is a mark, never a
 * refusal: the API takes any path string, stores it as sent, and such a path never
 * fires and adds nothing to a payload (compatibility.md "Webhooks", issue 25 item 12).
 */
export function webhookPathModelNote(path: string): string | null {
  const model = path.trim().split('.')[0] ?? '';
  if (isWebhookModel(model)) return null;
  return `${model || 'This path'} is not a model webhooks watch (${WEBHOOK_MODELS.join(', ')}): the path is kept as written, but it never fires and adds nothing to a payload.`;
}

// ---------------------------------------------------------------------------
// Endpoint and headers

/** Why an endpoint is not a URL a webhook can POST to, or null. */
export function webhookEndpointProblem(endpoint: string): string | null {
  if (endpoint.trim() === '') return 'Enter the URL the webhook should POST to.';
  if (/\s/.test(endpoint.trim())) return 'A URL cannot contain spaces. Enter a full URL, such as https://example.com/hooks/solar.';
  let url: URL;
  try {
    url = new URL(endpoint.trim());
  } catch {
    return 'Enter a full URL, such as https://example.com/hooks/solar.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'The URL must start with https:// or http://.';
  if (url.hostname === '') return 'The URL needs a host name, such as example.com.';
  return null;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the delivery sets itself; a webhook may not replace them. */
const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'transfer-encoding', 'connection']);

/** Why one header (name and value) cannot be sent, or null. */
export function webhookHeaderProblem(name: string, value: unknown): string | null {
  if (name === '') return 'Give the header a name.';
  if (!HEADER_NAME.test(name)) return `"${name}" is not a valid header name: use letters, digits and dashes, such as X-Api-Key.`;
  if (RESERVED_HEADERS.has(name.toLowerCase())) return `The "${name}" header is set by the delivery itself.`;
  if (typeof value !== 'string') return `The value of header "${name}" must be a string.`;
  if (/[\r\n\0]/.test(value)) return `The value of header "${name}" may not contain line breaks.`;
  return null;
}
