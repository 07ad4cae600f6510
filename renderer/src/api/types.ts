// The JSON shapes the renderer reads from the local API (service.md 2), as far as
// it reads them. Fields it only passes through stay `unknown`.
import type { PrivateFileJson } from '../../../shared/schemas/private-file.ts';
import type { Usage } from '../../../shared/usage.ts';

export type { PrivateFileJson };

export interface ContactJson {
  id: number;
  url: string;
  first_name: string;
  family_name: string;
  display: string;
  email: string;
  phone: string;
  [field: string]: unknown;
}

export interface WorkflowRef {
  id?: number;
  workflow_id: number;
  active_stage_id: number;
}

/** A row of the project list (fieldset=studio). */
export interface ProjectSummary {
  id: number;
  url: string;
  title: string;
  identifier: string;
  address: string;
  locality: string;
  state: string;
  zip: string;
  contacts_data: ContactJson[];
  stage: number;
  active_stage_id: number | null;
  workflow: WorkflowRef | null;
  modified_date: string;
  created_date: string;
  priority: number;
  assigned_role_name?: string | null;
}

export interface RoleData {
  id: number;
  url: string;
  display: string;
  email: string;
  job_title: string;
  [field: string]: unknown;
}

/** One project with every field (GET /projects/<id>/). */
export interface ProjectJson extends ProjectSummary {
  org_id: number;
  country_iso2: string;
  roof_type: string | null;
  contacts: string[];
  usage: Usage | null;
  usage_annual_or_guess: number;
  design?: string | null;
  private_files: string[];
  assigned_role: string | null;
  assigned_installer_role: string | null;
  assigned_site_inspector_role: string | null;
  assigned_designer_role_data?: RoleData | null;
  assigned_salesperson_role_data?: RoleData | null;
  [field: string]: unknown;
}

export interface WorkflowStage {
  id: number;
  title: string;
  milestone: number;
  position: number;
}

export interface WorkflowJson {
  id: number;
  title: string;
  is_default: boolean;
  stages: WorkflowStage[];
}

export interface OrgJson {
  id: number;
  name: string;
  api_plan: string;
  api_plan_title: string;
  includes_design_data: boolean;
}

export interface EventJson {
  id: number;
  title: string;
  notes: string;
  event_type: string;
  created_date: string;
  [field: string]: unknown;
}

export interface WebhookJson {
  id: number;
  url: string;
  endpoint: string;
  enabled: boolean;
  debug: boolean;
  trigger_fields: string[] | null;
  payload_fields: string[] | null;
  headers: string | null;
  created_date: string;
  modified_date: string;
}

export interface WebhookLogJson {
  id: number;
  webhook: string;
  created_date: string;
  successful: boolean;
  model_name: string;
  model_pk: number;
  event_name: string;
  notes: string;
  attempt: number;
}
