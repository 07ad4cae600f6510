// Local work: what a person made or changed in the embedded store on this
// computer, so that signing in to a remote never hides it (issue 15). The
// embedded engine's change capture records each record a person's write created
// or changed in the write's own transaction (a ledger kept in sync's state, main/sync/sync-state.ts);
// the seed writes straight to the store, never through change capture, so the demo
// data as seeded is never local work. After a sign-in the app offers these records
// to the signed-in org: sending creates each one through the agent's local API (its
// outbox takes them up and re-keys their provisional ids), or the user keeps them
// in the local workspace. What was sent, to which org, and the user's choices live
// in <data>/local-work.json (docs/sync.md, "Local work and signing in").
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely, Transaction } from 'kysely';
import type { ApiResponse, LocalWorkItem, LocalWorkKind, LocalWorkProgress, Workspace } from '../../shared/bridge.ts';
import { apiPaths, parseOrgReference } from '../../shared/api-paths.ts';
import { WRITABLE_PLAIN_FIELDS } from '../../shared/project-fields.ts';
import type { Database } from '../engine/store/tables.ts';
import type { EngineContext } from '../engine/context.ts';
import { addChangeCapture, type RecordChange } from '../engine/changes/tracked-write.ts';
import type { TrackedModel } from '../engine/changes/record-snapshots.ts';
import { describeApiError, type RawApiRequest } from './local-api.ts';
import { uploadFile } from './file-transfers.ts';
import { type LedgerRow, ledgerSince, listLedgerEntries, readLedgerEntry, removeLedgerEntry, startLedger, writeLedgerEntry } from '../sync/sync-state.ts';

export const LOCAL_WORK_FILE = 'local-work.json';
const KINDS: readonly LocalWorkKind[] = ['contact', 'project', 'private_file', 'webhook'];
/** Fields of a view that change with every write or never come from a person: not "what changed". */
const NOT_CHANGES = new Set(['modified_date', 'created_date', 'url', 'file_contents', 'completed_on', 'parts', 'private_files', 'private_files_data', 'events', 'events_data']);

interface LedgerEntry {
  org: number;
  op: 'created' | 'changed';
  fields: string[];
  at: string;
}

const isLocalWorkKind = (model: TrackedModel): model is LocalWorkKind => (KINDS as readonly string[]).includes(model);

function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((key) => !NOT_CHANGES.has(key) && JSON.stringify(before[key]) !== JSON.stringify(after[key])).sort();
}

/**
 * Makes the embedded engine keep its ledger of local work: every record a write
 * creates or changes (a person's, through the local API or a project folder: on the
 * embedded store nothing else writes through change capture). A record deleted here
 * leaves the ledger: there is nothing left to send.
 */
export function captureLocalWork(context: EngineContext): void {
  addChangeCapture(context, {
    phase: 'deliver',
    async capture(trx, orgId, changes) {
      const at = context.clock.now().toISOString();
      for (const change of changes) await recordChange(trx, orgId, change, at);
    },
  });
}

async function recordChange(trx: Transaction<Database>, orgId: number, change: RecordChange, at: string): Promise<void> {
  if (!isLocalWorkKind(change.model)) return;
  if (change.after === null) {
    await removeLedgerEntry(trx, change.model, change.id);
    return;
  }
  const fields = change.before === null ? [] : changedFields(change.before, change.after);
  if (change.before !== null && fields.length === 0) return;
  const existing = await readLedgerEntry(trx, change.model, change.id);
  const previous = existing ? (JSON.parse(existing) as LedgerEntry) : null;
  const entry: LedgerEntry =
    change.before === null || previous?.op === 'created'
      ? { org: orgId, op: 'created', fields: [], at }
      : { org: orgId, op: 'changed', fields: [...new Set([...(previous?.fields ?? []), ...fields])].sort(), at };
  await writeLedgerEntry(trx, change.model, change.id, JSON.stringify(entry));
}

/**
 * A store from before the ledger (or one the ledger never saw): what its dates
 * show, once. Seeded projects, contacts and files carry modified_date = created_date
 * until someone edits them; the seed makes no webhooks. A record made here before
 * this version and never edited since cannot be told from the seed's and is not found.
 */
export async function backfillLocalWork(db: Kysely<Database>, now: string): Promise<void> {
  if ((await ledgerSince(db)) !== null) return;
  const rows: LedgerRow[] = [];
  const add = (kind: LocalWorkKind, records: { id: number; org_id: number; modified_date: string }[], op: LedgerEntry['op']) => {
    for (const record of records) rows.push({ kind, id: record.id, entry: JSON.stringify({ org: record.org_id, op, fields: [], at: record.modified_date } satisfies LedgerEntry) });
  };
  const edited = <T extends 'projects' | 'contacts' | 'private_files'>(table: T) =>
    db.selectFrom(table as 'projects').select(['id', 'org_id', 'modified_date']).whereRef('modified_date', '!=', 'created_date').execute();
  add('project', await edited('projects'), 'changed');
  add('contact', await edited('contacts'), 'changed');
  add('private_file', await edited('private_files'), 'changed');
  add('webhook', await db.selectFrom('webhooks').select(['id', 'org_id', 'modified_date']).execute(), 'created');
  await startLedger(db, rows, now);
}

/** Every record of `orgId` in the ledger that still exists, named as people know it. */
export async function listLocalWork(db: Kysely<Database>, orgId: number): Promise<LocalWorkItem[]> {
  const rows = await listLedgerEntries(db);
  const items: LocalWorkItem[] = [];
  const projectTitles = new Map<number, string>();
  const projectTitle = async (id: number | null): Promise<string | null> => {
    if (id === null) return null;
    if (!projectTitles.has(id)) {
      const project = await db.selectFrom('projects').select('title').where('id', '=', id).executeTakeFirst();
      projectTitles.set(id, project ? project.title || `Project ${id}` : `Project ${id}`);
    }
    return projectTitles.get(id)!;
  };
  for (const row of rows) {
    const { kind, id } = row;
    const entry = JSON.parse(row.entry) as LedgerEntry;
    if (entry.org !== orgId || !KINDS.includes(kind)) continue;
    const base = { key: `${kind}:${id}`, kind, id, change: entry.op, fields: entry.fields, changedAt: entry.at };
    if (kind === 'project') {
      const project = await db.selectFrom('projects').select(['title', 'address']).where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
      if (project) items.push({ ...base, title: project.title || project.address || `Project ${id}`, projectTitle: null });
    } else if (kind === 'contact') {
      const contact = await db.selectFrom('contacts').select(['first_name', 'family_name', 'email']).where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
      if (!contact) continue;
      const link = await db.selectFrom('project_contacts').select('project_id').where('contact_id', '=', id).orderBy('position').executeTakeFirst();
      const name = `${contact.first_name} ${contact.family_name}`.trim() || contact.email || `Contact ${id}`;
      items.push({ ...base, title: name, projectTitle: await projectTitle(link?.project_id ?? null) });
    } else if (kind === 'private_file') {
      const file = await db.selectFrom('private_files').select(['title', 'project_id', 'temporary']).where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
      if (file && !file.temporary) items.push({ ...base, title: file.title || `File ${id}`, projectTitle: await projectTitle(file.project_id) });
    } else {
      const webhook = await db.selectFrom('webhooks').select(['endpoint']).where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
      if (webhook) items.push({ ...base, title: `Webhook to ${webhook.endpoint}`, projectTitle: null });
    }
  }
  const order = (item: LocalWorkItem) => KINDS.indexOf(item.kind);
  return items.sort((a, b) => order(a) - order(b) || b.changedAt.localeCompare(a.changedAt) || a.id - b.id);
}

// ---------------------------------------------------------------------------
// What the user decided, per signed-in org: <data>/local-work.json.

export interface LocalWorkState {
  /** The workspace open while signed in ('remote' when not signed in). */
  workspace: Workspace;
  /** The embedded store's org last worked on (whose local work is offered). */
  localOrgId: number | null;
  /** The last sign-in's org, for the workspace switcher while the local workspace is open. */
  signedIn: { remoteUrl: string; orgId: number; orgName: string } | null;
  /** Per target (`<remote URL>#<org id>`): what went up (item key -> the id it got there) and whether the user said keep. */
  targets: Record<string, { kept: boolean; sent: Record<string, { remoteId: number; at: string }> }>;
}

export const targetKey = (remoteUrl: string, orgId: number) => `${remoteUrl}#${orgId}`;

export function readLocalWorkState(dataDir: string): LocalWorkState {
  const fallback: LocalWorkState = { workspace: 'remote', localOrgId: null, signedIn: null, targets: {} };
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(dataDir, LOCAL_WORK_FILE), 'utf8')) as Partial<LocalWorkState>;
    return {
      workspace: parsed.workspace === 'local' ? 'local' : 'remote',
      localOrgId: typeof parsed.localOrgId === 'number' ? parsed.localOrgId : null,
      signedIn: parsed.signedIn ?? null,
      targets: parsed.targets && typeof parsed.targets === 'object' ? parsed.targets : {},
    };
  } catch {
    return fallback; // none yet
  }
}

/** Written whole to a temp file, then renamed over the old one: a kill leaves one or the other. */
export function writeLocalWorkState(dataDir: string, state: LocalWorkState): void {
  const file = path.join(dataDir, LOCAL_WORK_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

export function updateLocalWorkState(dataDir: string, change: (state: LocalWorkState) => void): LocalWorkState {
  const state = readLocalWorkState(dataDir);
  change(state);
  writeLocalWorkState(dataDir, state);
  return state;
}

// ---------------------------------------------------------------------------
// Sending: read from the embedded store's API, create through the agent's.

type CallApi = (request: RawApiRequest) => Promise<ApiResponse>;

export interface LocalWorkEnds {
  /** The embedded store's local API, as its admin, and the org the items are in. */
  source: { callApi: CallApi; orgId: number };
  /** The signed-in agent's local API, and the org there. */
  target: { callApi: CallApi; orgId: number; orgName: string };
}

export class LocalWorkItemError extends Error {}

const KIND_WORDS: Record<LocalWorkKind, string> = { project: 'project', contact: 'contact', private_file: 'file', webhook: 'webhook' };

/** The sentence a failed item shows: what, where, why, and what happens now. */
function itemFailure(item: LocalWorkItem, orgName: string, why: string): string {
  return `The ${KIND_WORDS[item.kind]} “${item.title}” did not reach ${orgName}: ${why.replace(/\.$/, '')}. It stays on this computer and stays offered.`;
}

async function readOk<T>(callApi: CallApi, request: RawApiRequest, what: string): Promise<T> {
  const response = await callApi(request);
  if (response.status < 200 || response.status >= 300) throw new LocalWorkItemError(`${what}: ${describeApiError(response)}`);
  return response.body as T;
}

/** The contact fields a create takes (shared/schemas/contact-write.ts). */
const CONTACT_FIELDS = ['first_name', 'family_name', 'email', 'phone', 'passport_number', 'licence_number', 'custom_contact_info_1', 'custom_contact_info_2', 'identifier', 'type', 'date_of_birth', 'gender'] as const;
const WEBHOOK_FIELDS = ['endpoint', 'enabled', 'debug', 'trigger_fields', 'payload_fields', 'headers'] as const;

const pick = (record: Record<string, unknown>, fields: readonly string[]) =>
  Object.fromEntries(fields.filter((field) => record[field] !== undefined).map((field) => [field, record[field]]));

/**
 * Sends `items` in an order that lets references follow (contacts, then projects,
 * then files, then webhooks). `mappedId` says where an item already went (sent
 * before); `onSent` is told each item as soon as it is created there, so an item is
 * recorded as sent even if a later one fails. A file goes up with its project: when
 * the project is local work not sent yet, it is sent first. Roles, workflow stages
 * and activity belong to the org they were made in and are left behind.
 */
export async function sendLocalWork(
  ends: LocalWorkEnds,
  items: readonly LocalWorkItem[],
  allItems: readonly LocalWorkItem[],
  mappedId: (key: string) => number | null,
  onSent: (item: LocalWorkItem, remoteId: number) => void,
  onProgress: (progress: LocalWorkProgress) => void,
): Promise<{ sent: { key: string; title: string; remoteId: number }[]; failed: { key: string; title: string; error: string }[] }> {
  const { source, target } = ends;
  const byKey = new Map(allItems.map((item) => [item.key, item]));
  const ordered = [...items].sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind));
  const sent: { key: string; title: string; remoteId: number }[] = [];
  const failed: { key: string; title: string; error: string }[] = [];
  const newIds = new Map<string, number>();
  const idOf = (key: string) => newIds.get(key) ?? mappedId(key);
  let done = 0;
  const total = ordered.length;

  const sendOne = async (item: LocalWorkItem): Promise<number> => {
    const already = idOf(item.key);
    if (already !== null) return already;
    const remoteId = await create(item);
    newIds.set(item.key, remoteId);
    onSent(item, remoteId);
    sent.push({ key: item.key, title: item.title, remoteId });
    return remoteId;
  };

  const create = async (item: LocalWorkItem): Promise<number> => {
    if (item.kind === 'contact') {
      const contact = await readOk<Record<string, unknown>>(source.callApi, { method: 'GET', path: apiPaths.contact(source.orgId, item.id) }, 'it could not be read on this computer');
      const made = await readOk<{ id: number }>(target.callApi, { method: 'POST', path: apiPaths.contacts(target.orgId), body: pick(contact, CONTACT_FIELDS) }, `${target.orgName} refused it`);
      return made.id;
    }
    if (item.kind === 'project') {
      const project = await readOk<Record<string, unknown>>(source.callApi, { method: 'GET', path: apiPaths.project(source.orgId, item.id) }, 'it could not be read on this computer');
      // Empty and null fields are left to the remote's defaults (an empty country code is not a valid one to send).
      const body: Record<string, unknown> = Object.fromEntries(
        Object.entries(pick(project, [...Object.keys(WRITABLE_PLAIN_FIELDS), 'country_iso2', 'usage'])).filter(([, value]) => value !== null && value !== ''),
      );
      // Its contacts: the one already sent (or being sent) is linked; the others go with it as new contacts.
      const contacts = (project.contacts_data as Record<string, unknown>[] | undefined) ?? [];
      const linked: number[] = [];
      const fresh: Record<string, unknown>[] = [];
      for (const contact of contacts) {
        const mapped = idOf(`contact:${contact.id as number}`);
        if (mapped !== null) linked.push(mapped);
        else fresh.push(pick(contact, CONTACT_FIELDS));
      }
      if (linked.length > 0) body.contacts = linked;
      if (fresh.length > 0) body.contacts_new = fresh;
      const made = await readOk<{ id: number }>(target.callApi, { method: 'POST', path: apiPaths.projects(target.orgId), body }, `${target.orgName} refused it`);
      return made.id;
    }
    if (item.kind === 'private_file') {
      const file = await readOk<{ title: string; project: string | null; file_contents: string }>(
        source.callApi,
        { method: 'GET', path: apiPaths.privateFile(source.orgId, item.id) },
        'it could not be read on this computer',
      );
      const projectId = parseOrgReference(file.project, 'projects')?.id ?? null;
      let targetProject: number | null = null;
      if (projectId !== null) {
        const projectKey = `project:${projectId}`;
        const projectItem = byKey.get(projectKey);
        targetProject = idOf(projectKey);
        if (targetProject === null && projectItem) targetProject = await sendOne(projectItem);
        if (targetProject === null) throw new LocalWorkItemError(`its project “${item.projectTitle ?? projectId}” is not on ${target.orgName}. Send the project first, or attach the file there yourself`);
      }
      const download = await fetch(file.file_contents);
      if (!download.ok) throw new LocalWorkItemError(`its contents could not be read on this computer (${download.status})`);
      const bytes = new Uint8Array(await download.arrayBuffer());
      if (targetProject === null) throw new LocalWorkItemError('it belongs to no project, and files go up with their project');
      const uploaded = await uploadFile(target.callApi, target.orgId, { uploadId: `local-work-${item.id}`, projectId: targetProject, fileName: file.title, bytes, title: file.title }, () => {});
      return (uploaded.body as { id: number }).id;
    }
    const webhook = await readOk<Record<string, unknown>>(source.callApi, { method: 'GET', path: apiPaths.webhook(source.orgId, item.id) }, 'it could not be read on this computer');
    const made = await readOk<{ id: number }>(target.callApi, { method: 'POST', path: apiPaths.webhooks(target.orgId), body: pick(webhook, WEBHOOK_FIELDS) }, `${target.orgName} refused it`);
    return made.id;
  };

  for (const item of ordered) {
    onProgress({ done, total, title: item.title });
    try {
      await sendOne(item);
    } catch (error) {
      failed.push({ key: item.key, title: item.title, error: itemFailure(item, target.orgName, (error as Error).message) });
    }
    done += 1;
  }
  onProgress({ done, total, title: null });
  return { sent, failed };
}
