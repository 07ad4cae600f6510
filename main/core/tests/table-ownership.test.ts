// Each part owns its tables (issue 26, docs/tables.md). Checked against a real,
// freshly migrated SQLite store: every table in it is declared by exactly one part,
// every migration it applied is listed by a part, and the lint rule that keeps a
// part's queries on its own tables (eslint.config.js, `tableOwners`) knows the same
// tables as the declarations. A migration that adds a table nobody declares fails here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sql } from 'kysely';
import { openSqliteStore, type Store } from '../../engine/store/database.ts';
import { ownedTableNames, type TableOwnership } from '../../engine/store/table-ownership.ts';
import { ENGINE_TABLES } from '../../engine/store/tables.ts';
import { SYNC_TABLES } from '../../sync/sync-tables.ts';
import { WATCH_TABLES } from '../../watch/watch-tables.ts';
import { CORE_TABLES } from '../core-tables.ts';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { tableOwners } from '../../../eslint.config.js';

const PARTS: TableOwnership<unknown>[] = [ENGINE_TABLES, SYNC_TABLES, WATCH_TABLES, CORE_TABLES];
/** The migrator's own bookkeeping, which no part queries. */
const MIGRATOR_TABLES = /^kysely_migration/;

let dataDir: string;
let store: Store;
before(async () => {
  dataDir = makeTempDir('table-ownership-');
  store = await openSqliteStore(dataDir);
});
after(async () => {
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('every table of a migrated store is declared by exactly one part', async () => {
  const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(store.db);
  const stored = rows.map((row) => row.name).filter((name) => !MIGRATOR_TABLES.test(name));
  const ownersOf = (table: string) => PARTS.filter((part) => ownedTableNames(part).includes(table)).map((part) => part.part);
  const undeclared = stored.filter((table) => ownersOf(table).length !== 1).map((table) => `${table}: ${ownersOf(table).join(', ') || 'no owner'}`);
  assert.deepEqual(undeclared, [], 'declare each table in its part\'s tables module (docs/tables.md)');
  const declaredButMissing = PARTS.flatMap((part) => ownedTableNames(part)).filter((table) => !stored.includes(table));
  assert.deepEqual(declaredButMissing, [], 'a declared table that no migration makes');
});

test('every applied migration is listed by the parts whose tables it makes', async () => {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db);
  const listed = new Set(PARTS.flatMap((part) => part.migrations));
  assert.deepEqual(rows.map((row) => row.name).filter((name) => !listed.has(name)), []);
  assert.deepEqual([...listed].filter((name) => !rows.some((row) => row.name === name)), [], 'a listed migration that does not exist');
});

test("the lint rule's table owners are the parts' declarations", () => {
  const declared = Object.fromEntries(PARTS.filter((part) => part.part !== 'engine').map((part) => [part.part, ownedTableNames(part).sort()]));
  const linted = Object.fromEntries(Object.entries(tableOwners).map(([part, tables]) => [part, [...tables].sort()]));
  assert.deepEqual(linted, declared);
});
