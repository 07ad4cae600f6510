// The API view of a tracked record, as change capture, webhooks and the sync
// outbox see it: the record's detail JSON without the (large, plan-gated) design.
// Each model registers how to read its view (from its own service module, when
// the engine is built), so change capture imports no model and no model's
// serializer imports change capture back through it.
import type { Transaction } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';

export type TrackedModel = 'project' | 'contact' | 'event' | 'webhook' | 'private_file';
export type RecordSnapshot = Record<string, unknown>;

/**
 * Which of a view's lists of other tracked records to include (`lists`): a
 * project's view lists every file and every event of the project, so reading it
 * whole costs more the bigger the project is. Change capture reads a list only
 * when a capture asks for it (a webhook whose fields reach it); a write that
 * attaches a file tracks the file itself, which is how the change is seen without
 * the list. Absent: the whole view.
 */
export interface SnapshotParts {
  lists: ReadonlySet<TrackedModel>;
}

export interface SnapshotSource {
  readonly model: TrackedModel;
  /** The view's fields that list records of another tracked model, and which model (a project's `private_files_data`: `private_file`). */
  readonly listFields?: Readonly<Record<string, TrackedModel>>;
  /** The record's API view inside the write's transaction; null when the org has no such record. Without `parts`, the whole view. */
  read(trx: Transaction<Database>, context: EngineContext, orgId: number, id: number, parts?: SnapshotParts): Promise<RecordSnapshot | null>;
  /** The project the record is part of, from its view; null when none or several. */
  projectOf(id: number, snapshot: RecordSnapshot): number | null;
}

const sourcesByEngine: WeakMap<EngineContext, Map<TrackedModel, SnapshotSource>> = new WeakMap();

export function registerSnapshotSource(context: EngineContext, source: SnapshotSource): void {
  const sources = sourcesByEngine.get(context) ?? new Map<TrackedModel, SnapshotSource>();
  sources.set(source.model, source);
  sourcesByEngine.set(context, sources);
}

function sourceOf(context: EngineContext, model: TrackedModel): SnapshotSource {
  const source = sourcesByEngine.get(context)?.get(model);
  if (!source) throw new Error(`no snapshot source registered for ${model}: the engine registers every model's when it is built`);
  return source;
}

export async function snapshotRecord(
  trx: Transaction<Database>,
  context: EngineContext,
  orgId: number,
  model: TrackedModel,
  id: number,
  parts?: SnapshotParts,
): Promise<RecordSnapshot | null> {
  return sourceOf(context, model).read(trx, context, orgId, id, parts);
}

/** The fields of `model`'s view that list other tracked records, and which model each lists. */
export function listFieldsOf(context: EngineContext, model: TrackedModel): Readonly<Record<string, TrackedModel>> {
  return sourceOf(context, model).listFields ?? {};
}

/** The project a record is part of, read from its snapshot; null when none. */
export function projectOfSnapshot(context: EngineContext, model: TrackedModel, id: number, snapshot: RecordSnapshot): number | null {
  return sourceOf(context, model).projectOf(id, snapshot);
}
