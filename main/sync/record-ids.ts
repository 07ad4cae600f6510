// The one place that decides what happens to references when a record's id
// changes (docs/tables.md "Record ids", docs/sync.md "Provisional ids"): a record
// made offline has a provisional id (10^12 up) until the remote answers its create,
// then takes the remote's id everywhere. Built from each part's declaration of the
// columns that hold record ids: the engine's (store/id-columns.ts) are moved here,
// the watcher's (watch-tables.ts) by the watcher's own functions, handed in as
// `folders`, and sync's own (sync-tables.ts) below. A column added without a
// declaration fails tests/record-id-columns.test.ts.
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import { ENGINE_ID_COLUMNS } from '../engine/store/id-columns.ts';
import { columnsHolding, type RecordIdModel } from '../engine/store/table-ownership.ts';
import { rekeyDocumentProject } from '../engine/documents/document-input-ids.ts';
import type { ProjectFolderRecords } from './folder-records.ts';
import { PROVISIONAL_ID_FLOOR, type SyncedModel, isProvisional } from './sync-models.ts';
import { deleteReplicaRecord } from './replica-removal.ts';
import { rekeyOutbox } from './outbox.ts';
import { rekeyFileContentsState, rekeyProjectContentsState } from './contents-policy.ts';
import { markRekeyed, rekeyedTo } from './sync-state.ts';

type Trx = Transaction<Database>;

// Sync's models are the records whose ids can change (the engine's declarations name them).
const SYNCED_MODELS_ARE_RECORD_ID_MODELS: [SyncedModel, RecordIdModel] extends [RecordIdModel, SyncedModel] ? true : never = true;
void SYNCED_MODELS_ARE_RECORD_ID_MODELS;

/** The tables that number records, which the provisional ids are reserved in: each model's own `id` column. */
const NUMBERED_TABLES = (['project', 'contact', 'event', 'webhook', 'private_file'] as const).map((model) => {
  const own = columnsHolding(ENGINE_ID_COLUMNS, model).find((entry) => entry.column === 'id');
  if (!own) throw new Error(`store/id-columns.ts names no table whose id is a ${model}'s`);
  return own.table;
});

/** Makes SQLite number records created here from PROVISIONAL_ID_FLOOR up, so they never collide with remote ids. */
export async function reserveProvisionalIds(trx: Trx): Promise<void> {
  for (const table of NUMBERED_TABLES) {
    const existing = await sql<{ seq: number }>`select seq from sqlite_sequence where name = ${table}`.execute(trx);
    if (existing.rows.length === 0) await sql`insert into sqlite_sequence (name, seq) values (${table}, ${PROVISIONAL_ID_FLOOR - 1})`.execute(trx);
    else await sql`update sqlite_sequence set seq = max(seq, ${PROVISIONAL_ID_FLOOR - 1}) where name = ${table}`.execute(trx);
  }
}

/**
 * How the watcher's tables follow (WATCH_ID_COLUMNS): through its own functions. A
 * model the watcher declares and this lacks fails tests/record-id-columns.test.ts.
 */
export const FOLDER_REKEYS: Partial<Record<SyncedModel, (folders: ProjectFolderRecords, trx: Trx, from: number, to: number) => Promise<void>>> = {
  // Its project folder stays its folder; a pulled copy's folder, if any, is let go.
  project: (folders, trx, from, to) => folders.rekeyProject(trx, from, to),
  private_file: (folders, trx, from, to) => folders.rekeyFile(trx, from, to),
};

/** Sync's keys of `sync_state` that hold a record's id, moved by their owner (contents-policy.ts). */
const STATE_REKEYS: Partial<Record<SyncedModel, (trx: Trx, from: number, to: number) => Promise<void>>> = {
  project: rekeyProjectContentsState,
  private_file: rekeyFileContentsState,
};

/**
 * Ids the engine keeps inside JSON, which no column declaration names: a saved
 * document's input_data names its project (docs/sync.md "Generated documents and
 * tags made here"). Moved here, with the columns, so the file goes up naming the
 * project's remote id and stays current on this computer.
 */
const JSON_REKEYS: Partial<Record<SyncedModel, (trx: Trx, from: number, to: number) => Promise<void>>> = {
  project: rekeyDocumentProject,
};

/** Gives a record made offline the id the remote gave it, everywhere it is referred to (the project folders' records through `folders`). */
export async function rekey(trx: Trx, model: SyncedModel, from: number, to: number, folders: ProjectFolderRecords): Promise<void> {
  if (from === to) return;
  await sql`PRAGMA defer_foreign_keys = ON`.execute(trx);
  // A pull may already have brought the remote's copy in (a create whose answer was
  // lost): the local record, which may carry newer changes, takes its place.
  await deleteReplicaRecord(trx, model, to);
  for (const { table, column } of columnsHolding(ENGINE_ID_COLUMNS, model)) {
    // Names from the declarations, which the compiler checks against the tables' row types.
    await trx
      .updateTable(table)
      .set({ [column]: to } as never)
      .where(column as never, '=', from as never)
      .execute();
  }
  await JSON_REKEYS[model]?.(trx, from, to);
  await FOLDER_REKEYS[model]?.(folders, trx, from, to);
  await rekeyOutbox(trx, model, from, to);
  await STATE_REKEYS[model]?.(trx, from, to);
  await trx.updateTable('sync_conflicts').set({ record_id: to }).where('model', '=', model).where('record_id', '=', from).execute();
  // The merge base of the provisional id meant nothing on the remote; the answer gives the record its own.
  await trx.deleteFrom('sync_records').where('model', '=', model).where('record_id', '=', from).execute();
  // Remembered, so whoever kept the provisional id (local work sent from this computer) can find the record again.
  await markRekeyed(trx, model, from, to);
}

/** The id a record has now: a provisional id the remote has since given an id of its own leads to that id. */
export async function currentIdOf(db: Kysely<Database>, model: SyncedModel, id: number): Promise<number> {
  let current = id;
  // A provisional id is re-keyed once; the bound only guards against a loop in damaged state.
  for (let hop = 0; hop < 4 && isProvisional(current); hop++) {
    const next = await rekeyedTo(db, model, current);
    if (next === null) break;
    current = next;
  }
  return current;
}
