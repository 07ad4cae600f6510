// Request bodies of a push, as the remote's API takes them: references as the
// remote's URLs, a new project with its new contacts (contacts_new) and its create
// mark, an event's duration as DRF writes one, a private file as multipart.
import fs from 'node:fs';
import { ROLE_REFERENCE_FIELDS, WRITABLE_PLAIN_FIELDS } from '../../shared/project-fields.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { formatDuration } from '../../shared/field-rules.ts';
import { EVENT_SYNC_FIELDS } from '../../shared/event-fields.ts';
import type { OutboxGroup } from './outbox.ts';
import { CLIENT_OP_KEY, type RecordView, type SyncedModel, isProvisional, viewOf } from './sync-models.ts';
import { blobPath } from '../engine/files/blob-store.ts';
import { type SyncContext, remotePath, remoteUrl } from './sync-context.ts';
import type { LocalRecord, RequestBody } from './push-requests.ts';
import { tagsToSend } from './push-tags.ts';

const roleUrl = (sync: SyncContext, id: number | null) => (id === null ? null : remoteUrl(sync, apiPaths.role(sync.orgId, id)));

async function projectFieldsBody(sync: SyncContext, json: LocalRecord, fields: readonly string[]): Promise<RequestBody> {
  const view = viewOf('project', json);
  const body: RequestBody = {};
  for (const field of fields) {
    if (field in WRITABLE_PLAIN_FIELDS || field === 'custom_data') body[field] = view[field];
    else if (field === 'country_iso2') {
      if (view.country_iso2) body.country_iso2 = view.country_iso2;
    } else if (field === 'roof_type') body.roof_type = view.roof_type === null ? null : remoteUrl(sync, apiPaths.roofType(String(view.roof_type)));
    else if ((ROLE_REFERENCE_FIELDS as readonly string[]).includes(field)) body[field] = roleUrl(sync, view[field] as number | null);
    else if (field === 'contacts') body.contacts = (view.contacts as number[]).map((id) => remoteUrl(sync, remotePath(sync, 'contact', id)));
    else if (field === 'active_stage_id') {
      body.workflow = { workflow_id: json.workflow?.workflow_id, active_stage_id: view.active_stage_id };
      body.active_stage_id = view.active_stage_id;
    } else if (field === 'usage') body.usage = view.usage;
  }
  return body;
}

const projectUrl = (sync: SyncContext, id: number | null) => (id === null ? null : remoteUrl(sync, remotePath(sync, 'project', id)));
const fileTagUrl = (sync: SyncContext, id: number) => remoteUrl(sync, apiPaths.fileTag(id));

export async function updateBody(sync: SyncContext, model: SyncedModel, json: LocalRecord, fields: string[]): Promise<RequestBody> {
  if (model === 'project') return projectFieldsBody(sync, json, fields);
  if (model === 'private_file') {
    const view = viewOf(model, json);
    const tagUrls = (await tagsToSend(sync, view.file_tags as number[])).map((id) => fileTagUrl(sync, id));
    return Object.fromEntries(
      fields.map((field) => {
        if (field === 'project') return [field, projectUrl(sync, view.project as number | null)];
        if (field === 'file_tags') return [field, tagUrls];
        return [field, view[field]];
      }),
    );
  }
  const view = viewOf(model, json);
  if (model === 'event') return eventFieldsBody(sync, view, fields);
  return Object.fromEntries(fields.map((field) => [field, view[field]]));
}

/**
 * An event's fields as the API takes them: references as remote URLs (`project`,
 * `contact`, `team_members` as the org's roles), the duration as DRF writes one.
 * The hosted service reads the kind from `event_type_id` (hosted-docs-facts.md 9).
 */
function eventFieldsBody(sync: SyncContext, view: RecordView, fields: readonly string[]): RequestBody {
  const body: RequestBody = {};
  for (const field of fields) {
    const value = view[field];
    if (field === 'project_id') body.project = projectUrl(sync, value as number | null);
    else if (field === 'contact') body.contact = value === null ? null : remoteUrl(sync, remotePath(sync, 'contact', value as number));
    else if (field === 'team_members') body.team_members = (value as number[]).map((id) => roleUrl(sync, id));
    else if (field === 'duration') body.duration = typeof value === 'number' ? formatDuration(value) : value;
    else body[field] = value;
  }
  return body;
}

/** Whether an event's `fields` name a project or contact made offline that has no remote id yet. */
export function eventWaitsFor(view: RecordView, fields: readonly string[]): boolean {
  return (['project_id', 'contact'] as const).some((field) => fields.includes(field) && typeof view[field] === 'number' && isProvisional(view[field]));
}

/**
 * A generated document's fields (docs/documents.md), as text, so the remote's copy says
 * what it was made from too: the multipart create's parts and the chunked upload's
 * start alike. Empty for a file that is no document.
 */
export async function documentFieldsToSend(sync: SyncContext, fileId: number): Promise<Record<string, string>> {
  const row = await sync.db.selectFrom('private_files').select(['system_uuid', 'input_data', 'input_data_hash', 'status']).where('id', '=', fileId).executeTakeFirstOrThrow();
  if (row.input_data === null) return {};
  return {
    input_data: row.input_data,
    input_data_hash: row.input_data_hash,
    ...(row.system_uuid === null ? {} : { system_uuid: row.system_uuid }),
    ...(row.status === null ? {} : { status: row.status }),
  };
}

export async function createBody(sync: SyncContext, group: OutboxGroup, json: LocalRecord, opId: string): Promise<RequestBody | FormData | 'waiting'> {
  const view = viewOf(group.model, json);
  switch (group.model) {
    case 'private_file': {
      const projectId = view.project as number | null;
      if (projectId !== null && isProvisional(projectId)) return 'waiting';
      const row = await sync.db
        .selectFrom('private_files')
        .select(['file_name', 'mime_type', 'file_hash'])
        .where('id', '=', group.recordId)
        .executeTakeFirstOrThrow();
      const form = new FormData();
      form.append('title', String(view.title));
      form.append('show_customer', String(view.show_customer));
      if (projectId !== null) form.append('project', projectUrl(sync, projectId)!);
      const tagIds = await tagsToSend(sync, view.file_tags as number[]);
      if (tagIds.length) form.append('file_tags', tagIds.map((id) => fileTagUrl(sync, id)).join(','));
      for (const [field, value] of Object.entries(await documentFieldsToSend(sync, group.recordId))) form.append(field, value);
      // Streams from the blob store: the bytes are never all in memory.
      const blob = await fs.openAsBlob(blobPath(sync.engine.store.fileRoot, row.file_hash!), { type: row.mime_type });
      form.append('file_contents', blob, row.file_name);
      return form;
    }
    case 'project': {
      const fields = Object.keys(view).filter((field) => field !== 'contacts' && view[field] !== null);
      const body = await projectFieldsBody(sync, json, fields);
      body.custom_data = { ...((view.custom_data as RequestBody | null) ?? {}), [CLIENT_OP_KEY]: opId };
      const contacts = json.contacts_data ?? [];
      body.contacts = contacts.filter((contact) => !isProvisional(contact.id)).map((contact) => remoteUrl(sync, remotePath(sync, 'contact', contact.id)));
      body.contacts_new = contacts.filter((contact) => isProvisional(contact.id)).map((contact) => viewOf('contact', contact));
      return body;
    }
    case 'event': {
      // Its project or contact made offline has not reached the remote yet.
      if (eventWaitsFor(view, EVENT_SYNC_FIELDS)) return 'waiting';
      const fields = EVENT_SYNC_FIELDS.filter((field) => field !== 'event_type_id' || typeof view.event_type_id === 'number');
      return eventFieldsBody(sync, view, fields);
    }
    case 'contact':
    case 'webhook':
      return view;
  }
}
