// A project row and what hangs off it -> the JSON of service.md 2.1, in the
// fieldset asked for. Related records are loaded once per page, never per row.
import type { Kysely } from 'kysely';
import type { Database, ProjectRow, ContactRow, ProjectShareRow } from '../store/tables.ts';
import { loadProjectShares, partnerMayView, sharedWithJson } from '../sharing/project-shares.ts';
import type { ProjectPermissions } from '../../../shared/schemas/permissions-role.ts';
import { type EventView, loadProjectEvents, serializeEvent } from '../events/events.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { shareLink } from './share-token.ts';
import { countryNumericCode } from '../../../shared/countries.ts';
import {
  LIST_FIELDSET,
  ROLE_REFERENCE_FIELDS,
  ROLE_SUMMARY_PREFIXES,
  STAGE_WARNING,
  STORED_READ_ONLY_FIELDS,
  STUDIO_FIELDSET,
  WRITABLE_PLAIN_FIELDS,
  HOSTED_FIELD_NAMES,
  customerProposalData,
  type HostedFieldName,
  type RoleReferenceField,
  type StoredReadOnlyField,
  type WritablePlainField,
} from '../../../shared/project-fields.ts';
import type { ProjectDetailJson, ProjectField, ProjectJsonByFieldset } from '../../../shared/schemas/project.ts';
import { annualUsageOrGuess, usageTariffOf, type Usage } from '../../../shared/usage.ts';
import { API_PLANS } from '../../../shared/plans.ts';
import { loadRoles, roleDisplayName, serializeRole, type RoleWithUser } from '../roles/roles.ts';
import { loadProjectContacts, serializeContact } from '../contacts/contacts.ts';
import { loadContactLogins } from '../contacts/contact-logins.ts';
import { loadOrgWorkflows, type OrgWorkflows } from '../workflows/workflows.ts';
import { COLUMN_FIELDS, ROLE_COLUMNS, fromColumnValue, parseAttributes, type ColumnField } from './project-columns.ts';
import { loadProjectFiles, projectFilesJson } from '../files/project-files.ts';
import { fileViewerFor, type FileViewer } from '../files/file-access.ts';
import type { FileWithTags } from '../files/file-serializer.ts';

export type Fieldset = 'list' | 'studio' | 'detail';

/** Records that hang off a page of projects, loaded in a few queries. */
export interface ProjectRelations {
  contacts: Map<number, ContactRow[]>;
  roles: Map<number, RoleWithUser>;
  workflows: OrgWorkflows;
  events: Map<number, EventView[]>;
  files: Map<number, FileWithTags[]>;
  /** Ids of the contacts above that have a user login (contacts/contact-logins.ts): for customer_proposal_data. */
  contactLogins: Set<number>;
  /** `shared_with` entries (sharing/project-shares.ts). */
  shares: Map<number, ProjectShareRow[]>;
}

/** The fields a fieldset shows; every field for `detail`. */
const FIELDSET_FIELDS: Record<Exclude<Fieldset, 'detail'>, ReadonlySet<string>> = {
  list: new Set(LIST_FIELDSET),
  studio: new Set(STUDIO_FIELDSET),
};

/** Whether `fieldset` shows `field`: what a row of it need not compute or load. */
export function showsField(fieldset: Fieldset, field: string): boolean {
  return fieldset === 'detail' || FIELDSET_FIELDS[fieldset].has(field);
}

const ROLE_FIELDS = [
  ...ROLE_REFERENCE_FIELDS.flatMap((field) => [field, `${field}_data`]),
  ...ROLE_SUMMARY_PREFIXES.flatMap((prefix) => ['id', 'name', 'email', 'phone'].map((part) => `${prefix}_${part}`)),
  'assigned_role_accreditation',
];
const showsAny = (fieldset: Fieldset, fields: readonly string[]) => fields.some((field) => showsField(fieldset, field));

/**
 * Loads what the rows' `fieldset` shows of their related records, in a few queries
 * per page. A list page loads no events, files or roles it would not show.
 * `db` is the store or the write's transaction (SQLite has one connection: reads
 * inside a write must use the transaction).
 */
export async function loadRelations(
  db: Kysely<Database>,
  context: EngineContext,
  orgId: number,
  rows: readonly ProjectRow[],
  fieldset: Fieldset = 'detail',
): Promise<ProjectRelations> {
  const roleIds = showsAny(fieldset, ROLE_FIELDS)
    ? rows.flatMap((row) => ROLE_REFERENCE_FIELDS.map((field) => row[ROLE_COLUMNS[field]])).filter((id): id is number => id !== null)
    : [];
  const projectIds = rows.map((row) => row.id);
  const none = <T>() => Promise.resolve(new Map<number, T>());
  const [contacts, roles, workflows, events, files, shares] = await Promise.all([
    showsAny(fieldset, ['contacts', 'contacts_data', 'customer_proposal_data']) ? loadProjectContacts(db, projectIds) : none<ContactRow[]>(),
    roleIds.length > 0 ? loadRoles(db, orgId, roleIds) : none<RoleWithUser>(),
    loadOrgWorkflows(db, orgId),
    showsAny(fieldset, ['events', 'events_data']) ? loadProjectEvents(db, projectIds) : none<EventView[]>(),
    showsAny(fieldset, ['private_files', 'private_files_data']) ? loadProjectFiles(db, projectIds) : none<FileWithTags[]>(),
    showsField(fieldset, 'shared_with') ? loadProjectShares(db, projectIds) : none<ProjectShareRow[]>(),
  ]);
  const contactLogins = showsField(fieldset, 'customer_proposal_data') ? await loadContactLogins(db, [...contacts.values()].flat()) : new Set<number>();
  return { contacts, roles, workflows, events, files, contactLogins, shares };
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
function countryName(iso2: string): string {
  if (!iso2) return '';
  try {
    return regionNames.of(iso2) ?? iso2;
  } catch {
    return iso2;
  }
}

/** `/api/countries/<ISO 3166 numeric>/`, as the hosted service names a country (facts section 15); ISO2 for a code with no number. */
function countryUrl(context: EngineContext, iso2: string): string | null {
  if (!iso2) return null;
  return absoluteUrl(context, apiPaths.country(countryNumericCode(iso2) ?? iso2));
}

/** Who the JSON is for: the org's name, and whether its plan includes the design. */
export interface ProjectView {
  orgName: string;
  includeDesign: boolean;
  /** Whose private files view this is; absent for the snapshots webhooks compare, which show every file. */
  fileViewer?: FileViewer;
  /**
   * A connected org viewing projects shared to it (docs/access.md "Teams"): its id, and
   * the permissions role in force for each project (null: none, nothing narrowed).
   */
  partner?: { orgId: number; permissions: ReadonlyMap<number, ProjectPermissions | null> };
}

export function viewFor(actor: Actor): ProjectView {
  return { orgName: actor.org.name, includeDesign: API_PLANS[actor.plan].includesDesignData, fileViewer: fileViewerFor(actor) };
}

/** The fields kept in the attributes JSON column, with their defaults. */
type AttributeField = WritablePlainField | StoredReadOnlyField;
const ATTRIBUTE_FIELDS = Object.entries({ ...WRITABLE_PLAIN_FIELDS, ...STORED_READ_ONLY_FIELDS });
/** A default object or array is copied, so no answer shares (and no caller mutates) the table's own. */
const copyDefault = (value: unknown) => (value !== null && typeof value === 'object' ? structuredClone(value) : value);

/** The values a role reference shows: the URL and the role, and for the main roles a flat summary. */
type RoleFieldsJson = Pick<
  ProjectDetailJson,
  | RoleReferenceField
  | `${RoleReferenceField}_data`
  | `${(typeof ROLE_SUMMARY_PREFIXES)[number]}_${'id' | 'name' | 'email' | 'phone'}`
>;

function roleFieldsJson(context: EngineContext, view: ProjectView, row: ProjectRow, relations: ProjectRelations): RoleFieldsJson {
  // Keys built from the same tables as the schema's (shared/schemas/project.ts), in its order.
  const json: Record<string, unknown> = {};
  for (const field of ROLE_REFERENCE_FIELDS) {
    const roleId = row[ROLE_COLUMNS[field]];
    const role = roleId === null ? undefined : relations.roles.get(roleId);
    json[field] = role ? absoluteUrl(context, apiPaths.role(role.org_id, role.id)) : null;
    json[`${field}_data`] = role ? serializeRole(context, role, view.orgName) : null;
  }
  for (const prefix of ROLE_SUMMARY_PREFIXES) {
    const roleId = row[ROLE_COLUMNS[prefix]];
    const role = roleId === null ? undefined : relations.roles.get(roleId);
    json[`${prefix}_id`] = role?.id ?? null;
    json[`${prefix}_name`] = role ? roleDisplayName(role) : null;
    json[`${prefix}_email`] = role ? role.user_email ?? role.email : null;
    json[`${prefix}_phone`] = role ? role.phone || role.user_phone || '' : null;
  }
  return json as RoleFieldsJson;
}

/**
 * The project's JSON in `fieldset`, typed by shared/schemas/project.ts: a field
 * the schema has and this leaves out, or one it misspells, fails the type check.
 * The detail's key order is the order below (it is the schema's too).
 */
export function serializeProject<Shown extends Fieldset>(
  context: EngineContext,
  view: ProjectView,
  row: ProjectRow,
  relations: ProjectRelations,
  fieldset: Shown,
): ProjectJsonByFieldset[Shown] {
  const attributes = parseAttributes(row.attributes);
  const projectPath = apiPaths.project(row.org_id, row.id);
  const url = absoluteUrl(context, projectPath);

  // The stored fields, then the columns over them (same keys keep their place):
  // one entry per field of the tables the schema is built from.
  const stored: Record<string, unknown> = {};
  for (const [field, spec] of ATTRIBUTE_FIELDS) {
    if (!showsField(fieldset, field)) continue;
    stored[field] = field in attributes ? attributes[field] : copyDefault(spec.default);
  }
  // The hosted service's names of three of them, with the same values (facts section 15).
  for (const [hosted, ours] of Object.entries(HOSTED_FIELD_NAMES)) {
    if (showsField(fieldset, hosted)) stored[hosted] = stored[ours];
  }
  if (showsField(fieldset, 'customer_proposal_data')) {
    const logins = relations.contactLogins;
    const contacts = (relations.contacts.get(row.id) ?? []).map((contact) => ({ email: contact.email, hasLogin: logins.has(contact.id) }));
    stored.customer_proposal_data = customerProposalData(contacts, 'systems' in attributes ? attributes.systems : []);
  }
  const columns: Record<string, unknown> = {};
  for (const field of COLUMN_FIELDS) columns[field] = fromColumnValue(field, row[field]);

  const mainRoleId = row.assigned_role_id;
  const contacts = relations.contacts.get(row.id) ?? [];
  const events = relations.events.get(row.id) ?? [];
  const stage = relations.workflows.stagesById.get(row.active_stage_id);
  const workflow = { id: row.id, workflow_id: row.workflow_id, active_stage_id: row.active_stage_id };
  const usage = row.usage === null ? null : (JSON.parse(row.usage) as Usage);

  // The stored fields and columns first, then the rest assigned over them: the same
  // keys in the same order as one literal spreading `stored` and `columns` would
  // give, but one such literal of ~150 keys was 8 times slower to build in V8
  // (docs/benchmarks.md, issue 18).
  const base = Object.assign(stored, columns) as Pick<ProjectDetailJson, AttributeField | HostedFieldName | 'customer_proposal_data' | ColumnField>;
  const rest = {
    id: row.id,
    url,
    org_id: row.org_id,
    org: absoluteUrl(context, apiPaths.org(row.org_id)),
    org_name: view.orgName,
    country: countryUrl(context, row.country_iso2),
    country_name: showsField(fieldset, 'country_name') ? countryName(row.country_iso2) : '',
    roof_type: row.roof_type_id === null ? null : absoluteUrl(context, apiPaths.roofType(row.roof_type_id)),
    created_date: row.created_date,
    modified_date: row.modified_date,
    // An HMAC per row: only where the fieldset shows it (the others drop the blank). A
    // connected org gets a link of its own, which dies with its sharing (share-token.ts).
    share_link: showsField(fieldset, 'share_link') ? shareLink(context, row.id, row.share_link_generation, { partnerOrgId: view.partner?.orgId }) : '',
    ...roleFieldsJson(context, view, row, relations),
    assigned_role_accreditation: (mainRoleId !== null && relations.roles.get(mainRoleId)?.accreditation) || '',
    contacts: contacts.map((contact) => absoluteUrl(context, apiPaths.contact(contact.org_id, contact.id))),
    contacts_data: contacts.map((contact) => serializeContact(context, contact)),
    ...projectFilesJson(context, relations.files.get(row.id) ?? [], view.fileViewer),
    events: events.map((event) => absoluteUrl(context, apiPaths.event(event.org_id, event.id))),
    events_data: events.map((event) => serializeEvent(context, event)),
    workflow,
    workflows: [workflow],
    active_stage_id: row.active_stage_id,
    stage: stage?.milestone ?? 0,
    stage_warning: STAGE_WARNING,
    usage,
    usage_annual_or_guess: annualUsageOrGuess(usage, row.is_residential === 1, usageTariffOf(attributes.utility_tariff_current_data)),
    // Stored systems keep their place among the stored fields; their own URLs become absolute.
    systems: ((stored.systems as Array<Record<string, unknown>> | undefined) ?? []).map((system) => ({
      ...system,
      url: typeof system.url === 'string' && system.url.startsWith('/') ? absoluteUrl(context, system.url) : system.url,
    })),
    design: view.includeDesign ? row.design : null,
    shared_with: sharedWithJson(context, row.org_id, relations.shares.get(row.id) ?? [], view.partner?.orgId),
  } satisfies Partial<ProjectDetailJson>;
  const json: ProjectDetailJson = Object.assign(base, rest);
  if (view.partner) narrowForPartner(json, view.partner.permissions.get(row.id) ?? null);
  return pickFieldset(json, fieldset);
}

/**
 * What a connected org may see of a project shared to it, by the permissions role
 * in force (docs/access.md "Teams"): contacts (info_contact_info_basic: names
 * only; info_contact_info_full: everything), private files (info_documents), the
 * design, systems and share link (design), notes and activity (manage_notes_activities_actions),
 * the assigned people (manage_assigned_users). No role: nothing is narrowed.
 */
function narrowForPartner(json: ProjectDetailJson, permissions: ProjectPermissions | null): void {
  if (permissions === null) return;
  const record = json as unknown as Record<string, unknown>;
  const full = partnerMayView(permissions, 'info_contact_info_full');
  if (!full) {
    if (partnerMayView(permissions, 'info_contact_info_basic')) {
      record.contacts_data = json.contacts_data.map((contact) => ({ id: contact.id, url: contact.url, first_name: contact.first_name, family_name: contact.family_name }));
    } else {
      record.contacts = [];
      record.contacts_data = [];
    }
  }
  if (!partnerMayView(permissions, 'info_documents')) {
    record.private_files = [];
    record.private_files_data = [];
  }
  if (!partnerMayView(permissions, 'design')) {
    record.design = null;
    record.systems = [];
    // The share link's page shows the systems and their prices (issue 25, item 5).
    record.share_link = '';
  }
  if (!partnerMayView(permissions, 'manage_notes_activities_actions')) {
    record.events = [];
    record.events_data = [];
  }
  if (!partnerMayView(permissions, 'manage_assigned_users')) {
    for (const field of ROLE_FIELDS) record[field] = field === 'assigned_role_accreditation' ? '' : null;
  }
}

function pickFieldset<Shown extends Fieldset>(json: ProjectDetailJson, fieldset: Shown): ProjectJsonByFieldset[Shown] {
  if (fieldset === 'detail') return json as ProjectJsonByFieldset[Shown];
  // The list and studio schemas are built from these same field lists, in this order.
  const fields: readonly ProjectField[] = fieldset === 'list' ? LIST_FIELDSET : STUDIO_FIELDSET;
  const picked: Record<string, unknown> = {};
  for (const field of fields) picked[field] = json[field];
  return picked as ProjectJsonByFieldset[Shown];
}
