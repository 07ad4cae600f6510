// What sync needs to know of one kind of record it moves (docs/sync.md "Adding a
// synced model"): one object per model (project.ts, contact.ts, event.ts,
// webhook.ts, private-file.ts), gathered in index.ts. Push, pull, the replica and
// conflicts ask the registry instead of testing the model's name.
//
// The model modules sit below push, pull and the replica writers in the import
// graph: what they need from above (pushing another record first, re-keying) is
// handed to them as the steps below, so no import goes in a circle.
import type { Transaction } from 'kysely';
import type { Database } from '../../engine/store/tables.ts';
import type { RecordSnapshot } from '../../engine/changes/record-snapshots.ts';
import type { OrgRecordKind } from '../../../shared/api-paths.ts';
import type { ThrottleAction } from '../../../shared/throttle-rates.ts';
import type { Clock } from '../../engine/clock.ts';
import type { OutboxGroup } from '../outbox.ts';
import type { RecordView, SyncedModel } from '../sync-models.ts';
import type { SyncContext } from '../sync-context.ts';
import type { RemoteRecord } from '../remote-records.ts';
import type { OrgVerdict, SharingOrg } from '../record-orgs.ts';

type Trx = Transaction<Database>;

/**
 * A local record's snapshot: our own engine's JSON (its serializers are typed by
 * shared/schemas/), read through a model's view; push reads only these fields by
 * name. What the remote sends is read as a Remote* type (remote-records.ts).
 */
export type LocalRecord = RecordSnapshot & {
  readonly id: number;
  /** A project's contacts (those from 10^12 up were made offline). */
  readonly contacts_data?: readonly LocalRecord[];
  readonly workflow?: { readonly workflow_id?: number } | null;
  /** An event's project. */
  readonly project_id?: number | null;
};

/** A JSON request body: field names and the values the remote's API takes. */
export type RequestBody = Record<string, unknown>;

/** The throttle actions (shared/throttle-rates.ts) a model's requests count against, so the pacer waits in the right bucket. */
export interface QuotaActions {
  readonly list: ThrottleAction;
  readonly detail: ThrottleAction;
  readonly create: ThrottleAction;
  readonly update: ThrottleAction;
  readonly remove: ThrottleAction;
  /** A chunked upload's start and each of its parts (private files). */
  readonly upload?: ThrottleAction;
}

/** What a model's lost-create lookup is given: the local record, and a list request on the model's path. */
export interface LostCreateLookup {
  readonly sync: SyncContext;
  readonly json: LocalRecord | null;
  readonly view: RecordView | null;
  /** The client op id the create was sent with. */
  readonly opId: string;
  /** The model's list on the remote with this query, read as its records; throws when the remote did not answer. */
  list(query: Record<string, string | number>): Promise<RemoteRecord[]>;
}

/** Where a pulled record is written: the replica's transaction and who this replica is. */
export interface ReplicaWrite {
  readonly trx: Trx;
  readonly sync: Pick<SyncContext, 'orgId' | 'localUserId'> & { clock?: Clock };
  /** View values of fields with local changes still waiting: they stay as they are locally. */
  readonly keep: RecordView;
  /** The org that shares this record here (a project; record-orgs.ts), or null for the org's own. */
  readonly sharedBy: SharingOrg | null;
}

/** What push.ts lets a model do before its record goes up. */
export interface PushSteps {
  readonly sync: SyncContext;
  /** `model:id` of records already pushed in this pass. */
  readonly done: ReadonlySet<string>;
  /** Pushes another record's queued changes now (push.ts pushGroup); returns how many requests it made. */
  pushGroup(group: OutboxGroup): Promise<number>;
}

/** What push-answers.ts lets a model do with a create's answer, in its transaction. */
export interface CreateAnswerSteps {
  readonly trx: Trx;
  readonly sync: SyncContext;
  /** Gives a record made offline the remote's id everywhere (record-ids.ts rekey). */
  rekey(model: SyncedModel, from: number, to: number): Promise<void>;
  /** Stores a record's merge base as the remote sent it. */
  storeBase(model: SyncedModel, id: number, remote: RemoteRecord): Promise<void>;
}

/** A record that belongs to a project, and how the change feed reads it (feed-pull.ts). */
export interface ProjectPart {
  /** The view field that names the project. */
  readonly field: string;
  /**
   * `files`: a changed record of a project is read with its project's other changed
   * files (one list request); `detail`: one of a project the replica lacks comes
   * with that project's detail.
   */
  readonly feed: 'files' | 'detail';
}

/** A model whose records carry bytes (private files): their new contents go up by their own upload, never in a PATCH. */
export interface RecordContents {
  /** The view field naming the bytes (their sha256). */
  readonly field: string;
  /** The view field of tags that may have been made here: they go up before the record names them (push-tags.ts). */
  readonly tagsField: string;
}

export interface SyncModel {
  readonly model: SyncedModel;
  /** Its path segment on the API (`/api/orgs/<org>/<path>/`). */
  readonly path: OrgRecordKind;
  readonly quota: QuotaActions;
  /** Its writable fields with references reduced to ids, so a local and a remote copy compare equal whatever host they came from. */
  view(json: Record<string, unknown>): RecordView;
  /** The fields of a PATCH for queued changes of `fields`. */
  pushableFields(fields: readonly string[]): string[];
  /** A PATCH's body for `fields`, as the remote's API takes them. */
  updateBody(sync: SyncContext, json: LocalRecord, fields: readonly string[]): Promise<RequestBody>;
  /** A create's body, or `waiting` while a record it names has no remote id yet. */
  createBody(sync: SyncContext, group: OutboxGroup, json: LocalRecord, opId: string): Promise<RequestBody | FormData | 'waiting'>;
  /** A create whose answer never came, found on the remote (or null: not there, send it again). */
  findLostCreate(lookup: LostCreateLookup): Promise<RemoteRecord | null>;
  /** A value typed to settle a conflict, checked as a write through the API would be, in the view's form. */
  checkValue(field: string, value: unknown): unknown;
  /** Sets view values on the local record (a settled conflict). */
  applyView(trx: Trx, id: number, view: RecordView): Promise<void>;
  /** Whether a pulled record may be written into this org's replica (record-orgs.ts). */
  orgVerdict(sync: SyncContext, record: RemoteRecord): Promise<OrgVerdict>;
  /** Writes a record the remote sent into the replica. */
  store(write: ReplicaWrite, record: RemoteRecord): Promise<void>;
  /** Deletes the record's rows and its links from the replica (sync's bookkeeping of it goes in replica-removal.ts). */
  remove(trx: Trx, id: number): Promise<void>;

  // Hooks only some models have.
  /** The create mark a record carries (a project's client op id): an answer with another one is another create's. */
  createMarkOf?(answer: RemoteRecord): string | undefined;
  /** Records made offline that this change names go up first, so it can name them; `create` for a create. Returns requests made. */
  pushReferencesFirst?(steps: PushSteps, json: LocalRecord, fields: readonly string[] | 'create'): Promise<number>;
  /** Whether an update of `fields` must wait: it names a record made offline that has no remote id yet. */
  waitsFor?(json: LocalRecord, fields: readonly string[]): boolean;
  /** After a create's answer, before the record is re-keyed: records the create made too (a new project's new contacts) take the remote's. */
  adoptCreated?(steps: CreateAnswerSteps, local: LocalRecord | null, answer: RemoteRecord): Promise<void>;
  readonly projectPart?: ProjectPart;
  readonly contents?: RecordContents;
}

/** The quota of a model whose requests have none of their own: SolarDesk's `default` for every endpoint (service.md 8). */
export const DEFAULT_QUOTA: QuotaActions = { list: 'default', detail: 'default', create: 'default', update: 'default', remove: 'default' };

/** Every queued field goes in a PATCH (no field of the model has its own upload). */
export const everyField = (fields: readonly string[]): string[] => [...fields];

/** A typed conflict value taken as given: the model's fields have no rules beyond the API's own checks. */
export const valueAsTyped = (_field: string, value: unknown): unknown => value;

/** A body of view values as they are: a model whose fields the API takes as the view holds them. */
export function viewFieldsBody(view: RecordView, fields: readonly string[]): RequestBody {
  return Object.fromEntries(fields.map((field) => [field, view[field]]));
}
