// How an update reaches the remote without overwriting a change it has not seen
// (issue 19, finding 2). A pull-then-PATCH is not atomic: another client may write
// between the two. On a remote that honours If-Match (a SolarDesk server), the
// PATCH names the version its merge base came from, and a 412 means "re-read that
// record, merge it against the base (a field changed on both sides becomes a
// conflict), push what is left with the new version". On a remote that ignores
// If-Match (the hosted service), the record is re-read and merged right before
// each PATCH: the window shrinks to one round trip, which is as far as its API
// allows (docs/sync.md).
import { versionTag } from '../engine/http/preconditions.ts';
import type { SyncedModel } from './sync-models.ts';
import { syncModel } from './models/index.ts';
import { type SyncContext, remotePath } from './sync-context.ts';
import { throwUnlessAnswered } from './remote-errors.ts';
import { mergeRemote } from './pull.ts';
import { readRemote } from './remote-records.ts';

/** Records whose remote updates can be conditional: every synced model (events since issue 27). */
const CONDITIONAL_MODELS: ReadonlySet<SyncedModel> = new Set(['project', 'contact', 'event', 'private_file', 'webhook']);

/** How many times one push re-reads a record that keeps moving before it leaves the change for a later cycle. */
export const MAX_PRECONDITION_ROUNDS = 3;

/**
 * Reads the record from the remote and merges it into the replica against its
 * merge base. Learns, from the first answer of a run, whether the remote honours
 * If-Match: a SolarDesk server's ETag is exactly the record's version.
 * Returns false when the remote no longer shows the record (the PATCH will say why)
 * or sent something that does not read as one.
 */
export async function rereadAndMerge(sync: SyncContext, model: SyncedModel, id: number): Promise<boolean> {
  const outcome = await sync.remote.request({ method: 'GET', path: remotePath(sync, model, id), action: syncModel(model).quota.detail });
  throwUnlessAnswered(outcome);
  if (outcome.kind !== 'ok') return false;
  // Unreadable: reported with the cycle's skipped records; the PATCH's own answer says the rest.
  const record = readRemote(sync.unreadable, model, outcome.body);
  if (!record) return false;
  const preconditions = sync.preconditions;
  if (preconditions && preconditions.mode === 'detect' && preconditions.honoured === undefined) {
    preconditions.honoured = typeof record.modified_date === 'string' && outcome.etag === versionTag(record.modified_date);
  }
  await mergeRemote(sync, model, record);
  return true;
}

/**
 * Gets a record ready for its PATCH: returns the If-Match to send (none when the
 * remote does not honour it) and how many requests that took. Reads the record
 * first when there is no version to name, or when the remote ignores If-Match.
 */
export async function prepareConditionalUpdate(sync: SyncContext, model: SyncedModel, id: number): Promise<{ ifMatch: string | undefined; requests: number }> {
  if (!CONDITIONAL_MODELS.has(model) || !sync.preconditions) return { ifMatch: undefined, requests: 0 };
  let requests = 0;
  const honoured = () => sync.preconditions!.mode === 'detect' && sync.preconditions!.honoured === true;
  let version = honoured() ? await storedVersion(sync, model, id) : null;
  if (!version) {
    await rereadAndMerge(sync, model, id);
    requests++;
    version = honoured() ? await storedVersion(sync, model, id) : null;
  }
  return { ifMatch: version ? versionTag(version) : undefined, requests };
}

/** The remote version the record's merge base was taken at. */
async function storedVersion(sync: SyncContext, model: SyncedModel, id: number): Promise<string | null> {
  const row = await sync.db.selectFrom('sync_records').select('remote_modified').where('model', '=', model).where('record_id', '=', id).executeTakeFirst();
  return row?.remote_modified ?? null;
}
