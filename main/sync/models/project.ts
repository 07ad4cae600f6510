// Projects: the org's projects with their contacts, roles, stage and usage
// (docs/sync.md). A new project goes up as one POST with its new contacts
// (`contacts_new`) and its create mark in custom_data, so a create whose answer was
// lost is found again by it; its detail brings its events (events_data). A project
// a connected org shares here is kept under its owner (docs/sync.md "Shared projects").
import type { Transaction } from 'kysely';
import type { Database, ProjectUpdate } from '../../engine/store/tables.ts';
import { ROLE_COLUMNS, parseAttributes, projectColumnsOf, storedPlainFields, withTitleSort } from '../../engine/projects/project-columns.ts';
import { naturalSortKey } from '../../../shared/natural-sort.ts';
import { HOSTED_FIELD_NAMES, ROLE_REFERENCE_FIELDS, STORED_READ_ONLY_FIELDS, WRITABLE_PLAIN_FIELDS, type WritablePlainField } from '../../../shared/project-fields.ts';
import { parseCountryReference } from '../../../shared/countries.ts';
import { apiPaths, parseRoofTypeReference } from '../../../shared/api-paths.ts';
import { schemaForKind } from '../../../shared/schemas/coercing-fields.ts';
import { fieldError } from '../../engine/http/errors.ts';
import { CLIENT_OP_KEY, MODEL_PATHS, type RecordView, clientOpOf, idOf, isProvisional, withoutClientOp } from '../sync-models.ts';
import { type SyncContext, remotePath, remoteUrl } from '../sync-context.ts';
import { dropQueuedCreate, groupOfRecord, hasQueuedChanges } from '../outbox.ts';
import { type RemoteContact, type RemoteEvent, type RemoteProject, readRemote } from '../remote-records.ts';
import { throwUnlessAnswered } from '../remote-errors.ts';
import { type SharingOrg, projectVerdict } from '../record-orgs.ts';
import { forgetSyncedRecord } from '../merge-bases.ts';
import { EPOCH, upsertRole } from '../replica-rows.ts';
import { contactUrl, roleUrl } from '../push-bodies.ts';
import { contactView, upsertContact } from './contact.ts';
import { eventView, removeEvent, upsertEvent } from './event.ts';
import { type LocalRecord, type RequestBody, type SyncModel, everyField } from './sync-model.ts';
import { allButId } from '../upsert-set.ts';

type Trx = Transaction<Database>;
type Json = Record<string, unknown>;

export function projectView(json: Json): RecordView {
  const view: RecordView = {};
  for (const field of Object.keys(WRITABLE_PLAIN_FIELDS)) view[field] = json[field] ?? null;
  view.custom_data = withoutClientOp(json.custom_data ?? null);
  view.country_iso2 = json.country_iso2 ?? '';
  view.roof_type = json.roof_type ? parseRoofTypeReference(json.roof_type) : null;
  for (const field of ROLE_REFERENCE_FIELDS) view[field] = idOf(json[field], 'roles');
  view.contacts = Array.isArray(json.contacts) ? json.contacts.map((url) => idOf(url, 'contacts')) : [];
  view.active_stage_id = (json.workflow as Json | undefined)?.active_stage_id ?? json.active_stage_id ?? null;
  view.usage = json.usage ?? null;
  return view;
}

function projectFieldsBody(sync: SyncContext, json: LocalRecord, fields: readonly string[]): RequestBody {
  const view = projectView(json);
  const body: RequestBody = {};
  for (const field of fields) {
    if (field in WRITABLE_PLAIN_FIELDS || field === 'custom_data') body[field] = view[field];
    else if (field === 'country_iso2') {
      if (view.country_iso2) body.country_iso2 = view.country_iso2;
    } else if (field === 'roof_type') body.roof_type = view.roof_type === null ? null : remoteUrl(sync, apiPaths.roofType(String(view.roof_type)));
    else if ((ROLE_REFERENCE_FIELDS as readonly string[]).includes(field)) body[field] = roleUrl(sync, view[field] as number | null);
    else if (field === 'contacts') body.contacts = (view.contacts as number[]).map((id) => contactUrl(sync, id));
    else if (field === 'active_stage_id') {
      body.workflow = { workflow_id: json.workflow?.workflow_id, active_stage_id: view.active_stage_id };
      body.active_stage_id = view.active_stage_id;
    } else if (field === 'usage') body.usage = view.usage;
  }
  return body;
}

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
 * Writes a remote project (its detail JSON) into the replica, with what hangs off
 * it (contacts, roles, events). `keep` holds view values of fields with local
 * changes still waiting, which stay as they are locally. `sharedBy`: the org that
 * shares this project here, verified against the remote's connection list
 * (record-orgs.ts projectVerdict); without it the project is the org's own, whatever
 * org its fields name.
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
  Object.assign(attributes, storedPlainFields(project, [...Object.keys(WRITABLE_PLAIN_FIELDS), ...Object.keys(STORED_READ_ONLY_FIELDS)]).attributes);
  // The hosted service sends its own names of three fields (facts section 15): kept under ours.
  for (const [hosted, ours] of Object.entries(HOSTED_FIELD_NAMES)) {
    if (!(ours in project) && hosted in project) attributes[ours] = (project as Record<string, unknown>)[hosted];
  }
  if (attributes.custom_data) attributes.custom_data = withoutClientOp(attributes.custom_data);
  const columns = projectColumnsOf(project);
  const row = {
    id: project.id,
    org_id: recordOrgId,
    ...columns,
    title_sort: naturalSortKey(columns.title),
    // A remote that names the country only by URL (/api/countries/36/) still gives its code.
    country_iso2: project.country_iso2 ?? parseCountryReference(project.country) ?? '',
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
  await trx.insertInto('projects').values(row).onConflict((conflict) => conflict.column('id').doUpdateSet(allButId(row))).execute();
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
    const base = { model: 'event', record_id: event.id, base: JSON.stringify(eventView(remote)), remote_modified: event.modified_date ?? null };
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
    await removeEvent(trx, id);
    await forgetSyncedRecord(trx, 'event', id);
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
    else if (field === 'country_iso2') columns.country_iso2 = value as string;
    else {
      const plain = storedPlainFields(view, [field]);
      Object.assign(columns, plain.columns);
      Object.assign(attributes, plain.attributes);
    }
  }
  await trx.updateTable('projects').set({ ...withTitleSort(columns), attributes: JSON.stringify(attributes) }).where('id', '=', projectId).execute();
}

/** A new project's contacts made offline were sent as contacts_new; the remote's copies take their place. */
async function adoptCreatedContacts({ trx, rekey, storeBase }: Parameters<NonNullable<SyncModel['adoptCreated']>>[0], local: LocalRecord | null, remoteJson: RemoteProject): Promise<void> {
  if (!local) return;
  const provisional = (local.contacts_data ?? []).filter((contact) => isProvisional(contact.id));
  const remoteContacts = remoteJson.contacts_data ?? [];
  const created = remoteContacts.slice(remoteContacts.length - provisional.length);
  for (const [index, contact] of provisional.entries()) {
    const remote = created[index];
    if (!remote) continue;
    await rekey('contact', contact.id, remote.id);
    await dropQueuedCreate(trx, 'contact', remote.id);
    await storeBase('contact', remote.id, remote);
  }
}

export const projectModel: SyncModel = {
  model: 'project',
  path: MODEL_PATHS.project,
  quota: { list: 'default', detail: 'project_detail', create: 'project_create', update: 'project_partial_update', remove: 'default' },
  view: projectView,
  pushableFields: everyField,
  updateBody: async (sync, json, fields) => projectFieldsBody(sync, json, fields),
  async createBody(sync, _group, json, opId) {
    const view = projectView(json);
    const fields = Object.keys(view).filter((field) => field !== 'contacts' && view[field] !== null);
    const body = projectFieldsBody(sync, json, fields);
    body.custom_data = { ...((view.custom_data as RequestBody | null) ?? {}), [CLIENT_OP_KEY]: opId };
    const contacts = json.contacts_data ?? [];
    body.contacts = contacts.filter((contact) => !isProvisional(contact.id)).map((contact) => contactUrl(sync, contact.id));
    body.contacts_new = contacts.filter((contact) => isProvisional(contact.id)).map((contact) => contactView(contact));
    return body;
  },
  // A project carries its create's op id in custom_data.
  async findLostCreate({ sync, opId, list }) {
    const recent = await list({ ordering: '-created_date', limit: 50, fieldset: 'list' });
    const match = recent.find((project) => clientOpOf(project) === opId);
    if (!match) return null;
    const detail = await sync.remote.request({ method: 'GET', path: remotePath(sync, 'project', match.id), action: projectModel.quota.detail });
    throwUnlessAnswered(detail);
    return detail.kind === 'ok' ? readRemote(sync.unreadable, 'project', detail.body) : null;
  },
  checkValue(field, value) {
    if (!(field in WRITABLE_PLAIN_FIELDS)) return value;
    const parsed = schemaForKind(WRITABLE_PLAIN_FIELDS[field as WritablePlainField].kind).safeParse(value);
    if (!parsed.success) throw fieldError('value', parsed.error.issues[0]?.message ?? 'Invalid value for this field.');
    return parsed.data;
  },
  applyView: applyProjectView,
  orgVerdict: (sync, record) => projectVerdict(sync, record as RemoteProject),
  store: ({ trx, sync, keep, sharedBy }, record) => upsertProject(trx, sync.orgId, record as RemoteProject, keep, sync.localUserId, sharedBy),
  async remove(trx, id) {
    await trx.deleteFrom('project_contacts').where('project_id', '=', id).execute();
    await trx.deleteFrom('projects').where('id', '=', id).execute();
  },
  createMarkOf: (answer) => clientOpOf(answer),
  /** Contacts made offline and attached to an existing project are created on their own first (a new project sends them in contacts_new). */
  async pushReferencesFirst({ sync, pushGroup }, project, fields) {
    if (fields === 'create' || !fields.includes('contacts')) return 0;
    let requests = 0;
    for (const contact of project.contacts_data ?? []) {
      if (!isProvisional(contact.id)) continue;
      const group = await groupOfRecord(sync.db, 'contact', contact.id);
      if (group) requests += await pushGroup(group);
    }
    return requests;
  },
  adoptCreated: (steps, local, answer) => adoptCreatedContacts(steps, local, answer as RemoteProject),
};
