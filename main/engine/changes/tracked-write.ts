// Every write that changes a project, a contact or an event goes through
// writeTracked(): one transaction in which the write runs and, before it commits,
// the change is captured (webhook deliveries and activity events; later the sync
// outbox). A write calls track.project(id) (or .contact/.event) BEFORE it changes
// that record, or right after inserting a new one with `{ created: true }`, so the
// record can be compared before and after. Once the transaction has committed,
// what changed is announced on the engine's change feed (change-feed.ts).
import type { Transaction } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import { listFieldsOf, projectOfSnapshot, snapshotRecord, type RecordSnapshot, type SnapshotParts, type TrackedModel } from './record-snapshots.ts';
import type { RecordChangeEvent, WriteScope } from './change-feed.ts';

export type { TrackedModel } from './record-snapshots.ts';

export interface ChangeTracker {
  project(id: number, options?: { created?: boolean }): Promise<void>;
  contact(id: number, options?: { created?: boolean }): Promise<void>;
  event(id: number, options?: { created?: boolean }): Promise<void>;
  webhook(id: number, options?: { created?: boolean }): Promise<void>;
  privateFile(id: number, options?: { created?: boolean }): Promise<void>;
  /** Any tracked model, for code that handles them alike (sync). */
  record(model: TrackedModel, id: number, options?: { created?: boolean }): Promise<void>;
}

export interface RecordChange {
  model: TrackedModel;
  id: number;
  /** The record's API view before the write; null for a record the write created. */
  before: RecordSnapshot | null;
  /** The record's API view after the write; null for a record the write deleted. */
  after: RecordSnapshot | null;
}

/**
 * Something that reacts to changes inside the write's own transaction. `derive`
 * captures may write more records (activity events) and track them; `deliver`
 * captures (webhooks, the sync outbox) then see the final state of everything.
 */
export interface ChangeCapture {
  readonly phase: 'derive' | 'deliver';
  capture(trx: Transaction<Database>, orgId: number, changes: RecordChange[], track: ChangeTracker): Promise<void>;
  /**
   * The top-level fields of `model`'s view this capture reads for this org ('all'
   * for every one). Absent, or a field that lists other tracked records (a
   * project's `private_files_data`, `events_data`) not among them: the snapshots
   * leave that list out, so a write to a project with 1,000 files reads none of
   * them. A change to a listed record is a change of its own (the write tracks it).
   */
  fieldsRead?(trx: Transaction<Database>, orgId: number, model: TrackedModel): Promise<ReadonlySet<string> | 'all'>;
}

const capturesByEngine: WeakMap<EngineContext, ChangeCapture[]> = new WeakMap();

export function addChangeCapture(context: EngineContext, capture: ChangeCapture): void {
  capturesByEngine.set(context, [...(capturesByEngine.get(context) ?? []), capture]);
}

/** One record a write changed, as the feed and the change log (change-log.ts) describe it. */
export interface DescribedChange {
  model: TrackedModel;
  id: number;
  op: RecordChangeEvent['op'];
  projectId: number | null;
  /** The record's view after the write; null for a delete. */
  after: RecordSnapshot | null;
  /** An update's top-level fields whose value changed (the activity log names them); empty for a create or delete. */
  changedFields: string[];
}

/**
 * Each snapshot value's JSON, made once: a write's "after" is the next write's
 * "before" (keptSnapshot), and a write's changes are described for the change log
 * and again for the feed, so a project's design (tens of KB) was serialised eight
 * times a PATCH. Snapshots are never changed once taken.
 */
const jsonOfValue = new WeakMap<object, string>();
function jsonOf(value: object): string {
  let json = jsonOfValue.get(value);
  if (json === undefined) jsonOfValue.set(value, (json = JSON.stringify(value)));
  return json;
}

/** Whether two values of a snapshot's field are the same, as their JSON says. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return JSON.stringify(a) === JSON.stringify(b);
  return jsonOf(a) === jsonOf(b);
}

/** The top-level fields of a record's view that differ between two snapshots. */
function fieldsChanged(before: RecordSnapshot | null, after: RecordSnapshot | null): string[] {
  if (!before || !after) return [];
  const changed = Object.keys(after).filter((field) => !sameValue(before[field], after[field]));
  for (const field of Object.keys(before)) if (!(field in after)) changed.push(field);
  return changed;
}

/** Each write's described changes, kept with its list of changes: the change log and the feed both ask. */
const describedOf = new WeakMap<readonly RecordChange[], DescribedChange[]>();

/** What a write changed: records whose API view did not change are left out. */
export function describeChanges(context: EngineContext, changes: readonly RecordChange[]): DescribedChange[] {
  const known = describedOf.get(changes);
  if (known) return known;
  const changedFieldsOf = new Map<RecordChange, string[]>();
  const changed = new Set(
    changes.filter((change) => {
      if (change.before === null) return change.after !== null; // a create, unless made and removed within the write
      if (change.after === null) return true;
      const fields = fieldsChanged(change.before, change.after);
      changedFieldsOf.set(change, fields);
      return fields.length > 0;
    }),
  );
  // A project's whole view lists its files and events: when one of them changed, so
  // did the project's view, even where its snapshots left those lists out.
  const projectLists = new Set(Object.values(listFieldsOf(context, 'project')));
  const projectsWithListChanges = new Set<number>();
  for (const change of changed) {
    if (!projectLists.has(change.model)) continue;
    for (const snapshot of [change.before, change.after]) {
      const projectId = snapshot ? projectOfSnapshot(context, change.model, change.id, snapshot) : null;
      if (projectId !== null) projectsWithListChanges.add(projectId);
    }
  }
  const described: DescribedChange[] = [];
  for (const change of changes) {
    const listChanged = change.model === 'project' && change.before !== null && change.after !== null && projectsWithListChanges.has(change.id);
    if (!changed.has(change) && !listChanged) continue;
    const op = change.before === null ? 'create' : change.after === null ? 'delete' : 'update';
    const projectId = projectOfSnapshot(context, change.model, change.id, (change.after ?? change.before)!);
    described.push({ model: change.model, id: change.id, op, projectId, after: change.after, changedFields: op === 'update' ? (changedFieldsOf.get(change) ?? []) : [] });
  }
  describedOf.set(changes, described);
  return described;
}

/** What the feed hears of a write's changes. */
function describeCommitted(context: EngineContext, scope: WriteScope, changes: readonly RecordChange[]): RecordChangeEvent[] {
  return describeChanges(context, changes).map(({ model, id, op, projectId, changedFields }) => ({ model, id, op, orgId: scope.orgId, by: scope.by, projectId, changedFields }));
}

/** Runs `write` in one transaction with change capture, then announces what it changed on `context.changes`. */
export async function writeTracked<T>(
  context: EngineContext,
  scope: WriteScope,
  write: (trx: Transaction<Database>, track: ChangeTracker) => Promise<T>,
): Promise<T> {
  return writeAndAnnounce(context, scope, capturesByEngine.get(context) ?? [], write);
}

/**
 * A write that is announced on the feed but captured by nothing: sync applying the
 * remote's records to a replica. The outbox must not send them back, and the
 * remote, not the replica, records their activity and delivers their webhooks.
 */
export async function writeAnnounced<T>(
  context: EngineContext,
  scope: WriteScope,
  write: (trx: Transaction<Database>, track: ChangeTracker) => Promise<T>,
): Promise<T> {
  return writeAndAnnounce(context, scope, [], write);
}

async function writeAndAnnounce<T>(
  context: EngineContext,
  scope: WriteScope,
  captures: readonly ChangeCapture[],
  write: (trx: Transaction<Database>, track: ChangeTracker) => Promise<T>,
): Promise<T> {
  let committed: RecordChange[] = [];
  const result = await writeCaptured(context, scope.orgId, captures, write, (changes) => {
    committed = changes;
  });
  context.changes.announce(describeCommitted(context, scope, committed));
  return result;
}

async function writeCaptured<T>(
  context: EngineContext,
  orgId: number,
  captures: readonly ChangeCapture[],
  write: (trx: Transaction<Database>, track: ChangeTracker) => Promise<T>,
  keepFinalView: (changes: RecordChange[]) => void,
): Promise<T> {
  // Snapshots are read by captures and by the feed's listeners; with neither, none are taken.
  const needsSnapshots = captures.length > 0 || context.changes.hasListeners;
  let snapshotsToKeep: SnapshotsToKeep | null = null;
  const committedResult = await context.db.transaction().execute(async (trx) => {
    // Writes read, then write (re-read the project, then merge the PATCH; the next
    // stage position; the before snapshot). SQLite runs one write at a time; on a
    // shared PostgreSQL, processes writing to the same org queue here instead, so
    // every write sees the one before it, whichever process made it.
    await context.store.lock(trx, [`org-writes:${orgId}`]);
    const pending = new Map<string, { model: TrackedModel; id: number; before: RecordSnapshot | null }>();
    // Each model's snapshots take the lists some capture reads, decided once per write.
    const partsByModel = new Map<TrackedModel, Promise<SnapshotParts>>();
    const partsOf = (model: TrackedModel): Promise<SnapshotParts> => {
      let parts = partsByModel.get(model);
      if (!parts) {
        parts = listsRead(trx, context, orgId, captures, model).then((lists) => ({ lists }));
        partsByModel.set(model, parts);
      }
      return parts;
    };
    const snapshot = async (model: TrackedModel, id: number) => snapshotRecord(trx, context, orgId, model, id, await partsOf(model));
    // The last committed write's view serves as this one's "before" only when it holds the same lists.
    const beforeSnapshot = async (model: TrackedModel, id: number) =>
      keptSnapshot(context, model, id, await partsOf(model)) ?? (await snapshot(model, id));
    const trackModel = (model: TrackedModel) => async (id: number, options: { created?: boolean } = {}) => {
      const key = `${model}:${id}`;
      if (pending.has(key)) return;
      const before = options.created || !needsSnapshots ? null : await beforeSnapshot(model, id);
      pending.set(key, { model, id, before });
    };
    const track: ChangeTracker = {
      project: trackModel('project'),
      contact: trackModel('contact'),
      event: trackModel('event'),
      webhook: trackModel('webhook'),
      privateFile: trackModel('private_file'),
      record: (model, id, options) => trackModel(model)(id, options),
    };
    const result = await write(trx, track);
    if (!needsSnapshots) return result;

    const snapshotAll = async (): Promise<RecordChange[]> => {
      const changes: RecordChange[] = [];
      for (const record of pending.values()) {
        changes.push({ ...record, after: await snapshot(record.model, record.id) });
      }
      return changes;
    };
    const firstView = await snapshotAll();
    const generationBeforeDerive = context.store.writes.records;
    for (const capture of captures) if (capture.phase === 'derive') await capture.capture(trx, orgId, firstView, track);
    // When the derive captures wrote nothing a view is built from (a PATCH of notes
    // records no activity), the first view is still the final one: not read again.
    const finalView =
      context.store.writes.records === generationBeforeDerive && firstView.length === pending.size
        ? firstView
        : await snapshotAll();
    const generationOfFinalView = context.store.writes.records;
    for (const capture of captures) if (capture.phase === 'deliver') await capture.capture(trx, orgId, finalView, track);
    keepFinalView(finalView);
    const partsByChange = new Map<RecordChange, SnapshotParts>();
    for (const change of finalView) partsByChange.set(change, await partsOf(change.model));
    snapshotsToKeep = { changes: finalView, partsByChange, generation: generationOfFinalView };
    return result;
  });
  // Only once committed: a rolled-back write's views must never be taken for the records' own.
  const toKeep = snapshotsToKeep as SnapshotsToKeep | null;
  if (toKeep) keepSnapshots(context, toKeep);
  return committedResult;
}

/**
 * The final snapshots of the last committed write of each record, so the next
 * write of the same record need not read and build its "before" again (issue 18:
 * a PATCH read and serialised its project four times). A kept snapshot is used only
 * while this process has made no write a view is built from since it was taken
 * (WriteGenerations.records, which on SQLite also sees other connections' commits)
 * and within the same minute (a project's snapshot carries signed links that
 * expire on a whole minute: download-links.ts, `stable`). Not on a shared
 * PostgreSQL, where another process may have changed the record.
 */
interface KeptSnapshot {
  snapshot: RecordSnapshot;
  /** The lists it holds (SnapshotParts): another write's captures may read other lists. */
  lists: ReadonlySet<TrackedModel>;
  generation: number;
  minute: number;
}
interface SnapshotsToKeep {
  changes: RecordChange[];
  partsByChange: Map<RecordChange, SnapshotParts>;
  generation: number;
}
const KEPT_SNAPSHOTS = 10_000;
const keptByEngine: WeakMap<EngineContext, Map<string, KeptSnapshot>> = new WeakMap();
/** The minute a stable link made now expires in (the same rounding as download-links.ts). */
const minuteOf = (context: EngineContext) => Math.ceil(Math.floor(context.clock.now().getTime() / 1000) / 60);

/** The kept snapshot of a record, if still current; with `parts`, only one holding exactly those lists. */
export function keptSnapshot(context: EngineContext, model: TrackedModel, id: number, parts?: SnapshotParts): RecordSnapshot | null {
  const kept = keptByEngine.get(context)?.get(`${model}:${id}`);
  if (!kept || kept.generation !== context.store.writes.records || kept.minute !== minuteOf(context)) return null;
  if (parts && !sameLists(kept.lists, parts.lists)) return null;
  return kept.snapshot;
}

const sameLists = (a: ReadonlySet<TrackedModel>, b: ReadonlySet<TrackedModel>) => a.size === b.size && [...a].every((model) => b.has(model));

function keepSnapshots(context: EngineContext, { changes, partsByChange, generation }: SnapshotsToKeep): void {
  if (context.store.shared) return;
  let kept = keptByEngine.get(context);
  if (!kept) keptByEngine.set(context, (kept = new Map()));
  if (kept.size >= KEPT_SNAPSHOTS) kept.clear();
  const minute = minuteOf(context);
  for (const change of changes) {
    const key = `${change.model}:${change.id}`;
    if (change.after === null) kept.delete(key);
    else kept.set(key, { snapshot: change.after, lists: partsByChange.get(change)!.lists, generation, minute });
  }
}

/** The models whose lists `model`'s snapshots must include: those whose fields a capture reads. */
async function listsRead(
  trx: Transaction<Database>,
  context: EngineContext,
  orgId: number,
  captures: readonly ChangeCapture[],
  model: TrackedModel,
): Promise<ReadonlySet<TrackedModel>> {
  const listFields = Object.entries(listFieldsOf(context, model));
  const lists = new Set<TrackedModel>();
  if (listFields.length === 0) return lists;
  for (const capture of captures) {
    const fields = (await capture.fieldsRead?.(trx, orgId, model)) ?? new Set<string>();
    for (const [field, listed] of listFields) if (fields === 'all' || fields.has(field)) lists.add(listed);
  }
  return lists;
}
