// Which of the engine's columns hold record ids, and of what (docs/tables.md
// "Record ids"): declared beside the tables (tables.ts) so that the one re-key
// (main/sync/record-ids.ts) moves every reference to a record made offline when it
// takes the remote's id, and a column added without a declaration fails the schema
// test (main/sync/tests/record-id-columns.test.ts).
import type { IdColumnMeaning, IdColumns } from './table-ownership.ts';
import type { EngineTables } from './tables.ts';

/** Ids no computer makes offline: the remote's, pulled as they are. */
const REMOTE_ONLY: IdColumnMeaning = { notFollowed: 'made only by the remote (or the server itself), never offline here' };
/** Ids of what this store makes for itself and never sends as a record. */
const LOCAL_ONLY: IdColumnMeaning = { notFollowed: 'a local row of the store, never sent to the remote as a record' };
/** A tag: the catalogue's, the remote's, or one made on a replica, which sync moves to the remote's tag of its title. */
const TAG_MADE_HERE: IdColumnMeaning = { notFollowed: 'a file tag: made here offline, it becomes the remote tag of its title (main/sync/replica-tags.ts), not a re-keyed record' };
/** A log, kept as it was written: a change seen under a provisional id stays the change it was. */
const LOG: IdColumnMeaning = { notFollowed: 'a log of changes as they were made (the replica records no webhook work)' };

export const ENGINE_ID_COLUMNS: IdColumns<EngineTables> = {
  orgs: { id: REMOTE_ONLY },
  users: { id: REMOTE_ONLY },
  roles: { id: REMOTE_ONLY, org_id: REMOTE_ONLY, user_id: REMOTE_ONLY, external_calendar_id: { notFollowed: 'a calendar of another service' } },
  tokens: { id: LOCAL_ONLY, user_id: REMOTE_ONLY },
  calendar_feeds: { id: LOCAL_ONLY, user_id: REMOTE_ONLY, org_id: REMOTE_ONLY },
  workflows: { id: REMOTE_ONLY, org_id: REMOTE_ONLY },
  workflow_stages: { id: REMOTE_ONLY, workflow_id: REMOTE_ONLY },
  workflow_actions: { id: REMOTE_ONLY, stage_id: REMOTE_ONLY },
  projects: {
    id: 'project',
    org_id: REMOTE_ONLY,
    roof_type_id: REMOTE_ONLY,
    workflow_id: REMOTE_ONLY,
    active_stage_id: REMOTE_ONLY,
    assigned_role_id: REMOTE_ONLY,
    assigned_installer_role_id: REMOTE_ONLY,
    assigned_site_inspector_role_id: REMOTE_ONLY,
    assigned_designer_role_id: REMOTE_ONLY,
    assigned_salesperson_role_id: REMOTE_ONLY,
  },
  contacts: { id: 'contact', org_id: REMOTE_ONLY, user_id: REMOTE_ONLY, created_by_user_id: REMOTE_ONLY },
  project_contacts: { project_id: 'project', contact_id: 'contact' },
  events: {
    id: 'event',
    org_id: REMOTE_ONLY,
    project_id: 'project',
    user_id: REMOTE_ONLY,
    event_type_id: { notFollowed: 'a kind of event (shared/event-types.ts), not a record' },
    contact_id: 'contact',
    team_member_role_ids: REMOTE_ONLY,
  },
  webhooks: { id: 'webhook', org_id: REMOTE_ONLY },
  private_files: { id: 'private_file', org_id: REMOTE_ONLY, project_id: 'project', user_id: REMOTE_ONLY, upload_id: LOCAL_ONLY },
  private_file_versions: { id: LOCAL_ONLY, file_id: 'private_file', org_id: REMOTE_ONLY, replaced_by_user_id: REMOTE_ONLY },
  // A tag made on a replica has a provisional id until sync makes it on the remote, and then moves to the remote's id by title, not by a record's re-key (main/sync/replica-tags.ts).
  private_file_tags: { file_id: 'private_file', tag_id: TAG_MADE_HERE },
  file_tags: { id: TAG_MADE_HERE, org_id: REMOTE_ONLY },
  file_uploads: { id: LOCAL_ONLY, org_id: REMOTE_ONLY, user_id: REMOTE_ONLY, project_id: 'project', completed_file_id: 'private_file' },
  file_upload_parts: { upload_id: LOCAL_ONLY },
  // A template's logo is one of the org's files, which may be one made offline.
  document_templates: { id: LOCAL_ONLY, org_id: REMOTE_ONLY, logo_file_id: 'private_file' },
  connected_orgs: { id: REMOTE_ONLY, org_id: REMOTE_ONLY, org_to_id: REMOTE_ONLY, permission_role_id: REMOTE_ONLY, requested_by_user_id: REMOTE_ONLY },
  permissions_roles: { id: REMOTE_ONLY, org_id: REMOTE_ONLY },
  project_shares: { project_id: 'project', org_id: REMOTE_ONLY, permission_role_id: REMOTE_ONLY },
  // Pricing schemes, costings, adders... (shared/schemas/sharing.ts): none is a synced record.
  entity_shares: { org_id: REMOTE_ONLY, entity_id: REMOTE_ONLY, shared_org_id: REMOTE_ONLY },
  change_log: { id: LOCAL_ONLY, org_id: REMOTE_ONLY, record_id: LOG, project_id: LOG },
  webhook_changes: { id: LOCAL_ONLY, org_id: REMOTE_ONLY, model_id: LOG },
  // A queued delivery keeps pointing at its webhook (its foreign key): none is queued in a replica.
  webhook_deliveries: { id: LOCAL_ONLY, webhook_id: 'webhook', change_id: LOCAL_ONLY },
  webhook_process_logs: { id: LOCAL_ONLY, org_id: REMOTE_ONLY, webhook_id: LOG, delivery_id: LOCAL_ONLY, event_id: LOG, model_pk: LOG },
};
