// Permissions roles (hosted-docs-facts.md section 11, "Custom permission for
// Teams"): a role_type 1 role narrows what a connected org sees of the projects
// shared to it. `permissions` is a JSON string {"project": {<area>: {view, create,
// edit, delete}}} with each value 0 or 1; docs/access.md "Teams" says which areas
// SolarDesk applies. The renderer imports these too.
import { z } from 'zod';
import { integerField, requiredString } from './coercing-fields.ts';

/** The documented areas; design has sub-areas `design_<name>`. */
export const PERMISSION_AREAS = [
  'project',
  'info_contact_info_basic',
  'info_contact_info_full',
  'info_sales_and_marketing',
  'info_sale',
  'info_installation_info',
  'info_transactions',
  'info_documents',
  'info_sharing',
  'energy_usage_tariff',
  'design',
  'proposal',
  'manage',
  'manage_notes_activities_actions',
  'manage_workflow_stages',
  'manage_assigned_users',
  'purchases_for_projects',
  'sld',
] as const;
export const PERMISSION_ACTIONS = ['view', 'create', 'edit', 'delete'] as const;
export type PermissionAction = (typeof PERMISSION_ACTIONS)[number];
export type AreaPermissions = Record<PermissionAction, 0 | 1>;
export type ProjectPermissions = Record<string, AreaPermissions>;

const DESIGN_SUB_AREA = /^design_[a-z][a-z0-9_]{0,60}$/;

export function isPermissionArea(name: string): boolean {
  return (PERMISSION_AREAS as readonly string[]).includes(name) || DESIGN_SUB_AREA.test(name);
}

/**
 * Reads a `permissions` string: the project areas with each action 0 or 1 (a
 * missing action is 0), or the error to show. Unknown areas, actions and values
 * are refused, naming the first one found.
 */
export function parsePermissions(text: string): { permissions: ProjectPermissions } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'Send a JSON string: {"project": {"<area>": {"view": 0 or 1, "create": ..., "edit": ..., "delete": ...}}}.' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: 'The permissions must be a JSON object with a "project" key.' };
  const keys = Object.keys(value);
  const extra = keys.find((key) => key !== 'project');
  if (extra !== undefined) return { error: `Unknown permission group "${extra}": only "project" is known.` };
  const project = (value as { project?: unknown }).project;
  if (project === undefined || project === null || typeof project !== 'object' || Array.isArray(project)) {
    return { error: 'The permissions must have a "project" object of areas.' };
  }
  const permissions: ProjectPermissions = {};
  for (const [area, actions] of Object.entries(project)) {
    if (!isPermissionArea(area)) return { error: `Unknown area "${area}". Known areas: ${PERMISSION_AREAS.join(', ')}, and design_<name>.` };
    if (actions === null || typeof actions !== 'object' || Array.isArray(actions)) return { error: `Area "${area}" must be an object of view, create, edit and delete.` };
    const parsed: AreaPermissions = { view: 0, create: 0, edit: 0, delete: 0 };
    for (const [action, flag] of Object.entries(actions)) {
      if (!(PERMISSION_ACTIONS as readonly string[]).includes(action)) return { error: `Unknown action "${action}" in area "${area}": use view, create, edit or delete.` };
      if (flag !== 0 && flag !== 1) return { error: `"${area}".${action} must be 0 or 1.` };
      parsed[action as PermissionAction] = flag;
    }
    permissions[area] = parsed;
  }
  return { permissions };
}

export const permissionsRoleCreateSchema = z.object({
  role_type: integerField()
    .refine((value) => value === 0 || value === 1, '"role_type" must be 1 (a Teams role for connected orgs) or 0 (an ordinary custom role).')
    .describe('1: a Teams role for connected orgs; 0: an ordinary custom role'),
  title: requiredString().refine((text) => text.trim() !== '', 'This field may not be blank.'),
  permissions: requiredString().describe('a JSON string {"project": {<area>: {view, create, edit, delete as 0/1}}}'),
});

export const permissionsRoleJsonSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  org: z.string(),
  role_type: z.number().int(),
  title: z.string(),
  permissions: z.string().describe('the JSON string as stored'),
});
export type PermissionsRoleJson = z.infer<typeof permissionsRoleJsonSchema>;
