// Ids change in one place (issue 26, docs/tables.md "Record ids"): when a record made
// offline takes the remote's id, record-ids.ts `rekey` moves every reference to it,
// composed from each part's declaration of the columns that hold ids. Checked here
// against a real, freshly migrated SQLite store: a migration that adds a column
// holding ids (named `id`, `*_id`, `*_ids`, or one of ID_LIKE_COLUMNS) without its
// owner declaring what it refers to fails, so no new table is one more place to forget.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sql } from 'kysely';
import { openSqliteStore, type Store } from '../../engine/store/database.ts';
import { type IdColumnMeaning, type IdColumns, type TableOwnership, columnsHolding, namesIds, ownedTableNames } from '../../engine/store/table-ownership.ts';
import { ENGINE_TABLES } from '../../engine/store/tables.ts';
import { ENGINE_ID_COLUMNS } from '../../engine/store/id-columns.ts';
import { SYNC_ID_COLUMNS, SYNC_TABLES } from '../sync-tables.ts';
import { WATCH_ID_COLUMNS, WATCH_TABLES } from '../../watch/watch-tables.ts';
import { CORE_ID_COLUMNS, CORE_TABLES } from '../../core/core-tables.ts';
import { FOLDER_REKEYS } from '../record-ids.ts';
import { SYNCED_MODELS } from '../sync-models.ts';
import { makeTempDir } from '../../engine/testing/test-server.ts';

/** Each part's tables and its declaration of their id columns. */
const PARTS: { tables: TableOwnership<unknown>; ids: IdColumns<unknown>; declaredIn: string }[] = [
  { tables: ENGINE_TABLES, ids: ENGINE_ID_COLUMNS, declaredIn: 'main/engine/store/id-columns.ts' },
  { tables: SYNC_TABLES, ids: SYNC_ID_COLUMNS, declaredIn: 'main/sync/sync-tables.ts' },
  { tables: WATCH_TABLES, ids: WATCH_ID_COLUMNS, declaredIn: 'main/watch/watch-tables.ts' },
  { tables: CORE_TABLES, ids: CORE_ID_COLUMNS, declaredIn: 'main/core/core-tables.ts (CORE_ID_COLUMNS)' },
];

const declarationOf = (ids: IdColumns<unknown>, table: string): Record<string, IdColumnMeaning> =>
  ((ids as Record<string, Record<string, IdColumnMeaning> | undefined>)[table]) ?? {};

let dataDir: string;
let store: Store;
let columnsByTable: Map<string, string[]>;
before(async () => {
  dataDir = makeTempDir('record-id-columns-');
  store = await openSqliteStore(dataDir);
  const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_migration%'`.execute(store.db);
  columnsByTable = new Map();
  for (const { name } of tables.rows) {
    const columns = await sql<{ name: string }>`select name from pragma_table_info(${name})`.execute(store.db);
    columnsByTable.set(name, columns.rows.map((column) => column.name));
  }
});
after(async () => {
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('every column that holds ids is declared by its table\'s owner, and every declared one exists', () => {
  const undeclared: string[] = [];
  const stale: string[] = [];
  for (const part of PARTS) {
    for (const table of ownedTableNames(part.tables)) {
      const declared = declarationOf(part.ids, table);
      const stored = columnsByTable.get(table) ?? [];
      for (const column of stored.filter(namesIds)) if (!(column in declared)) undeclared.push(`${table}.${column} (declare it in ${part.declaredIn})`);
      for (const column of Object.keys(declared)) if (!stored.includes(column)) stale.push(`${table}.${column}`);
    }
    for (const table of Object.keys(part.ids)) if (!ownedTableNames(part.tables).includes(table)) stale.push(`${table} (not a table of ${part.tables.part})`);
  }
  assert.deepEqual(undeclared, [], 'say what each column holding ids refers to: a model (the re-key moves it) or { notFollowed: why }');
  assert.deepEqual(stale, [], 'a declared id column that the migrated store does not have');
});

test('every synced model has the table that numbers it, and the watcher\'s references are followed by its functions', () => {
  for (const model of SYNCED_MODELS) {
    assert.equal(columnsHolding(ENGINE_ID_COLUMNS, model).filter((entry) => entry.column === 'id').length, 1, `one engine table whose id is a ${model}'s`);
  }
  // The core's activity log follows through the same hand-over (main/core/agent-folders.ts projectFolderRecords).
  const followedByFolders = new Set(
    [WATCH_ID_COLUMNS, CORE_ID_COLUMNS].flatMap((declared) => Object.values(declared).flatMap((columns) => Object.values(columns ?? {}))).filter((meaning) => typeof meaning === 'string'),
  );
  assert.deepEqual([...followedByFolders].filter((model) => !(model in FOLDER_REKEYS)), [], 'a model the watcher\'s or the core\'s tables hold that record-ids.ts FOLDER_REKEYS does not hand to the core');
});

test('sync\'s tables hold records only by their row\'s model (moved or dropped by record-ids.ts itself)', () => {
  const direct = Object.entries(SYNC_ID_COLUMNS).flatMap(([table, columns]) =>
    Object.entries(columns ?? {}).filter(([, meaning]) => typeof meaning === 'string').map(([column]) => `${table}.${column}`),
  );
  assert.deepEqual(direct, [], 'a sync table holding one model\'s ids needs its own step in record-ids.ts rekey');
});
