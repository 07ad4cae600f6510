// Which project fields live in their own column (to be searched, sorted, joined)
// and which in the `attributes` JSON. Only the engine's store cares; the API sees
// one flat project.
import type { RoleReferenceField } from '../../../shared/project-fields.ts';
import type { ProjectsTable } from '../store/tables.ts';
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
