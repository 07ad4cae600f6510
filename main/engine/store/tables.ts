// Row types of the engine's tables, as Kysely sees them. Booleans are stored as 0/1
// and timestamps as ISO 8601 UTC text in both dialects, so the same queries, the same
// ordering and the same serializers work on SQLite and on PostgreSQL.
// Each part owns its tables (docs/tables.md): sync's are in main/sync/sync-tables.ts,
// the watcher's in main/watch/watch-tables.ts, the core's in main/core/core-tables.ts.
// They add themselves to `Database`, so the one store holds them all while the engine
// imports none of them.
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { TableOwnership } from './table-ownership.ts';

/** 0 or 1: the portable boolean column. */
export type Flag = 0 | 1;

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

/** Activity on a project (created, stage changed, file added...) or a note a user added. */
export interface EventsTable {
  id: Generated<number>;
  org_id: number;
  project_id: number | null;
  event_type: string;
  /** The hosted kind (shared/event-types.ts, migration 0017). */
  event_type_id: Generated<number>;
  /** The contact an activity event is about (contact_added, contact_removed), or null. */
  contact_id: number | null;
  title: string;
  notes: string;
  user_id: number | null;
  created_date: string;
  modified_date: string;
  // The schedule (migration 0024): ISO 8601 UTC text, or null for an event with no time.
  starts_at: Generated<string | null>;
  ends_at: Generated<string | null>;
  duration_seconds: Generated<number | null>;
  is_complete: Generated<Flag>;
  completion_date: Generated<string | null>;
  is_archived: Generated<Flag>;
  task_status: Generated<number | null>;
  /** JSON array of the org's role ids: the event's `team_members`. */
  team_member_role_ids: Generated<string>;
  /** The client's `repeat` as JSON text, or null. */
  repeat_json: Generated<string | null>;
  location_override: Generated<string | null>;
}

export interface WebhooksTable {
  id: Generated<number>;
  org_id: number;
  endpoint: string;
  enabled: Flag;
  debug: Flag;
  /** JSON array of paths, or null. */
  trigger_fields: string | null;
  payload_fields: string | null;
  /** The JSON-encoded header object, as the client sent it. */
  headers: string | null;
  created_date: string;
  modified_date: string;
}

export interface WebhookChangesTable {
  id: Generated<number>;
  org_id: number;
  model: string;
  model_id: number;
  event: string;
  occurred_at: string;
}

/** One record a committed write changed (migration 0011): what the change feed lists. */
export interface ChangeLogTable {
  /** The cursor: rows of one org are numbered in commit order (writes to an org are serialised). */
  id: Generated<number>;
  org_id: number;
  model: string;
  record_id: number;
  op: string;
  project_id: number | null;
  modified_date: string;
  logged_at: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: number;
  change_id: number;
  /** The exact JSON body to POST, fixed when the change was captured. */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  first_attempt_at: string | null;
  last_error: string | null;
  created_date: string;
  finished_at: string | null;
  /** The process whose worker is delivering it now (its claim), and until when the claim holds. */
  claimed_by: string | null;
  claimed_until: string | null;
  /** When the worker holding the claim took it (migration 0018); null while no worker holds it. The queue's `processing_started_at`. */
  processing_started_at: string | null;
}

export interface WebhookProcessLogsTable {
  id: Generated<number>;
  org_id: number;
  webhook_id: number;
  delivery_id: number;
  attempt: number;
  created_date: string;
  successful: Flag;
  model_name: string;
  model_pk: number;
  event_id: number;
  event_name: string;
  event_timestamp: string;
  notes: string;
}

export interface ThrottleBucketsTable {
  scope_key: string;
  /** Epoch milliseconds at which this bucket's slice of the window starts. */
  bucket_start: number;
  hits: number;
}

/** A private file (service.md 2.2); its bytes are the blob named by file_hash (docs/files.md). */
export interface PrivateFilesTable {
  id: Generated<number>;
  org_id: number;
  project_id: number | null;
  /** Who created it: the "files they created" access rule (service.md 5.3). */
  user_id: number;
  title: string;
  /** The uploaded file's own name: Content-Disposition and Content-Type come from it. */
  file_name: string;
  mime_type: string;
  filesize: number | null;
  /** sha256 hex of the contents, which is also the blob's name. */
  file_hash: string | null;
  system_uuid: string | null;
  /** JSON text or null. */
  input_data: string | null;
  input_data_hash: string;
  status: string | null;
  status_message: string | null;
  show_customer: Flag;
  temporary: Flag;
  /** '' unless the file came from a chunked upload. */
  upload_id: string;
  /** JSON array of {part, size, etag}. */
  parts: string;
  completed_on: string | null;
  created_date: string;
  modified_date: string;
}

/** An org's layout and words for one document type (migration 0026, docs/documents.md "Templates"). */
export interface DocumentTemplatesTable {
  id: Generated<number>;
  org_id: number;
  /** shared/documents.ts DocumentType; one template per type and org. */
  document_type: string;
  title: string;
  /** The org's name as the documents print it ('' : the org's own name). */
  org_display_name: string;
  /** An image private file of the org, printed at the top of each first page. */
  logo_file_id: number | null;
  /** #rrggbb: headings and the chart's bars. */
  primary_colour: string;
  /** #rrggbb: the running total line and rules. */
  accent_colour: string;
  intro_text: string;
  terms_text: string;
  created_date: string;
  modified_date: string;
}

/** Earlier contents of a private file, kept on this computer (migration 0008, docs/files.md "Versions"). */
export interface PrivateFileVersionsTable {
  id: Generated<number>;
  file_id: number;
  org_id: number;
  /** sha256 hex of those contents: the blob's name, as in private_files.file_hash. */
  file_hash: string;
  filesize: number;
  mime_type: string;
  file_name: string;
  /** When these contents were replaced (ISO). */
  replaced_at: string;
  /** Who replaced them; null for sync or a user since deleted. */
  replaced_by_user_id: number | null;
}

export interface FileTagsTable {
  id: Generated<number>;
  /** Null for a tag of the shared catalogue (shared/file-tags.ts); else the org that made it (migration 0016). */
  org_id: number | null;
  title: string;
  type: string;
  created_date: string;
}

export interface PrivateFileTagsTable {
  file_id: number;
  tag_id: number;
}

/** A chunked upload in progress; its parts are files under DATA/uploads/<id>/ until completed or expired. */
export interface FileUploadsTable {
  /** Random hex: the upload_id clients use in paths. */
  id: string;
  org_id: number;
  user_id: number;
  project_id: number | null;
  title: string;
  file_name: string;
  declared_size: number | null;
  /** Set on completion, so a repeated complete answers with the same file. */
  completed_file_id: number | null;
  created_date: string;
  expires_at: string;
}

export interface FileUploadPartsTable {
  upload_id: string;
  part_number: number;
  size: number;
  /** sha256 hex of the part's bytes. */
  etag: string;
  created_date: string;
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
