// How one change's request goes out and what its outcome means (push.ts): sending
// with the outbox rows marked in flight (the quota each write counts against is its
// model's: models/, `quota`), sorting the outcome into done / retry / park / stop,
// and reading a write's answer as the record written (a reply for another record is
// a failed write).
import type { OutboxRow } from './sync-tables.ts';
import { snapshotRecord } from '../engine/changes/record-snapshots.ts';
import { type OutboxGroup, groupOfRecord, markInFlight, markParked, markParkedAfterSending, markPending, removeFromOutbox } from './outbox.ts';
import type { SyncedModel } from './sync-models.ts';
import type { LocalRecord } from './models/sync-model.ts';
import { syncModel } from './models/index.ts';
import type { RemoteOutcome } from './remote-client.ts';
import { type SyncContext, retryDelay } from './sync-context.ts';
import { type RemoteRecord, parseRemote } from './remote-records.ts';
import { RemoteUnreachableError, SignInRequiredError } from './remote-errors.ts';

// The records and bodies a push handles (their shape is the models' concern: models/sync-model.ts).
export type { LocalRecord, RequestBody } from './models/sync-model.ts';

export async function localJson(sync: SyncContext, model: SyncedModel, id: number): Promise<LocalRecord | null> {
  return sync.db.transaction().execute((trx) => snapshotRecord(trx, sync.engine, sync.orgId, model, id)) as Promise<LocalRecord | null>;
}

export async function openConflictFields(sync: SyncContext, model: SyncedModel, id: number): Promise<Set<string>> {
  const rows = await sync.db.selectFrom('sync_conflicts').select('field').where('model', '=', model).where('record_id', '=', id).execute();
  return new Set(rows.map((row) => row.field));
}

export const isPreconditionFailed = (outcome: RemoteOutcome) => outcome.kind === 'rejected' && outcome.status === 412;

/** The record's queued changes as they are now. */
export async function reloadGroup(sync: SyncContext, group: OutboxGroup): Promise<OutboxGroup | undefined> {
  return groupOfRecord(sync.db, group.model, group.recordId, { pushableOnly: true });
}

export async function retryLater(sync: SyncContext, group: OutboxGroup, reason: string): Promise<void> {
  const attempts = Math.max(...group.rows.map((row) => row.attempts)) + 1;
  await markPending(sync.db, group.rows, { attempts, error: reason, retryAt: new Date(sync.clock.now().getTime() + retryDelay(sync.retry, attempts)).toISOString() });
}

/** Marks the rows sent, sends, and sorts the outcome into done / retry / park / stop. */
export async function send(
  sync: SyncContext,
  group: OutboxGroup,
  request: Parameters<SyncContext['remote']['request']>[0],
  options: { returnNotFound?: boolean; returnStatuses?: readonly number[] } = {},
): Promise<RemoteOutcome> {
  const { rows } = group;
  await markInFlight(sync.db, rows, sync.clock.now().toISOString());
  const { onAllowanceWait } = sync;
  // A wait for the org's allowance is told as this record's: its upload or edit waits, and says until when.
  const outcome = await sync.remote.request(onAllowanceWait ? { ...request, onAllowanceWait: (wait) => onAllowanceWait(group.model, group.recordId, wait) } : request);
  const attempts = Math.max(...group.rows.map((row) => row.attempts)) + 1;
  switch (outcome.kind) {
    case 'ok':
      return outcome;
    case 'unauthorized':
      await markPending(sync.db, rows, { error: outcome.message });
      throw new SignInRequiredError(outcome.message);
    case 'unreachable':
      // sent_at stays: the request may have been applied.
      await markPending(sync.db, rows, { attempts, error: outcome.message });
      throw new RemoteUnreachableError(outcome.message);
    case 'retry': {
      const delay = outcome.retryAfterMs ?? retryDelay(sync.retry, attempts);
      await markPending(sync.db, rows, {
        attempts,
        error: outcome.message,
        retryAt: new Date(sync.clock.now().getTime() + delay).toISOString(),
        // A 429 was never processed; a 5xx might have been, so a create stays "sent" and is looked for first.
        unsent: outcome.status === 429,
      });
      return outcome;
    }
    case 'rejected':
      if (outcome.status === 404 && (request.method === 'DELETE' || options.returnNotFound)) return outcome;
      if (options.returnStatuses?.includes(outcome.status)) return outcome;
      if (outcome.status === 412 && request.headers?.['if-match']) {
        // Not a rejection of the change: the record moved. The caller re-reads and merges.
        await markPending(sync.db, rows, { unsent: true });
        return outcome;
      }
      // One change the remote will not take is parked with its reason; the rest go on.
      await markParked(sync.db, rows, attempts, outcome.message);
      return outcome;
  }
}

/**
 * A write's answer read as the group's record. One that does not read as it (a
 * captive portal's page, a proxy's error in a 200, a record with an id from this
 * computer's provisional range) is a transient failure, not a refusal (issue 25,
 * item 11): the change stays queued and is tried again with its back-off. The write
 * may have landed: sent_at stays, so a create is looked for before it goes again.
 */
export async function readWriteAnswer(sync: SyncContext, group: OutboxGroup, body: unknown): Promise<RemoteRecord | null> {
  const parsed = parseRemote(group.model, body);
  if (parsed.ok) return parsed.record;
  await retryUnreadableAnswer(sync, group, parsed.reason);
  return null;
}

export async function retryUnreadableAnswer(sync: SyncContext, group: OutboxGroup, reason: string): Promise<void> {
  await retryLater(sync, group, `the remote's answer could not be read: ${reason}`);
}

/** Tries of a write answered for another record before it is parked and shown (it stays until the user retries or edits). */
export const OTHER_RECORD_TRIES = 5;

/**
 * Why a write's answer is not the record written (another id, or a project of
 * another org), or null when it is (issue 34, item 2). Such an answer says nothing
 * of what happened to the write, so none of it is kept.
 */
export function otherRecordIn(sync: SyncContext, model: SyncedModel, recordId: number, answer: RemoteRecord): string | null {
  if (answer.id !== recordId) return `the remote answered the write of ${model.replace('_', ' ')} ${recordId} with another record (${answer.id})`;
  const orgId = (answer as { org_id?: unknown }).org_id;
  if (typeof orgId === 'number' && orgId !== sync.orgId) return `the remote answered the write with a record of another organisation (${orgId})`;
  return null;
}

/**
 * Why a create's answer is not the record created, or null: a record carrying
 * another create's mark (a project's: its model's createMarkOf), or a record of another org. Its id is new, so
 * the id itself says nothing; one in the provisional range never reads (remote-records.ts).
 */
export function otherCreateIn(sync: SyncContext, model: SyncedModel, opId: string, answer: RemoteRecord): string | null {
  const mark = syncModel(model).createMarkOf?.(answer);
  if (mark !== undefined && mark !== opId) return `the remote answered the create with another record (${model.replace('_', ' ')} ${answer.id}, made by another change)`;
  const orgId = (answer as { org_id?: unknown }).org_id;
  if (typeof orgId === 'number' && orgId !== sync.orgId) return `the remote answered the create with a record of another organisation (${orgId})`;
  return null;
}

/**
 * A write whose answer does not show it applied: the change stays queued and is
 * tried again with its back-off; after OTHER_RECORD_TRIES it is parked with the
 * reason, where the Sync screen shows it with Retry. sent_at stays: a create may
 * have landed, and is looked for before it goes again.
 */
export async function failedWrite(sync: SyncContext, group: OutboxGroup, reason: string): Promise<void> {
  const attempts = Math.max(...group.rows.map((row) => row.attempts)) + 1;
  if (attempts >= OTHER_RECORD_TRIES) await markParkedAfterSending(sync.db, group.rows, reason, attempts);
  else await retryLater(sync, group, reason);
}

export async function finishRows(sync: SyncContext, rows: OutboxRow[]): Promise<number> {
  await removeFromOutbox(sync.db, rows);
  return 0;
}

/** Long enough for a body at a slow 32 KiB/s uplink, never under the usual 30 s. */
export const timeoutForBytes = (bytes: number) => Math.max(30_000, Math.ceil(bytes / 32_768) * 1000);
