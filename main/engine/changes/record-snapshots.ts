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

export interface SnapshotSource {
  readonly model: TrackedModel;
  /** The record's API view inside the write's transaction; null when the org has no such record. */
  read(trx: Transaction<Database>, context: EngineContext, orgId: number, id: number): Promise<RecordSnapshot | null>;
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
): Promise<RecordSnapshot | null> {
  return sourceOf(context, model).read(trx, context, orgId, id);
}

/** The project a record is part of, read from its snapshot; null when none. */
export function projectOfSnapshot(context: EngineContext, model: TrackedModel, id: number, snapshot: RecordSnapshot): number | null {
  return sourceOf(context, model).projectOf(id, snapshot);
}
