// Writes what the remote says into the local replica, bypassing the outbox (a
// pulled change must not be pushed back), and re-keys records created offline
// once the remote gives them their real ids.
import { eventTypeIdOf, eventTypeNameOf } from '../../shared/event-types.ts';
import { sql, type Transaction } from 'kysely';
import type { Database, EventRow, ProjectUpdate } from '../engine/store/tables.ts';
import { COLUMN_FIELD_SET, ROLE_COLUMNS, parseAttributes, withTitleSort } from '../engine/projects/project-columns.ts';
import { naturalSortKey } from '../../shared/natural-sort.ts';
import { HOSTED_FIELD_NAMES, ROLE_REFERENCE_FIELDS, STORED_READ_ONLY_FIELDS, WRITABLE_PLAIN_FIELDS } from '../../shared/project-fields.ts';
import { parseCountryReference } from '../../shared/countries.ts';
import { parseOrgReference, parseRoofTypeReference, parseUserReference } from '../../shared/api-paths.ts';
import { CLIENT_OP_KEY, type RecordView, type SyncedModel, isProvisional, viewOf } from './sync-models.ts';
import { setFileTags } from '../engine/files/file-tags.ts';
import { upsertFileTags } from './replica-tags.ts';
import { contactRowValues } from '../engine/contacts/contacts.ts';
import type { ContactWrite } from '../../shared/schemas/contact-write.ts';
import { contentTypeFor } from '../engine/files/file-types.ts';
import type {
  RemoteContact,
  RemoteEvent,
  RemotePrivateFile,
  RemoteProject,
  RemoteRecord,
  RemoteRole,
  RemoteWebhook,
  RemoteWorkflow,
} from './remote-records.ts';
import type { SyncContext } from './sync-context.ts';
import type { SharingOrg } from './record-orgs.ts';
import { hasQueuedChanges } from './outbox.ts';
import { rememberContentsLink } from './contents-policy.ts';
import { deleteReplicaRecord } from './replica-removal.ts';
import type { Clock } from '../engine/clock.ts';

type Trx = Transaction<Database>;
const EPOCH = new Date(0).toISOString();
/** A date the API's schema does not name (a role's, a tag's): the hosted service may send it. */
const unnamedDate = (value: unknown): string => (typeof value === 'string' ? value : EPOCH);

// The core's local work finds a re-keyed record's id through here.
export { currentIdOf } from './record-ids.ts';

const flag = (value: unknown): 0 | 1 => (value ? 1 : 0);

/**
 * The remote's workflows as it lists them (hosted-docs-facts.md 3): stages in
 * `workflow_stages` with their `order` and actions. Within a listed workflow, the
 * stages and actions the remote no longer sends go; a stage a replica project
 * still points at is kept, archived, until the project's own pull moves it.
 * `complete`: the list was read to its end, so a workflow it lacks is gone too.
 */
export async function upsertWorkflows(trx: Trx, orgId: number, workflows: RemoteWorkflow[], complete = false): Promise<void> {
  const stageInUse = async (stageId: number) =>
    (await trx.selectFrom('projects').select('id').where('active_stage_id', '=', stageId).limit(1).executeTakeFirst()) !== undefined;
  const removeStage = async (stageId: number) => {
    await trx.deleteFrom('workflow_actions').where('stage_id', '=', stageId).execute();
    if (await stageInUse(stageId)) await trx.updateTable('workflow_stages').set({ is_archived: 1 }).where('id', '=', stageId).execute();
    else await trx.deleteFrom('workflow_stages').where('id', '=', stageId).execute();
  };
  for (const workflow of workflows) {
    const row = {
      id: workflow.id,
      org_id: orgId,
      title: workflow.title ?? '',
      description: workflow.description ?? '',
      is_default: flag(workflow.is_default),
      is_archived: flag(workflow.is_archived),
      created_date: workflow.created_date ?? '',
      modified_date: workflow.modified_date ?? '',
    };
    await trx.insertInto('workflows').values(row).onConflict((conflict) => conflict.column('id').doUpdateSet(row)).execute();
    const stages = workflow.workflow_stages ?? [];
    const listedStageIds = new Set(stages.map((stage) => stage.id));
    for (const [position, stage] of stages.entries()) {
      const stageRow = {
        id: stage.id,
        workflow_id: workflow.id,
        title: stage.title ?? '',
        milestone: stage.milestone ?? 0,
        position: stage.order ?? position,
        is_archived: flag(stage.is_archived),
      };
      await trx.insertInto('workflow_stages').values(stageRow).onConflict((conflict) => conflict.column('id').doUpdateSet(stageRow)).execute();
      const actions = stage.actions ?? [];
      for (const [actionPosition, action] of actions.entries()) {
        const actionRow = { id: action.id, stage_id: stage.id, title: action.title ?? '', position: actionPosition };
        await trx.insertInto('workflow_actions').values(actionRow).onConflict((conflict) => conflict.column('id').doUpdateSet(actionRow)).execute();
      }
      let gone = trx.deleteFrom('workflow_actions').where('stage_id', '=', stage.id);
      if (actions.length > 0) gone = gone.where('id', 'not in', actions.map((action) => action.id));
      await gone.execute();
    }
    const known = await trx.selectFrom('workflow_stages').select('id').where('workflow_id', '=', workflow.id).execute();
    for (const { id } of known) if (!listedStageIds.has(id)) await removeStage(id);
  }
  if (!complete) return;
  const listedIds = new Set(workflows.map((workflow) => workflow.id));
  const known = await trx.selectFrom('workflows').select('id').where('org_id', '=', orgId).execute();
  for (const { id } of known) {
    if (listedIds.has(id)) continue;
    const inUse = await trx.selectFrom('projects').select('id').where('workflow_id', '=', id).limit(1).executeTakeFirst();
    if (inUse) {
      await trx.updateTable('workflows').set({ is_archived: 1, is_default: 0 }).where('id', '=', id).execute();
      continue;
    }
    for (const stage of await trx.selectFrom('workflow_stages').select('id').where('workflow_id', '=', id).execute()) await removeStage(stage.id);
    await trx.deleteFrom('workflows').where('id', '=', id).execute();
  }
}

export async function upsertRole(trx: Trx, orgId: number, role: RemoteRole, localUserId: number | null): Promise<void> {
  const remoteUserId = parseUserReference(role.user);
  const row = {
    id: role.id,
    org_id: orgId,
    // Only our own user exists in the replica; other roles keep their data without a login.
    user_id: remoteUserId !== null && remoteUserId === localUserId ? localUserId : null,
    email: role.email ?? '',
    first_name: role.first_name ?? '',
    family_name: role.family_name ?? '',
    job_title: role.job_title ?? '',
    accreditation: role.accreditation ?? '',
    phone: role.phone ?? '',
    is_admin: flag(role.is_admin),
    is_hidden: flag(role.is_hidden),
    allow_email_notifications: flag(role.allow_email_notifications ?? true),
    has_logged_in: flag(role.has_logged_in),
    external_calendar_id: role.external_calendar_id ?? role.google_calendar_id ?? null,
    schedule_meeting_url: role.schedule_meeting_url ?? '',
    schedule_meeting_label: role.schedule_meeting_label ?? '',
    created_date: unnamedDate(role.created_date),
    modified_date: unnamedDate(role.modified_date),
  };
  await trx
    .insertInto('roles')
    // What the remote lets us see is all the replica holds, so locally its user sees all of it.
    .values({ ...row, is_pro: 1, sees_all_projects: 1, can_access_all_files: 1, can_export_projects: 1 })
    .onConflict((conflict) => conflict.column('id').doUpdateSet({ ...row, user_id: sql`coalesce(roles.user_id, ${row.user_id})` }))
    .execute();
}

export function contactRow(orgId: number, contact: RemoteContact) {
  // The remote checked its own gender values when it stored them; they are kept as it sent them.
  const values = { ...contact, gender: contact.gender as ContactWrite['gender'] };
  return { ...contactRowValues(orgId, values, contact.created_date ?? EPOCH, contact.modified_date ?? EPOCH), id: contact.id };
}

export async function upsertContact(trx: Trx, orgId: number, contact: RemoteContact, keep: RecordView = {}): Promise<void> {
  const row = { ...contactRow(orgId, contact), ...keep };
  await trx.insertInto('contacts').values(row).onConflict((conflict) => conflict.column('id').doUpdateSet(row)).execute();
}

/**
 * An event's columns from its sync view (sync-models.ts viewOf('event')): a pulled
 * event, local values that must survive a pull, or a settled conflict. Only the
 * fields `view` names are set. A contact the replica does not hold is left out.
 */
export async function eventColumnsOfView(trx: Trx, view: RecordView): Promise<Partial<Omit<EventRow, 'id'>>> {
  const columns: Partial<Omit<EventRow, 'id'>> = {};
  const has = (field: string) => Object.hasOwn(view, field);
  const text = (value: unknown) => (typeof value === 'string' ? value : value === null || value === undefined ? null : String(value));
  if (has('title')) columns.title = text(view.title) ?? '';
  if (has('notes')) columns.notes = text(view.notes) ?? '';
  if (has('event_type') || has('event_type_id')) {
    const typeId = typeof view.event_type_id === 'number' ? view.event_type_id : null;
    // A hosted event names its kind by id only (hosted-docs-facts.md 9); a SolarDesk remote sends both.
    columns.event_type = text(view.event_type) ?? (typeId === null ? 'note' : eventTypeNameOf(typeId));
    columns.event_type_id = typeId ?? eventTypeIdOf(columns.event_type);
  }
  if (has('project_id')) columns.project_id = typeof view.project_id === 'number' ? view.project_id : null;
  if (has('contact')) columns.contact_id = await replicaContactId(trx, view.contact);
  if (has('start')) columns.starts_at = text(view.start);
  if (has('end')) columns.ends_at = text(view.end);
  if (has('duration')) columns.duration_seconds = typeof view.duration === 'number' ? view.duration : null;
  if (has('is_complete')) columns.is_complete = flag(view.is_complete);
  if (has('completion_date')) columns.completion_date = text(view.completion_date);
  if (has('is_archived')) columns.is_archived = flag(view.is_archived);
  if (has('task_status')) columns.task_status = Number.isSafeInteger(Number(view.task_status)) && view.task_status !== null && view.task_status !== '' ? Number(view.task_status) : null;
  if (has('team_members')) columns.team_member_role_ids = JSON.stringify(Array.isArray(view.team_members) ? view.team_members : []);
  if (has('repeat')) columns.repeat_json = view.repeat === null || view.repeat === undefined ? null : JSON.stringify(view.repeat);
  if (has('location_override')) columns.location_override = text(view.location_override);
  return columns;
}

/** The contact an event names (its id), when the replica holds it (a reference to one it lacks is left out). */
async function replicaContactId(trx: Trx, id: unknown): Promise<number | null> {
  if (typeof id !== 'number') return null;
  return (await trx.selectFrom('contacts').select('id').where('id', '=', id).executeTakeFirst()) ? id : null;
}

async function replicaUserId(trx: Trx, reference: unknown): Promise<number | null> {
  const id = parseUserReference(reference);
  if (id === null) return null;
  const user = await trx.selectFrom('users').select('email').where('id', '=', id).executeTakeFirst();
  // A login-less stand-in (a file's creator, ensureUser) has no name to show.
  return user && !user.email.endsWith(STAND_IN_EMAIL_DOMAIN) ? id : null;
}

/** A remote event with every field (issue 27); `keep`: view values of fields with local changes still waiting. */
export async function upsertEvent(trx: Trx, orgId: number, event: RemoteEvent, keep: RecordView = {}): Promise<void> {
  const row = {
    id: event.id,
    org_id: orgId,
    // Only people the replica holds (its own user) can be the event's author here; others show as the remote has none.
    user_id: await replicaUserId(trx, event.user),
    ...(await eventColumnsOfView(trx, { ...viewOf('event', event), ...keep })),
    created_date: event.created_date ?? EPOCH,
    modified_date: event.modified_date ?? EPOCH,
  } satisfies Partial<EventRow>;
  const values = { title: '', notes: '', event_type: 'note', event_type_id: eventTypeIdOf('note'), project_id: null, contact_id: null, ...row };
  await trx.insertInto('events').values(values).onConflict((conflict) => conflict.column('id').doUpdateSet(values)).execute();
}

export async function upsertWebhook(trx: Trx, orgId: number, webhook: RemoteWebhook, keep: RecordView = {}): Promise<void> {
  const merged = { ...webhook, ...keep };
  const row = {
    id: webhook.id,
    org_id: orgId,
    endpoint: merged.endpoint ?? '',
    enabled: flag(merged.enabled),
    debug: flag(merged.debug),
    trigger_fields: merged.trigger_fields == null ? null : JSON.stringify(merged.trigger_fields),
    payload_fields: merged.payload_fields == null ? null : JSON.stringify(merged.payload_fields),
    headers: merged.headers ?? null,
    created_date: webhook.created_date ?? EPOCH,
    modified_date: webhook.modified_date ?? EPOCH,
  };
  await trx.insertInto('webhooks').values(row).onConflict((conflict) => conflict.column('id').doUpdateSet(row)).execute();
}

/** The email domain of a stand-in user (reserved: it never delivers). */
const STAND_IN_EMAIL_DOMAIN = '@replica.invalid';

/** A file's creator may be anyone in the org; the replica keeps a login-less stand-in for them. */
async function ensureUser(trx: Trx, userId: number): Promise<void> {
  const exists = await trx.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
  if (exists) return;
  await trx
    .insertInto('users')
    .values({ id: userId, email: `user-${userId}${STAND_IN_EMAIL_DOMAIN}`, password_hash: '!', first_name: '', family_name: '', phone: '', is_machine_user: 0, is_staff: 0, created_date: EPOCH })
    .execute();
}

/** A remote file's metadata; its bytes come on demand (context.fetchMissingBlob). */
export async function upsertPrivateFile(trx: Trx, orgId: number, file: RemotePrivateFile, keep: RecordView = {}): Promise<void> {
  const userId = parseUserReference(file.user) ?? 0;
  if (userId) await ensureUser(trx, userId);
  await upsertFileTags(trx, orgId, file.file_tags_data ?? []);
  const projectId = 'project' in keep ? (keep.project as number | null) : file.project ? (parseOrgReference(file.project, 'projects')?.id ?? null) : null;
  const projectExists = projectId === null || (await trx.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst());
  const existing = await trx.selectFrom('private_files').select(['file_name', 'mime_type', 'file_hash', 'filesize']).where('id', '=', file.id).executeTakeFirst();
  // New contents made here and still on their way up (an edit in place) stay, with their size.
  const keepContents = 'file_hash' in keep && existing !== undefined;
  const title = String('title' in keep ? keep.title : (file.title ?? ''));
  const row = {
    id: file.id,
    org_id: orgId,
    project_id: projectExists ? projectId : null,
    user_id: userId,
    title,
    // The API does not name the file's name or type; the title stands in until the bytes arrive.
    file_name: existing?.file_name ?? title,
    mime_type: existing?.mime_type ?? contentTypeFor(title, new Uint8Array()),
    filesize: keepContents ? existing.filesize : (file.filesize ?? null),
    file_hash: keepContents ? existing.file_hash : (file.file_hash ?? null),
    system_uuid: file.system_uuid ?? null,
    input_data: file.input_data === undefined || file.input_data === null ? null : JSON.stringify(file.input_data),
    input_data_hash: file.input_data_hash ?? '',
    status: file.status ?? null,
    status_message: file.status_message ?? null,
    show_customer: flag('show_customer' in keep ? keep.show_customer : file.show_customer),
    temporary: flag(file.temporary),
    upload_id: file.upload_id ?? '',
    parts: JSON.stringify(file.parts ?? []),
    completed_on: file.completed_on ?? null,
    created_date: file.created_date ?? EPOCH,
    modified_date: file.modified_date ?? EPOCH,
  };
  await trx.insertInto('private_files').values(row).onConflict((conflict) => conflict.column('id').doUpdateSet(row)).execute();
  const tagIds = 'file_tags' in keep ? (keep.file_tags as number[]) : (file.file_tags_data ?? []).map((tag) => tag.id);
  await setFileTags(trx, file.id, tagIds);
}

/**
 * Writes a remote project (its detail JSON) into the replica, with what hangs off
 * it (contacts, roles, events). `keep` holds view values of fields with local
 * changes still waiting, which stay as they are locally.
 */
/**
 * A project a connected org shares with this one (docs/sync.md "Shared projects"):
 * kept under its owner org, as the engine keeps shared projects, so the local engine
 * serves it under this org's path read-only and refuses local edits (403), and the
 * outbox never holds one. The replica gets what that needs: the owner org's row (its
 * name), an accepted connection between the two, the share, and the owner's workflow
 * stage as far as the project names it. Its contacts and events are the owner's;
 * its assigned people are not copied (they are the owner's roles).
 */
async function prepareSharedProject(trx: Trx, orgId: number, sharedBy: SharingOrg, project: RemoteProject): Promise<void> {
  const ownerOrgId = sharedBy.id;
  // The owner's name as the connection list has it (record-orgs.ts), never as a project's fields say.
  const owner = { id: ownerOrgId, name: sharedBy.name, api_plan: null, plan_starts_on: null, plan_ends_on: null, plan_is_trial: 0 as const, created_date: EPOCH };
  await trx.insertInto('orgs').values(owner).onConflict((conflict) => conflict.column('id').doUpdateSet({ name: owner.name })).execute();
  for (const [side, other] of [[orgId, ownerOrgId], [ownerOrgId, orgId]] as const) {
    await trx
      .insertInto('connected_orgs')
      .values({ org_id: side, org_to_id: other, is_active: 1, accepted: 1, notify_roles: '[]', created_date: EPOCH, modified_date: EPOCH })
      .onConflict((conflict) => conflict.columns(['org_id', 'org_to_id']).doUpdateSet({ is_active: 1, accepted: 1 }))
      .execute();
  }
  const workflowId = project.workflow?.workflow_id;
  const stageId = project.workflow?.active_stage_id ?? project.active_stage_id;
  if (workflowId !== undefined && stageId !== undefined) {
    await trx.insertInto('workflows').values({ id: workflowId, org_id: ownerOrgId, title: '', is_default: 0, created_date: EPOCH, modified_date: EPOCH }).onConflict((conflict) => conflict.column('id').doNothing()).execute();
    const stage = { id: stageId, workflow_id: workflowId, title: '', milestone: project.stage ?? 0, position: 0 };
    await trx.insertInto('workflow_stages').values(stage).onConflict((conflict) => conflict.column('id').doNothing()).execute();
  }
}

/**
 * `sharedBy`: the org that shares this project here, verified against the remote's
 * connection list (record-orgs.ts orgVerdict); without it the project is the org's own,
 * whatever org its fields name.
 */
export async function upsertProject(trx: Trx, orgId: number, project: RemoteProject, keep: RecordView, localUserId: number | null, sharedBy: SharingOrg | null = null): Promise<void> {
  const ownerOrgId = sharedBy?.id ?? null;
  if (sharedBy) await prepareSharedProject(trx, orgId, sharedBy, project);
  const recordOrgId = ownerOrgId ?? orgId;
  for (const contact of project.contacts_data ?? []) {
    const exists = await trx.selectFrom('contacts').select('id').where('id', '=', contact.id).executeTakeFirst();
    if (!exists) await upsertContact(trx, recordOrgId, contact);
  }
  for (const field of ROLE_REFERENCE_FIELDS) {
    const role = project[`${field}_data`];
    if (role && ownerOrgId === null) await upsertRole(trx, orgId, role, localUserId);
  }
  const workflowId = project.workflow?.workflow_id;
  const stageId = project.workflow?.active_stage_id ?? project.active_stage_id;
  const stageExists =
    workflowId !== undefined && stageId !== undefined &&
    (await trx.selectFrom('workflow_stages').select('id').where('id', '=', stageId).where('workflow_id', '=', workflowId).executeTakeFirst());
  if (!stageExists) throw new Error(`project ${project.id} is at stage ${stageId}, which the replica does not know yet`);

  const existing = await trx.selectFrom('projects').select('attributes').where('id', '=', project.id).executeTakeFirst();
  const attributes: Record<string, unknown> = existing ? parseAttributes(existing.attributes) : {};
  for (const field of [...Object.keys(WRITABLE_PLAIN_FIELDS), ...Object.keys(STORED_READ_ONLY_FIELDS)]) {
    if (!COLUMN_FIELD_SET.has(field) && field in project) attributes[field] = project[field];
  }
  // The hosted service sends its own names of three fields (facts section 15): kept under ours.
  for (const [hosted, ours] of Object.entries(HOSTED_FIELD_NAMES)) {
    if (!(ours in project) && hosted in project) attributes[ours] = (project as Record<string, unknown>)[hosted];
  }
  if (attributes.custom_data && typeof attributes.custom_data === 'object' && CLIENT_OP_KEY in (attributes.custom_data as object)) {
    const { [CLIENT_OP_KEY]: _marker, ...rest } = attributes.custom_data as Record<string, unknown>;
    attributes.custom_data = Object.keys(rest).length ? rest : null;
  }
  const row = {
    id: project.id,
    org_id: recordOrgId,
    title: project.title ?? '',
    title_sort: naturalSortKey(project.title ?? ''),
    identifier: project.identifier ?? '',
    address: project.address ?? '',
    locality: project.locality ?? '',
    state: project.state ?? '',
    zip: project.zip ?? '',
    // A remote that names the country only by URL (/api/countries/36/) still gives its code.
    country_iso2: project.country_iso2 ?? parseCountryReference(project.country) ?? '',
    lat: project.lat ?? null,
    lon: project.lon ?? null,
    business_name: project.business_name ?? null,
    priority: project.priority ?? 2,
    is_residential: flag(project.is_residential ?? true),
    is_lite: flag(project.is_lite),
    roof_type_id: project.roof_type ? parseRoofTypeReference(project.roof_type) : null,
    workflow_id: workflowId,
    active_stage_id: stageId,
    ...Object.fromEntries(ROLE_REFERENCE_FIELDS.map((field) => [ROLE_COLUMNS[field], ownerOrgId === null ? (project[`${field}_data`]?.id ?? null) : null])),
    usage: project.usage ? JSON.stringify(project.usage) : null,
    design: project.design ?? null,
    attributes: JSON.stringify(attributes),
    created_date: project.created_date ?? EPOCH,
    modified_date: project.modified_date ?? EPOCH,
  };
  await trx.insertInto('projects').values(row).onConflict((conflict) => conflict.column('id').doUpdateSet(row)).execute();
  const contactIds: number[] = (project.contacts_data ?? []).map((contact: RemoteContact) => contact.id);
  await replaceProjectContacts(trx, project.id, contactIds);
  if (project.events_data) await replaceProjectEvents(trx, recordOrgId, project.id, project.events_data);
  if (ownerOrgId !== null) {
    await trx
      .insertInto('project_shares')
      .values({ project_id: project.id, org_id: orgId, permission_role_id: null, is_shared: 1, position: 0, created_date: EPOCH, modified_date: EPOCH })
      .onConflict((conflict) => conflict.columns(['project_id', 'org_id']).doUpdateSet({ is_shared: 1 }))
      .execute();
  }
  if (Object.keys(keep).length > 0) await applyProjectView(trx, project.id, keep);
}

/**
 * The events a project's detail lists (its `events_data`) as the replica's, each with
 * its merge base, so a later edit here merges against what was seen. An event changed
 * here and not yet pushed keeps its local values: its own push sends them (issue 27).
 * A synced event of the project the detail no longer lists was deleted on the remote
 * (or moved: the project it joined lists it), unless it has local changes waiting.
 */
async function replaceProjectEvents(trx: Trx, orgId: number, projectId: number, events: readonly RemoteEvent[]): Promise<void> {
  for (const event of events) {
    if (await hasQueuedChanges(trx, 'event', event.id)) continue;
    const remote = { ...event, project_id: projectId };
    await upsertEvent(trx, orgId, remote);
    const base = { model: 'event', record_id: event.id, base: JSON.stringify(viewOf('event', remote)), remote_modified: event.modified_date ?? null };
    await trx.insertInto('sync_records').values(base).onConflict((conflict) => conflict.columns(['model', 'record_id']).doUpdateSet(base)).execute();
  }
  const listed = new Set(events.map((event) => event.id));
  const synced = await trx
    .selectFrom('events')
    .innerJoin('sync_records', (join) => join.onRef('sync_records.record_id', '=', 'events.id').on('sync_records.model', '=', 'event'))
    .select('events.id')
    .where('events.project_id', '=', projectId)
    .execute();
  for (const { id } of synced) {
    if (listed.has(id) || isProvisional(id) || (await hasQueuedChanges(trx, 'event', id))) continue;
    await deleteReplicaRecord(trx, 'event', id);
  }
}

async function replaceProjectContacts(trx: Trx, projectId: number, contactIds: number[]): Promise<void> {
  await trx.deleteFrom('project_contacts').where('project_id', '=', projectId).execute();
  const present = contactIds.length
    ? new Set((await trx.selectFrom('contacts').select('id').where('id', 'in', contactIds).execute()).map((row) => row.id))
    : new Set<number>();
  const rows = contactIds.filter((id) => present.has(id)).map((contactId, position) => ({ project_id: projectId, contact_id: contactId, position }));
  if (rows.length) await trx.insertInto('project_contacts').values(rows).execute();
}

/** Sets project fields from view values (a resolved conflict, or local values that must survive a pull). */
export async function applyProjectView(trx: Trx, projectId: number, view: RecordView): Promise<void> {
  const columns: ProjectUpdate = {};
  const current = await trx.selectFrom('projects').select('attributes').where('id', '=', projectId).executeTakeFirstOrThrow();
  const attributes = parseAttributes(current.attributes);
  for (const [field, value] of Object.entries(view)) {
    if (field === 'contacts') await replaceProjectContacts(trx, projectId, (value as number[] | null) ?? []);
    else if (field === 'roof_type') columns.roof_type_id = value as number | null;
    else if (field === 'active_stage_id') columns.active_stage_id = value as number;
    else if (field === 'usage') columns.usage = value === null ? null : JSON.stringify(value);
    else if (field in ROLE_COLUMNS) columns[ROLE_COLUMNS[field as keyof typeof ROLE_COLUMNS]] = value as number | null;
    else if (COLUMN_FIELD_SET.has(field) || field === 'country_iso2') {
      (columns as Record<string, unknown>)[field] = typeof value === 'boolean' ? flag(value) : value;
    } else attributes[field] = value;
  }
  await trx.updateTable('projects').set({ ...withTitleSort(columns), attributes: JSON.stringify(attributes) }).where('id', '=', projectId).execute();
}

/**
 * Writes a record the remote sent (a pull, a write's answer) into the replica;
 * `keep` holds view values of fields with local changes still waiting. `record`
 * was read as `model` (remote-records.ts), which is what the casts rely on.
 */
export async function writeRemoteRecord(
  trx: Trx,
  sync: Pick<SyncContext, 'orgId' | 'localUserId'> & { clock?: Clock },
  model: SyncedModel,
  record: RemoteRecord,
  keep: RecordView,
  sharedBy: SharingOrg | null = null,
): Promise<void> {
  switch (model) {
    case 'project':
      return upsertProject(trx, sync.orgId, record as RemoteProject, keep, sync.localUserId, sharedBy);
    case 'contact':
      return upsertContact(trx, sync.orgId, record as RemoteContact, keep);
    case 'event':
      return upsertEvent(trx, sync.orgId, record as RemoteEvent, keep);
    case 'webhook':
      return upsertWebhook(trx, sync.orgId, record as RemoteWebhook, keep);
    case 'private_file':
      await upsertPrivateFile(trx, sync.orgId, record as RemotePrivateFile, keep);
      // Files on demand: its signed link, so a fetch within the hour needs no detail GET.
      if (sync.clock) await rememberContentsLink(trx, record.id, (record as RemotePrivateFile).file_contents, sync.clock.now());
      return;
  }
}
