// Row types of every table, as Kysely sees them. Booleans are stored as 0/1 and
// timestamps as ISO 8601 UTC text in both dialects, so the same queries, the same
// ordering and the same serializers work on SQLite and on PostgreSQL.
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

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
}

export interface WorkflowStagesTable {
  id: Generated<number>;
  workflow_id: number;
  title: string;
  milestone: number;
  position: number;
}

export interface ProjectsTable {
  id: Generated<number>;
  org_id: number;
  title: string;
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

export interface Database {
  orgs: OrgsTable;
  users: UsersTable;
  roles: RolesTable;
  tokens: TokensTable;
  workflows: WorkflowsTable;
  workflow_stages: WorkflowStagesTable;
  projects: ProjectsTable;
  contacts: ContactsTable;
  project_contacts: ProjectContactsTable;
  settings: SettingsTable;
}

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
