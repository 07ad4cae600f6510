// Which project fields live in their own column (to be searched, sorted, joined)
// and which in the `attributes` JSON. Only the engine's store cares; the API sees
// one flat project.
import { type PlainFieldSpec, type RoleReferenceField, WRITABLE_PLAIN_FIELDS } from '../../../shared/project-fields.ts';
import type { ProjectsTable } from '../store/tables.ts';
import { toFlag } from '../store/portable-columns.ts';
import { naturalSortKey } from '../../../shared/natural-sort.ts';

/** Plain writable fields that have a column of the same name. */
export const COLUMN_FIELDS = [
  'title',
  'identifier',
  'address',
  'locality',
  'state',
  'zip',
  'country_iso2',
  'lat',
  'lon',
  'business_name',
  'priority',
  'is_residential',
  'is_lite',
] as const satisfies ReadonlyArray<keyof ProjectsTable>;
export type ColumnField = (typeof COLUMN_FIELDS)[number];
export const COLUMN_FIELD_SET: ReadonlySet<string> = new Set(COLUMN_FIELDS);

/**
 * The project's one mapper between the API's plain values and the store's (issue 26):
 * the engine's writes, its serializer and the replica's copies of remote projects all
 * convert through these, so a type is converted in one place. What each field holds is
 * the shared field list's (shared/project-fields.ts); country_iso2, which no write sets
 * as such (a write's `country` does), is stored as given.
 */
const specOf = (field: string): PlainFieldSpec | undefined => (WRITABLE_PLAIN_FIELDS as Record<string, PlainFieldSpec>)[field];
const BOOLEAN_COLUMNS: ReadonlySet<string> = new Set(COLUMN_FIELDS.filter((field) => specOf(field)?.kind === 'boolean'));

/**
 * A column field's API value as its column holds it: booleans as 0/1; null or absent,
 * for a field that is never null (a remote may leave one out), its default.
 */
export function toColumnValue(field: ColumnField, value: unknown): unknown {
  const spec = specOf(field);
  const given = value === null || value === undefined ? (spec && !spec.kind.startsWith('nullable_') ? spec.default : null) : value;
  return BOOLEAN_COLUMNS.has(field) ? toFlag(given) : given;
}

/** A column field's stored value as the API shows it. */
export function fromColumnValue(field: ColumnField, stored: unknown): unknown {
  return BOOLEAN_COLUMNS.has(field) ? stored === 1 : stored;
}

/**
 * The plain fields `fields` of an API project or write, split as the store keeps them:
 * those with a column of their own, in its stored type, and the rest for `attributes`.
 * A field `values` does not hold is left out of both.
 */
export function storedPlainFields(values: Readonly<Record<string, unknown>>, fields: Iterable<string>): { columns: Partial<Record<ColumnField, unknown>>; attributes: Record<string, unknown> } {
  const columns: Partial<Record<ColumnField, unknown>> = {};
  const attributes: Record<string, unknown> = {};
  for (const field of fields) {
    if (!(field in values) || values[field] === undefined) continue;
    if (COLUMN_FIELD_SET.has(field)) columns[field as ColumnField] = toColumnValue(field as ColumnField, values[field]);
    else attributes[field] = values[field];
  }
  return { columns, attributes };
}

/** Every column field of a whole API project (a remote's copy), as stored: one it leaves out gets its default. */
export function projectColumnsOf(values: Readonly<Record<string, unknown>>): Pick<ProjectsTable, ColumnField> {
  return Object.fromEntries(COLUMN_FIELDS.map((field) => [field, toColumnValue(field, values[field])])) as unknown as Pick<ProjectsTable, ColumnField>;
}

export const ROLE_COLUMNS = {
  assigned_role: 'assigned_role_id',
  assigned_installer_role: 'assigned_installer_role_id',
  assigned_site_inspector_role: 'assigned_site_inspector_role_id',
  assigned_designer_role: 'assigned_designer_role_id',
  assigned_salesperson_role: 'assigned_salesperson_role_id',
} as const satisfies Record<RoleReferenceField, keyof ProjectsTable>;

/** Every column of `projects`; the compiler checks none is missing. */
const PROJECT_COLUMNS = [
  'id', 'org_id', 'title', 'title_sort', 'identifier', 'address', 'locality', 'state', 'zip', 'country_iso2', 'lat', 'lon',
  'business_name', 'priority', 'is_residential', 'is_lite', 'roof_type_id', 'workflow_id', 'active_stage_id',
  'assigned_role_id', 'assigned_installer_role_id', 'assigned_site_inspector_role_id', 'assigned_designer_role_id',
  'assigned_salesperson_role_id', 'usage', 'design', 'attributes', 'created_date', 'modified_date', 'share_link_generation',
] as const satisfies ReadonlyArray<keyof ProjectsTable>;
const everyColumnListed: Exclude<keyof ProjectsTable, (typeof PROJECT_COLUMNS)[number]> extends never ? true : never = true;
void everyColumnListed;

/**
 * The columns a list reads: all but `design`, which is tens of KB of base64 per
 * designed project and which no list fieldset shows.
 */
export const PROJECT_COLUMNS_BUT_DESIGN = PROJECT_COLUMNS.filter((column): column is Exclude<(typeof PROJECT_COLUMNS)[number], 'design'> => column !== 'design');

/**
 * The columns of a project write with `title_sort` added when they set the title
 * (shared/natural-sort.ts): every write of a title goes through this, so
 * `ordering=title` never sorts by a stale key.
 */
export function withTitleSort<Columns extends { title?: string | null }>(columns: Columns): Columns & { title_sort?: string } {
  return typeof columns.title === 'string' ? { ...columns, title_sort: naturalSortKey(columns.title) } : columns;
}

export function parseAttributes(text: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(text);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}
