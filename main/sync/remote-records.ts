// What sync reads from the remote, parsed with the API's own schemas
// (shared/schemas/) in a tolerant form: keys we do not know are kept (the hosted
// service sends more fields than this engine), fields it may leave out are
// optional, and only `id` is required. A record that does not parse (a field of
// the wrong type, no id) is skipped and reported, never written into the replica
// half-read, and never stops the rest of the cycle.
import { z } from 'zod';
import { contactJsonSchema } from '../../shared/schemas/contact.ts';
import { eventJsonSchema } from '../../shared/schemas/event.ts';
import { webhookJsonSchema } from '../../shared/schemas/webhook.ts';
import { roleJsonSchema } from '../../shared/schemas/role.ts';
import { workflowActionJsonSchema, workflowJsonSchema, workflowStageJsonSchema } from '../../shared/schemas/workflow.ts';
import { fileTagJsonSchema, privateFileJsonSchema, uploadJsonSchema } from '../../shared/schemas/private-file.ts';
import { projectDetailJsonSchema, projectWorkflowJsonSchema } from '../../shared/schemas/project.ts';
import { ROLE_REFERENCE_FIELDS, type RoleReferenceField } from '../../shared/project-fields.ts';
import { PROVISIONAL_ID_FLOOR, type SyncedModel, isProvisional } from './sync-models.ts';
import { oversizedRecordReason } from './remote-limits.ts';

const remoteRole = roleJsonSchema.partial().required({ id: true }).loose();
const remoteContact = contactJsonSchema.partial().required({ id: true }).loose();
const remoteEvent = eventJsonSchema.partial().required({ id: true }).loose();
const remoteWebhook = webhookJsonSchema.partial().required({ id: true }).loose();
const remoteFileTag = fileTagJsonSchema.partial().required({ id: true }).loose();
const remoteWorkflowStage = workflowStageJsonSchema
  .extend({ actions: z.array(workflowActionJsonSchema.partial().required({ id: true }).loose()) })
  .partial()
  .required({ id: true })
  .loose();
const remoteWorkflow = workflowJsonSchema
  .extend({ workflow_stages: z.array(remoteWorkflowStage) })
  .partial()
  .required({ id: true })
  .loose();
const remotePrivateFile = privateFileJsonSchema
  .extend({ file_tags_data: z.array(remoteFileTag) })
  .partial()
  .required({ id: true })
  .loose();

/** A project's roles (`assigned_role_data`...), each as tolerant as a role on its own. */
type RemoteRoleDataShape = { [Field in RoleReferenceField as `${Field}_data`]: z.ZodNullable<typeof remoteRole> };
const remoteRoleDataShape = Object.fromEntries(ROLE_REFERENCE_FIELDS.map((field) => [`${field}_data`, remoteRole.nullable()])) as RemoteRoleDataShape;

/** A project of a list (any fieldset) or its detail: partial, so both parse with it. */
const remoteProject = projectDetailJsonSchema
  .extend({
    ...remoteRoleDataShape,
    contacts_data: z.array(remoteContact),
    events_data: z.array(remoteEvent),
    private_files_data: z.array(remotePrivateFile),
    workflow: projectWorkflowJsonSchema.partial().loose(),
  })
  .partial()
  .required({ id: true })
  .loose();

/** The answer that starts a chunked upload: only its id matters here. */
const remoteUpload = uploadJsonSchema.partial().required({ upload_id: true }).loose();

/** Each synced model's records as the remote sends them, on their own, in lists, and in write answers. */
export const REMOTE_RECORD_SCHEMAS = {
  project: remoteProject,
  contact: remoteContact,
  event: remoteEvent,
  webhook: remoteWebhook,
  private_file: remotePrivateFile,
} as const satisfies Record<SyncedModel, z.ZodType>;

/** Every kind of remote answer sync reads: the synced models, and what they hang on. */
const REMOTE_SCHEMAS = { ...REMOTE_RECORD_SCHEMAS, role: remoteRole, workflow: remoteWorkflow, file_tag: remoteFileTag, upload: remoteUpload } as const;
export type RemoteKind = keyof typeof REMOTE_SCHEMAS;
export type Remote<Kind extends RemoteKind> = z.infer<(typeof REMOTE_SCHEMAS)[Kind]>;
export type RemoteProject = Remote<'project'>;
export type RemoteContact = Remote<'contact'>;
export type RemoteEvent = Remote<'event'>;
export type RemoteWebhook = Remote<'webhook'>;
export type RemotePrivateFile = Remote<'private_file'>;
export type RemoteRole = Remote<'role'>;
export type RemoteWorkflow = Remote<'workflow'>;
export type RemoteFileTag = Remote<'file_tag'>;
/** A record of any synced model; which one goes with the model it was read as. */
export type RemoteRecord = Remote<SyncedModel>;

/**
 * Remote records a cycle could not read, by what they are: the sync status says
 * so (and the agent logs it) when the cycle ends, and the next cycle reads them
 * again, so a record fixed on the remote comes down then.
 */
export class UnreadableRecords {
  private readonly reasons = new Map<string, string>();

  add(label: string, reason: string): void {
    this.reasons.set(label, reason);
  }

  clear(): void {
    this.reasons.clear();
  }

  /** One line for the sync status, or null when every record was read. */
  summary(): string | null {
    if (this.reasons.size === 0) return null;
    const each = [...this.reasons].map(([label, reason]) => `${label} (${reason})`);
    return `skipped ${this.reasons.size} remote record${this.reasons.size === 1 ? '' : 's'} it could not read: ${each.join('; ')}`;
  }
}

const kindLabel = (kind: RemoteKind) => kind.replace('_', ' ');

function labelOf(kind: RemoteKind, json: unknown): string {
  const id = typeof json === 'object' && json !== null ? (json as { id?: unknown }).id : undefined;
  return typeof id === 'number' || typeof id === 'string' ? `${kindLabel(kind)} ${id}` : `a ${kindLabel(kind)} without an id`;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join(', ');
}

export type ParsedRemote<Kind extends RemoteKind> = { ok: true; record: Remote<Kind> } | { ok: false; label: string; reason: string };

/** Records a remote record carries inside it, each written into the replica with its own id. */
const NESTED_RECORDS = ['contacts_data', 'events_data', 'private_files_data', 'file_tags_data', 'workflow_stages', 'actions'] as const;

/**
 * A provisional id (PROVISIONAL_ID_FLOOR up) in a remote record or in one it carries:
 * those ids are this computer's, for records made offline, and a remote's record
 * under one would overwrite such a record (issue 34, item 3). Null when none.
 */
function provisionalIdIn(json: unknown, depth = 0): number | null {
  if (typeof json !== 'object' || json === null || depth > 3) return null;
  const record = json as Record<string, unknown>;
  if (typeof record.id === 'number' && isProvisional(record.id)) return record.id;
  for (const key of NESTED_RECORDS) {
    const nested = record[key];
    if (!Array.isArray(nested)) continue;
    for (const item of nested) {
      const found = provisionalIdIn(item, depth + 1);
      if (found !== null) return found;
    }
  }
  return null;
}

/** `json` read as a remote `kind`, or what it is ("project 12") and why it does not read as one (or is refused). */
export function parseRemote<Kind extends RemoteKind>(kind: Kind, json: unknown): ParsedRemote<Kind> {
  // A record too large to keep (a 200 MB notes field) is refused like one that does not parse: reported, and the rest taken.
  const oversized = oversizedRecordReason(json);
  if (oversized) return { ok: false, label: labelOf(kind, json), reason: oversized };
  const parsed = REMOTE_SCHEMAS[kind].safeParse(json);
  if (!parsed.success) return { ok: false, label: labelOf(kind, json), reason: describeIssues(parsed.error) };
  const provisional = provisionalIdIn(parsed.data);
  if (provisional !== null) {
    return { ok: false, label: labelOf(kind, json), reason: `refused: id ${provisional} is in the range this computer gives records made offline (from ${PROVISIONAL_ID_FLOOR}), so it would overwrite one` };
  }
  return { ok: true, record: parsed.data as Remote<Kind> };
}

/** `json` read as a remote `kind`, or null (reported in `unreadable`) when it is not one. */
export function readRemote<Kind extends RemoteKind>(unreadable: UnreadableRecords, kind: Kind, json: unknown): Remote<Kind> | null {
  const parsed = parseRemote(kind, json);
  if (parsed.ok) return parsed.record;
  unreadable.add(parsed.label, parsed.reason);
  return null;
}

/** The records of a list answer that read as `kind`; the others are reported and left out. */
export function readRemoteList<Kind extends RemoteKind>(unreadable: UnreadableRecords, kind: Kind, items: readonly unknown[]): Array<Remote<Kind>> {
  return items.flatMap((item) => readRemote(unreadable, kind, item) ?? []);
}

/** A record's id as the remote listed it, read or not (paging compares positions by it). */
export const listedId = (item: unknown): unknown => (typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined);
