// `sync_state` is sync's table of small named values (docs/tables.md). No module
// names its keys but their owners: the functions here, which say what each value
// is, and the few modules that keep values by record (see "sync's own values"). The local work ledger (main/core/local-work.ts) keeps one JSON entry per
// record a person made or changed in the embedded store, and the moment the ledger
// began; the entry's shape is the core's, the keys are sync's.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { LocalWorkKind } from '../../shared/bridge.ts';
import type { SyncedModel } from './sync-models.ts';

type Db = Kysely<Database> | Transaction<Database>;

const LEDGER_PREFIX = 'local_work:';
/** Set once the ledger exists in a store (the first start of a version that keeps it). */
const LEDGER_SINCE_KEY = 'local_work_since';
const ledgerKey = (kind: LocalWorkKind, id: number) => `${LEDGER_PREFIX}${kind}:${id}`;

export interface LedgerRow {
  kind: LocalWorkKind;
  id: number;
  /** The core's JSON entry. */
  entry: string;
}

/** The ledger entry of one record, or null. */
export async function readLedgerEntry(db: Db, kind: LocalWorkKind, id: number): Promise<string | null> {
  const row = await db.selectFrom('sync_state').select('value').where('key', '=', ledgerKey(kind, id)).executeTakeFirst();
  return row?.value ?? null;
}

export async function writeLedgerEntry(trx: Transaction<Database>, kind: LocalWorkKind, id: number, entry: string): Promise<void> {
  await trx
    .insertInto('sync_state')
    .values({ key: ledgerKey(kind, id), value: entry })
    .onConflict((conflict) => conflict.column('key').doUpdateSet({ value: entry }))
    .execute();
}

export async function removeLedgerEntry(trx: Transaction<Database>, kind: LocalWorkKind, id: number): Promise<void> {
  await trx.deleteFrom('sync_state').where('key', '=', ledgerKey(kind, id)).execute();
}

/** Every entry of the ledger. */
export async function listLedgerEntries(db: Db): Promise<LedgerRow[]> {
  const rows = await db.selectFrom('sync_state').select(['key', 'value']).where('key', 'like', `${LEDGER_PREFIX}%`).execute();
  return rows.map((row) => {
    const [kind, idText] = row.key.slice(LEDGER_PREFIX.length).split(':') as [LocalWorkKind, string];
    return { kind, id: Number(idText), entry: row.value };
  });
}

/** When the ledger began in this store, or null before its first start. */
export async function ledgerSince(db: Db): Promise<string | null> {
  const row = await db.selectFrom('sync_state').select('value').where('key', '=', LEDGER_SINCE_KEY).executeTakeFirst();
  return row?.value ?? null;
}

/** Starts the ledger with `rows` (entries already there are kept), once: later calls change nothing. */
export async function startLedger(db: Kysely<Database>, rows: readonly LedgerRow[], now: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const row of rows) {
      await trx.insertInto('sync_state').values({ key: ledgerKey(row.kind, row.id), value: row.entry }).onConflict((conflict) => conflict.column('key').doNothing()).execute();
    }
    await trx.insertInto('sync_state').values({ key: LEDGER_SINCE_KEY, value: now }).onConflict((conflict) => conflict.column('key').doNothing()).execute();
  });
}

// ---- sync's own values --------------------------------------------------------
// One key each (the names data folders already hold); their owners' modules say
// what they mean: the loop (sync-engine.ts), the pulls (pull.ts, pull-plan.ts), the
// change feed (feed-pull.ts), push's contents route and the re-key (record-ids.ts).
// The contents policy (contents-policy.ts), the folder twins (folder-twins.ts) and
// push's folder copies (push-folder-copies.ts) keep their own keys, by record. Lint
// lets only these modules query sync_state (eslint.config.js, `syncStateOwners`).

async function readValue(db: Db, key: string): Promise<string | undefined> {
  return (await db.selectFrom('sync_state').select('value').where('key', '=', key).executeTakeFirst())?.value;
}

async function writeValue(db: Db, key: string, value: string): Promise<void> {
  await db.insertInto('sync_state').values({ key, value }).onConflict((conflict) => conflict.column('key').doUpdateSet({ value })).execute();
}

/** Whether a person paused sync (kept across restarts). */
export const isPaused = async (db: Db): Promise<boolean> => (await readValue(db, 'paused')) === 'true';
export const setPaused = (db: Db, paused: boolean): Promise<void> => writeValue(db, 'paused', String(paused));

/** When a cycle last ended well. */
export const lastSyncedAt = async (db: Db): Promise<string | null> => (await readValue(db, 'last_synced_at')) ?? null;
export const setLastSyncedAt = (db: Db, at: string): Promise<void> => writeValue(db, 'last_synced_at', at);

/** The pacer's snapshot (quota-pacer.ts), JSON: today's spend and the budget's levels survive a restart. */
export const keptBudget = (db: Db): Promise<string | undefined> => readValue(db, 'quota_budget');
export const keepBudget = (db: Db, snapshotJson: string): Promise<void> => writeValue(db, 'quota_budget', snapshotJson);

/** Until when the remote asked to be left alone (an ISO time; '' once a good cycle cleared it). */
export const busyUntil = (db: Db): Promise<string | undefined> => readValue(db, 'remote_busy_until');
export const keepBusyUntil = (db: Db, until: string): Promise<void> => writeValue(db, 'remote_busy_until', until);

/** How many timed pulls ran (every DELETION_SWEEP_EVERY-th sweeps, pull.ts). */
export const pullCount = async (db: Db): Promise<number> => Number((await readValue(db, 'pull_count')) ?? '0');
export const setPullCount = (db: Db, count: number): Promise<void> => writeValue(db, 'pull_count', String(count));

/** The sweep of every list is due at the next chance (a list shifted under a walk, a 410 from the feed). */
const SWEEP_DUE_KEY = 'sweep_due';
export const isSweepDue = async (db: Db): Promise<boolean> => (await readValue(db, SWEEP_DUE_KEY)) === 'true';
export const setSweepDue = (db: Db, due: boolean): Promise<void> => writeValue(db, SWEEP_DUE_KEY, String(due));

/** The sweep of the files' list is due (pull-plan.ts). */
export const isFilesSweepDue = async (db: Db): Promise<boolean> => (await readValue(db, 'files_sweep_due')) === 'true';
export const setFilesSweepDue = (db: Db, due: boolean): Promise<void> => writeValue(db, 'files_sweep_due', String(due));

/** Project ids whose private files are due a lookup (pull-plan.ts). */
export const projectsWithFilesDue = async (db: Db): Promise<number[]> => JSON.parse((await readValue(db, 'files_due')) ?? '[]') as number[];
export const setProjectsWithFilesDue = (db: Db, ids: Iterable<number>): Promise<void> => writeValue(db, 'files_due', JSON.stringify([...new Set(ids)]));

/** The newest `modified_date` a pull of `list` read to (pull.ts). */
export const highWaterMark = (db: Db, list: string): Promise<string | undefined> => readValue(db, `${list}_high_water`);
export const setHighWaterMark = (db: Db, list: string, modified: string): Promise<void> => writeValue(db, `${list}_high_water`, modified);

/** The newest row a one-row probe of `list` saw (pull-plan.ts). */
export const lastProbe = (db: Db, list: string): Promise<string | undefined> => readValue(db, `${list}_probe`);
export const setLastProbe = (db: Db, list: string, top: string): Promise<void> => writeValue(db, `${list}_probe`, top);

/** The newest row of `list` a probe saw move, whose walk has not run yet ('' when none waits; pull-plan.ts). */
export const movedTop = async (db: Db, list: string): Promise<string | undefined> => (await readValue(db, `${list}_moved`)) || undefined;
export const setMovedTop = (db: Db, list: string, top: string | null): Promise<void> => writeValue(db, `${list}_moved`, top ?? '');

/** When a planned step (`sweep`, `files_sweep`, `small_lists`) last ran through (pull-plan.ts). */
export type PlannedStep = 'sweep' | 'files_sweep' | 'small_lists';
export const lastDoneAt = (db: Db, step: PlannedStep): Promise<string | undefined> => readValue(db, `${step}_at`);
export const setLastDoneAt = (db: Db, step: PlannedStep, at: string): Promise<void> => writeValue(db, `${step}_at`, at);

/** `absent` once the remote answered the contents route with 404/405 for a file it has (push's contents replace). */
export const CONTENTS_ROUTE_KEY = 'remote_contents_route';
export const contentsRouteAbsent = async (db: Db): Promise<boolean> => (await readValue(db, CONTENTS_ROUTE_KEY)) === 'absent';
export const markContentsRouteAbsent = (db: Db): Promise<void> => writeValue(db, CONTENTS_ROUTE_KEY, 'absent');

/** `absent` once the remote answered the making of an org's own file tag with 404/405 (the hosted service: only the catalogue; push-tags.ts). */
const ORG_TAGS_KEY = 'remote_org_tags';
export const orgTagsAbsent = async (db: Db): Promise<boolean> => (await readValue(db, ORG_TAGS_KEY)) === 'absent';
export const markOrgTagsAbsent = (db: Db): Promise<void> => writeValue(db, ORG_TAGS_KEY, 'absent');

/** Where the agent is in the remote's change log (feed-pull.ts). */
export const feedCursor = (db: Db): Promise<string | undefined> => readValue(db, 'change_feed_cursor');
export const setFeedCursor = (db: Db, cursor: string): Promise<void> => writeValue(db, 'change_feed_cursor', cursor);

const rekeyedKey = (model: SyncedModel, from: number) => `rekeyed:${model}:${from}`;
/** Remembers that a provisional id became `to` (record-ids.ts), so whoever kept it can find the record again. */
export const markRekeyed = (trx: Transaction<Database>, model: SyncedModel, from: number, to: number): Promise<void> => writeValue(trx, rekeyedKey(model, from), String(to));
/** The id a provisional id became, if it was re-keyed. */
export const rekeyedTo = async (db: Db, model: SyncedModel, from: number): Promise<number | null> => {
  const to = await readValue(db, rekeyedKey(model, from));
  return to === undefined ? null : Number(to);
};

const FOLDER_COPY_PREFIX = 'folder_copy:';
/**
 * A file this computer created from a project folder, not yet checked for a racing
 * copy (push-folder-copies.ts): marked in its create's transaction, so a kill before
 * the check leaves it due. Kept with its sha256.
 */
export async function markFolderCopy(trx: Transaction<Database>, fileId: number, fileHash: string): Promise<void> {
  await trx.insertInto('sync_state').values({ key: `${FOLDER_COPY_PREFIX}${fileId}`, value: fileHash }).onConflict((conflict) => conflict.column('key').doNothing()).execute();
}

/** The folder copies whose race check is still due. */
export async function folderCopiesToCheck(db: Db): Promise<number[]> {
  const marks = await db.selectFrom('sync_state').select('key').where('key', 'like', `${FOLDER_COPY_PREFIX}%`).execute();
  return marks.map(({ key }) => Number(key.slice(FOLDER_COPY_PREFIX.length)));
}

export async function folderCopyChecked(db: Db, fileId: number): Promise<void> {
  await db.deleteFrom('sync_state').where('key', '=', `${FOLDER_COPY_PREFIX}${fileId}`).execute();
}
