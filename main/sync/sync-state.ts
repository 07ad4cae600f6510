// `sync_state` is sync's table of small named values (docs/tables.md). Parts other
// than sync never name its keys: they call the functions here, which say what each
// value is. The local work ledger (main/core/local-work.ts) keeps one JSON entry per
// record a person made or changed in the embedded store, and the moment the ledger
// began; the entry's shape is the core's, the keys are sync's.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { LocalWorkKind } from '../../shared/bridge.ts';

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
