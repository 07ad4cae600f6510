// Row types of the engine's tables, as Kysely sees them, and EngineTables, which
// composes them with those of events, webhooks and throttles (event-tables.ts) and
// of private files (file-tables.ts). Booleans are stored as 0/1 and timestamps as
// ISO 8601 UTC text in both dialects, so the same queries, the same ordering and
// the same serializers work on SQLite and on PostgreSQL.
// Each part owns its tables (docs/tables.md): sync's are in main/sync/sync-tables.ts,
// the watcher's in main/watch/watch-tables.ts, the core's in main/core/core-tables.ts.
// They add themselves to `Database`, so the one store holds them all while the engine
// imports none of them.
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { TableOwnership } from './table-ownership.ts';
import type { Flag } from './portable-columns.ts';
import type {
  ChangeLogTable,
  EventsTable,
  ThrottleBucketsTable,
  WebhookChangesTable,
  WebhookDeliveriesTable,
  WebhookProcessLogsTable,
  WebhooksTable,
} from './event-tables.ts';
import type {
  DocumentTemplatesTable,
  FileTagsTable,
  FileUploadPartsTable,
  FileUploadsTable,
  PrivateFilesTable,
  PrivateFileTagsTable,
  PrivateFileVersionsTable,
} from './file-tables.ts';

export interface OrgsTable {
  id: Generated<number>;
  name: string;
  api_plan: string | null;
  plan_starts_on: string | null;
  plan_ends_on: string | null;
  plan_is_trial: Flag;
  created_date: string;
}

export interface UsersTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  first_name: string;
  family_name: string;
  phone: string;
  is_machine_user: Flag;
  is_staff: Flag;
  created_date: string;
}

/** A role is a person's place in an org (service.md 2.1 "Role record"), with their permissions. */
export interface RolesTable {
  id: Generated<number>;
  org_id: number;
  user_id: number | null;
  email: string;
  first_name: string;
  family_name: string;
  job_title: string;
  accreditation: string;
  phone: string;
  is_admin: Flag;
  is_hidden: Flag;
  allow_email_notifications: Flag;
  has_logged_in: Flag;
  external_calendar_id: string | null;
  schedule_meeting_url: string;
  schedule_meeting_label: string;
  /** Pro users may use private files (service.md 5.2). */
  is_pro: Flag;
  /** Sees every project of the org; otherwise only those where this role is assigned. */
  sees_all_projects: Flag;
  /** The org-wide files permission (service.md 5.3). */
  can_access_all_files: Flag;
  /** The `projects_export` permission. */
  can_export_projects: Flag;
  created_date: string;
  modified_date: string;
}

export interface TokensTable {
  id: Generated<number>;
  user_id: number;
  /** sha256 of the token: a leaked database does not leak usable tokens. */
  token_hash: string;
  created_date: string;
  expires_at: string;
}

export interface WorkflowsTable {
  id: Generated<number>;
  org_id: number;
  title: string;
  is_default: Flag;
  /** Migration 0014 (issue 16): the hosted record's description, archived flag and dates. */
  description: Generated<string>;
  is_archived: Generated<Flag>;
  created_date: string;
  modified_date: string;
}

export interface WorkflowStagesTable {
  id: Generated<number>;
  workflow_id: number;
  title: string;
  milestone: number;
  /** The API's `order`. */
  position: number;
  is_archived: Generated<Flag>;
}

/** A stage's actions (migration 0014): the steps a project at that stage goes through. */
export interface WorkflowActionsTable {
  id: Generated<number>;
  stage_id: number;
  title: string;
  position: number;
}

export interface ProjectsTable {
  id: Generated<number>;
  org_id: number;
  title: string;
  /** shared/natural-sort.ts naturalSortKey(title): what `ordering=title` sorts by (migration 0012). */
  title_sort: string;
  identifier: string;
  address: string;
  locality: string;
  state: string;
  zip: string;
  country_iso2: string;
  lat: number | null;
  lon: number | null;
  business_name: string | null;
  priority: number;
  is_residential: Flag;
  is_lite: Flag;
  roof_type_id: number | null;
  workflow_id: number;
  active_stage_id: number;
  assigned_role_id: number | null;
  assigned_installer_role_id: number | null;
  assigned_site_inspector_role_id: number | null;
  assigned_designer_role_id: number | null;
  assigned_salesperson_role_id: number | null;
  /** JSON {usage_data_source, values} or null. */
  usage: string | null;
  /** base64(gzip(JSON)); see shared/design-codec.ts. */
  design: string | null;
  /** JSON object of every other stored field (shared/project-fields.ts). */
  attributes: string;
  created_date: string;
  modified_date: string;
  /** How many times the owner revoked the project's share links (migration 0022): part of every link's token. */
  share_link_generation: Generated<number>;
}

export interface ContactsTable {
  id: Generated<number>;
  org_id: number;
  first_name: string;
  family_name: string;
  email: string;
  phone: string;
  passport_number: string;
  licence_number: string;
  custom_contact_info_1: string;
  custom_contact_info_2: string;
  identifier: string;
  user_id: number | null;
  type: number;
  date_of_birth: string | null;
  gender: number;
  created_date: string;
  modified_date: string;
  /** Who made the contact on this instance (null for older and replicated contacts): they keep seeing it (docs/access.md). */
  created_by_user_id: number | null;
}

export interface ProjectContactsTable {
  project_id: number;
  contact_id: number;
  position: number;
}

/** Small server-wide values (for example the secret that signs share links). */
export interface SettingsTable {
  key: string;
  value: string;
}

/**
 * One side of a connection between two orgs (migration 0015, facts section 4): the
 * row of org_id, whose partner is org_to_id. The other side has its own row.
 */
export interface ConnectedOrgsTable {
  id: Generated<number>;
  org_id: number;
  org_to_id: number;
  /** This side has the connection enabled: sharing pauses both ways while either side is not. */
  is_active: Flag;
  /** This side agreed: the asking side at once, the asked side when it accepts. */
  accepted: Flag;
  /** The permissions role used by default when this org shares a project to the partner. */
  permission_role_id: number | null;
  /** JSON array of role ids of this org told when the partner shares a project here. */
  notify_roles: string;
  requested_by_user_id: number | null;
  created_date: string;
  modified_date: string;
}

/** A partner permissions role (role_type 1) or a custom role (0) of an org (facts section 11). */
export interface PermissionsRolesTable {
  id: Generated<number>;
  org_id: number;
  role_type: number;
  title: string;
  /** The JSON text {"project": {<area>: {view, create, edit, delete}}}. */
  permissions: string;
  /** permissions.project.project.view: 0 hides the projects shared with this role entirely. */
  project_view: Flag;
  created_date: string;
  modified_date: string;
}

/** One entry of a project's `shared_with`: the project shown to org_id (a partner). */
export interface ProjectSharesTable {
  project_id: number;
  org_id: number;
  permission_role_id: number | null;
  is_shared: Flag;
  /** The entry's place in `shared_with`. */
  position: number;
  created_date: string;
  modified_date: string;
}

/** An org entity (pricing scheme, action...) shared to a connected org by the bulk route. */
export interface EntitySharesTable {
  org_id: number;
  entity_type: string;
  entity_id: number;
  shared_org_id: number;
  created_date: string;
}

/** A person's schedule feed in one org (migration 0025): only the hash of its URL's secret is kept. */
export interface CalendarFeedsTable {
  id: Generated<number>;
  user_id: number;
  org_id: number;
  /** SHA-256 (hex) of the secret in the feed's URL. */
  secret_hash: string;
  created_date: string;
}

/** The engine's own tables. */
export interface EngineTables {
  events: EventsTable;
  calendar_feeds: CalendarFeedsTable;
  webhooks: WebhooksTable;
  webhook_changes: WebhookChangesTable;
  change_log: ChangeLogTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_process_logs: WebhookProcessLogsTable;
  throttle_buckets: ThrottleBucketsTable;
  orgs: OrgsTable;
  users: UsersTable;
  roles: RolesTable;
  tokens: TokensTable;
  workflows: WorkflowsTable;
  workflow_stages: WorkflowStagesTable;
  workflow_actions: WorkflowActionsTable;
  projects: ProjectsTable;
  contacts: ContactsTable;
  project_contacts: ProjectContactsTable;
  settings: SettingsTable;
  private_files: PrivateFilesTable;
  document_templates: DocumentTemplatesTable;
  private_file_versions: PrivateFileVersionsTable;
  file_tags: FileTagsTable;
  private_file_tags: PrivateFileTagsTable;
  file_uploads: FileUploadsTable;
  file_upload_parts: FileUploadPartsTable;
  connected_orgs: ConnectedOrgsTable;
  permissions_roles: PermissionsRolesTable;
  project_shares: ProjectSharesTable;
  entity_shares: EntitySharesTable;
}


/**
 * Every table of the store. The parts above the engine add theirs with a module
 * augmentation of this interface (main/sync/sync-tables.ts, main/watch/watch-tables.ts,
 * main/core/core-tables.ts); lint keeps each part's queries on its own tables.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the parts' augmentations
export interface Database extends EngineTables {}

/** The engine's tables and the migrations that made them (docs/tables.md). */
export const ENGINE_TABLES: TableOwnership<EngineTables> = {
  part: 'engine',
  tables: {
    orgs: true,
    users: true,
    roles: true,
    tokens: true,
    workflows: true,
    workflow_stages: true,
    workflow_actions: true,
    projects: true,
    contacts: true,
    project_contacts: true,
    settings: true,
    private_files: true,
    document_templates: true,
    private_file_versions: true,
    file_tags: true,
    private_file_tags: true,
    file_uploads: true,
    file_upload_parts: true,
    connected_orgs: true,
    permissions_roles: true,
    project_shares: true,
    entity_shares: true,
    events: true,
    calendar_feeds: true,
    webhooks: true,
    webhook_changes: true,
    change_log: true,
    webhook_deliveries: true,
    webhook_process_logs: true,
    throttle_buckets: true,
  },
  migrations: [
    '0001-core',
    '0002-files',
    '0003-webhooks-events-throttles',
    '0006-scale-out',
    '0007-contact-creator',
    '0008-private-file-versions',
    '0009-throttle-admit',
    '0010-write-generations',
    '0011-change-log',
    '0012-title-sort',
    '0014-workflows',
    '0015-teams',
    '0016-catalogues',
    '0017-event-types-identifiers',
    '0018-webhook-log-queue',
    '0020-designed-projects',
    '0022-share-link-generation',
    '0024-event-schedule',
    '0025-calendar-feeds',
    '0026-document-templates',
    '0028-upload-document-fields',
  ],
};

export type OrgRow = Selectable<OrgsTable>;
export type UserRow = Selectable<UsersTable>;
export type RoleRow = Selectable<RolesTable>;
export type NewRole = Insertable<RolesTable>;
export type RoleUpdate = Updateable<RolesTable>;
export type ProjectRow = Selectable<ProjectsTable>;
export type NewProject = Insertable<ProjectsTable>;
export type ProjectUpdate = Updateable<ProjectsTable>;
export type ContactRow = Selectable<ContactsTable>;
export type NewContact = Insertable<ContactsTable>;
export type WorkflowRow = Selectable<WorkflowsTable>;
export type StageRow = Selectable<WorkflowStagesTable>;
export type WorkflowActionRow = Selectable<WorkflowActionsTable>;
export type DocumentTemplateRow = Selectable<DocumentTemplatesTable>;
export type PrivateFileRow = Selectable<PrivateFilesTable>;
export type NewPrivateFile = Insertable<PrivateFilesTable>;
export type PrivateFileVersionRow = Selectable<PrivateFileVersionsTable>;
export type FileTagRow = Selectable<FileTagsTable>;
export type FileUploadRow = Selectable<FileUploadsTable>;
export type FileUploadPartRow = Selectable<FileUploadPartsTable>;
export type ConnectedOrgRow = Selectable<ConnectedOrgsTable>;
export type PermissionsRoleRow = Selectable<PermissionsRolesTable>;
export type ProjectShareRow = Selectable<ProjectSharesTable>;
export type EventRow = Selectable<EventsTable>;
export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
