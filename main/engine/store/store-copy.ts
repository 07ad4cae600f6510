// Copies a whole SQLite store into another, empty store (PostgreSQL, for
// `solardesk migrate-store`), with the file contents it names. No CLI concerns here:
// the caller opens both stores and prints the progress and the report.
//
// In order: the tables are discovered from the source and checked against the
// target, and the target must hold no rows; then, inside one read transaction on
// the source (one consistent snapshot), the file contents are copied and checked
// against their sha256, and every table is copied in foreign-key order inside ONE
// target transaction, which also moves the id sequences and compares counts,
// largest ids and a checksum of every table before it commits. Anything that
// fails before the commit leaves the target without a row.
//
// Blobs go first (store-copy-files.ts): a server started on the target the moment
// the rows commit finds every file's contents in place, and a run that fails later
// can simply be run again (contents already copied are checked and kept).
import { createHash } from 'node:crypto';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Store } from './database.ts';
import { advanceIdSequence, isPostgres } from './sequences.ts';
import { copyFiles, filesToCopy, referencedBlobs, type FileCopyProgress, type FileCopyReport } from './store-copy-files.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tables are discovered at run time
type AnyKysely = Kysely<any>;
type Row = Record<string, unknown>;

/** Rows per INSERT (fewer for wide tables, to stay far below PostgreSQL's 65535 parameters). */
export const DEFAULT_BATCH_ROWS = 500;
const MAX_PARAMETERS_PER_INSERT = 30_000;

/** Kysely's own bookkeeping; the target has its own, written when it was opened. */
const SKIPPED_TABLES = /^(sqlite_|kysely_migration)/;

export interface CopiedTable {
  name: string;
  /** In the source's order. */
  columns: string[];
  /** Columns declared INTEGER in the source (their values must be exact JS numbers). */
  integerColumns: string[];
  /** The primary key's columns, in key order: rows are read, and so inserted, in this order. */
  primaryKey: string[];
  /** An auto-numbered integer `id`: its PostgreSQL sequence is moved past the copied ids. */
  serialId: boolean;
  /** Other tables this one's foreign keys point at. */
  references: string[];
}

export interface TableReport {
  table: string;
  sourceRows: number;
  targetRows: number;
  /** null when the table has no integer id, or no rows. */
  sourceMaxId: number | null;
  targetMaxId: number | null;
  /** Whether an order-independent checksum of every row's values is the same on both sides. */
  contentsMatch: boolean;
  ok: boolean;
}

export interface StoreCopyReport {
  tables: TableReport[];
  files: FileCopyReport;
  rows: number;
}

export type StoreCopyProgress =
  | FileCopyProgress
  | { phase: 'rows'; table: string; rows: number; tableRows: number; rowsDone: number; totalRows: number }
  | { phase: 'verify'; table: string };

export interface StoreCopyOptions {
  batchRows?: number;
  onProgress?: (progress: StoreCopyProgress) => void;
}

/** The copy was refused or did not match; nothing was committed to the target. */
export class StoreCopyError extends Error {
  constructor(
    message: string,
    /** The per-table comparison, when the copy got as far as comparing. */
    readonly tables?: TableReport[],
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------
// The tables

/** Every data table of a SQLite store, in an order that inserts referenced rows first. */
export async function describeSqliteTables(db: AnyKysely): Promise<CopiedTable[]> {
  const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(db);
  const tables: CopiedTable[] = [];
  for (const { name } of rows) {
    if (SKIPPED_TABLES.test(name)) continue;
    const info = await sql<{ name: string; type: string; pk: number }>`select name, type, pk from pragma_table_info(${name})`.execute(db);
    const keys = await sql<{ table: string }>`select "table" from pragma_foreign_key_list(${name})`.execute(db);
    const columns = info.rows.map((column) => column.name);
    const primaryKey = info.rows.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk).map((column) => column.name);
    const id = info.rows.find((column) => column.name === 'id');
    tables.push({
      name,
      columns,
      integerColumns: info.rows.filter((column) => /^(integer|bigint|int)$/i.test(column.type)).map((column) => column.name),
      primaryKey,
      serialId: primaryKey.length === 1 && primaryKey[0] === 'id' && /^integer$/i.test(id?.type ?? ''),
      references: [...new Set(keys.rows.map((key) => key.table))],
    });
  }
  return orderByForeignKeys(tables);
}

/**
 * Referenced tables before the tables that reference them (Kahn's algorithm, ties
 * by name so the order is always the same). A table that references itself is
 * copied in primary key order, so a row's parent (a lower id) is there first.
 */
export function orderByForeignKeys<T extends { name: string; references: string[] }>(tables: readonly T[]): T[] {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const waitingFor = new Map(tables.map((table) => [table.name, new Set(table.references.filter((name) => name !== table.name && byName.has(name)))]));
  const ordered: T[] = [];
  while (waitingFor.size > 0) {
    const ready = [...waitingFor].filter(([, needs]) => needs.size === 0).map(([name]) => name).sort();
    if (ready.length === 0) {
      throw new StoreCopyError(`the foreign keys of these tables refer to each other in a cycle, so no insert order works: ${[...waitingFor.keys()].sort().join(', ')}`);
    }
    for (const name of ready) {
      waitingFor.delete(name);
      ordered.push(byName.get(name)!);
      for (const needs of waitingFor.values()) needs.delete(name);
    }
  }
  return ordered;
}

/** Rows of the source that break a foreign key (PostgreSQL would refuse them), as "table row N -> parent". */
export async function findForeignKeyViolations(db: AnyKysely): Promise<string[]> {
  const { rows } = await sql<{ table: string; rowid: number | null; parent: string }>`select "table", rowid, parent from pragma_foreign_key_check`.execute(db);
  return rows.map((row) => `${row.table} row ${row.rowid ?? '?'} -> ${row.parent}`);
}

/** The target's columns per table: PostgreSQL's current schema, or a SQLite file. */
async function targetColumns(db: AnyKysely, table: string): Promise<string[]> {
  if (isPostgres(db)) {
    const { rows } = await sql<{ column_name: string }>`select column_name from information_schema.columns where table_schema = current_schema() and table_name = ${table}`.execute(db);
    return rows.map((row) => row.column_name);
  }
  const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  return rows.map((row) => row.name);
}

/** Differences between the source's tables and the target's, as sentences; none when every column has a home. */
export async function compareSchemas(target: AnyKysely, tables: readonly CopiedTable[]): Promise<string[]> {
  const problems: string[] = [];
  for (const table of tables) {
    const columns = new Set(await targetColumns(target, table.name));
    if (columns.size === 0) {
      problems.push(`the target has no table ${table.name}`);
      continue;
    }
    const missing = table.columns.filter((column) => !columns.has(column));
    if (missing.length > 0) problems.push(`the target's ${table.name} has no column ${missing.join(', ')}`);
  }
  return problems;
}

/**
 * Rows a new store has before anyone wrote to it: the file tag catalogue store
 * migration 0016 inserts (no org, on no file). They are not data: an empty target
 * has them, and the copy replaces them with the source's (the same catalogue).
 */
const MIGRATION_ROWS: Record<string, ReturnType<typeof sql>> = {
  file_tags: sql`org_id is null and id not in (select tag_id from private_file_tags)`,
};

/** The target's tables that hold rows, with their counts (the rows migrations made not counted). */
export async function tablesWithRows(db: AnyKysely, tables: readonly CopiedTable[]): Promise<{ table: string; rows: number }[]> {
  const found: { table: string; rows: number }[] = [];
  for (const table of tables) {
    const made = MIGRATION_ROWS[table.name];
    const rows = made
      ? Number((await sql<{ count: number | string }>`select count(*) as count from ${sql.table(table.name)} where not (${made})`.execute(db)).rows[0]?.count ?? 0)
      : await countRows(db, table.name);
    if (rows > 0) found.push({ table: table.name, rows });
  }
  return found;
}

/** Removes the rows migrations made from an otherwise empty target, so the source's own take their place. */
async function clearMigrationRows(db: AnyKysely, tables: readonly CopiedTable[]): Promise<void> {
  for (const table of tables) {
    const made = MIGRATION_ROWS[table.name];
    if (made) await sql`delete from ${sql.table(table.name)} where ${made}`.execute(db);
  }
}

async function countRows(db: AnyKysely, table: string): Promise<number> {
  const { rows } = await sql<{ count: number | string }>`select count(*) as count from ${sql.table(table)}`.execute(db);
  return Number(rows[0]?.count ?? 0);
}

async function maxId(db: AnyKysely, table: CopiedTable): Promise<number | null> {
  if (!table.serialId) return null;
  const { rows } = await sql<{ max: number | string | null }>`select max(id) as max from ${sql.table(table.name)}`.execute(db);
  const value = rows[0]?.max;
  return value === null || value === undefined ? null : Number(value);
}

/**
 * One page of a table in primary key order, after the key `after` (the first page
 * when null). Keyset paging: every page costs the same however far into the table.
 */
async function readPage(db: AnyKysely, table: CopiedTable, after: unknown[] | null, limit: number): Promise<Row[]> {
  const keys = table.primaryKey.map((column) => sql.ref(column));
  const order = sql.join(keys);
  let where: RawBuilder<unknown> = sql`1 = 1`;
  if (after) {
    where = keys.length === 1 ? sql`${keys[0]} > ${after[0]}` : sql`(${order}) > (${sql.join(after.map((value) => sql`${value}`))})`;
  }
  const { rows } = await sql<Row>`select * from ${sql.table(table.name)} where ${where} order by ${order} limit ${limit}`.execute(db);
  return rows;
}

async function* readRows(db: AnyKysely, table: CopiedTable, pageRows: number): AsyncGenerator<Row[]> {
  if (table.primaryKey.length === 0) throw new StoreCopyError(`table ${table.name} has no primary key, so it cannot be read in a stable order`);
  let after: unknown[] | null = null;
  for (;;) {
    const rows = await readPage(db, table, after, pageRows);
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < pageRows) return;
    const last = rows[rows.length - 1]!;
    after = table.primaryKey.map((column) => last[column]);
  }
}

// ---------------------------------------------------------------------------
// Checksums: an order-independent sum of every row's sha256, so both sides may
// return rows in whatever order their collation gives.

const CHECKSUM_MODULUS = 1n << 256n;

function encodeValue(value: unknown): string {
  if (value === null || value === undefined) return 'n';
  if (typeof value === 'number' || typeof value === 'bigint') return `d${String(value)}`;
  if (typeof value === 'string') return `s${value.length}:${value}`;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `b${Buffer.from(value).toString('hex')}`;
  if (typeof value === 'boolean') return `d${value ? 1 : 0}`;
  if (value instanceof Date) return `t${value.toISOString()}`;
  return `j${JSON.stringify(value)}`;
}

class TableChecksum {
  private sum = 0n;
  add(columns: readonly string[], row: Row): void {
    const hash = createHash('sha256');
    for (const column of columns) hash.update(`${encodeValue(row[column])}\u0000`);
    this.sum = (this.sum + BigInt(`0x${hash.digest('hex')}`)) % CHECKSUM_MODULUS;
  }
  get value(): bigint {
    return this.sum;
  }
}

// ---------------------------------------------------------------------------
// The rows

/** Values a JS number cannot hold exactly would change on the way; refuse them rather than copy them wrong. */
function checkExactIntegers(table: CopiedTable, rows: readonly Row[]): void {
  for (const row of rows) {
    for (const column of table.integerColumns) {
      const value = row[column];
      if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
        const key = table.primaryKey.map((name) => `${name}=${String(row[name])}`).join(', ');
        throw new StoreCopyError(`${table.name} (${key}) has ${column} = ${value}, an integer too large to copy exactly`);
      }
    }
  }
}

function batchRowsFor(table: CopiedTable, requested: number): number {
  return Math.max(1, Math.min(requested, Math.floor(MAX_PARAMETERS_PER_INSERT / Math.max(1, table.columns.length))));
}

/**
 * Copies every table's rows from `source` into `target` inside one transaction on
 * the target, then compares both sides; throws (and so rolls back) unless every
 * table matches. `source` should be a transaction itself, for a consistent snapshot.
 */
export async function copyRows(source: AnyKysely, target: AnyKysely, tables: readonly CopiedTable[], options: StoreCopyOptions = {}): Promise<TableReport[]> {
  const requestedBatch = options.batchRows ?? DEFAULT_BATCH_ROWS;
  const sourceCounts = new Map<string, number>();
  for (const table of tables) sourceCounts.set(table.name, await countRows(source, table.name));
  const totalRows = [...sourceCounts.values()].reduce((sum, count) => sum + count, 0);

  return target.transaction().execute(async (trx) => {
    if (isPostgres(trx)) {
      // Nobody may write to these tables until this commits: the emptiness checked
      // below then still holds when the copy commits (readers are not held up).
      await sql`lock table ${sql.join(tables.map((table) => sql.table(table.name)))} in exclusive mode`.execute(trx);
    }
    const occupied = await tablesWithRows(trx, tables);
    if (occupied.length > 0) throw targetNotEmpty(occupied);
    await clearMigrationRows(trx, tables);

    const sourceSums = new Map<string, bigint>();
    let rowsDone = 0;
    for (const table of tables) {
      const checksum = new TableChecksum();
      const batch = batchRowsFor(table, requestedBatch);
      const tableRows = sourceCounts.get(table.name) ?? 0;
      let rows = 0;
      for await (const page of readRows(source, table, batch)) {
        checkExactIntegers(table, page);
        for (const row of page) checksum.add(table.columns, row);
        try {
          await trx.insertInto(table.name).values(page.map((row) => pick(row, table.columns))).execute();
        } catch (error) {
          throw new StoreCopyError(`copying ${table.name} failed, in the ${page.length} rows from ${describeKey(table, page[0]!)} on: ${(error as Error).message}`);
        }
        rows += page.length;
        rowsDone += page.length;
        options.onProgress?.({ phase: 'rows', table: table.name, rows, tableRows, rowsDone, totalRows });
      }
      sourceSums.set(table.name, checksum.value);
      if (table.serialId && rows > 0) await advanceIdSequence(trx, table.name);
    }

    const reports: TableReport[] = [];
    for (const table of tables) {
      options.onProgress?.({ phase: 'verify', table: table.name });
      const checksum = new TableChecksum();
      for await (const page of readRows(trx, table, batchRowsFor(table, requestedBatch))) for (const row of page) checksum.add(table.columns, row);
      const sourceRows = await countRows(source, table.name);
      const targetRows = await countRows(trx, table.name);
      const sourceMaxId = await maxId(source, table);
      const targetMaxId = await maxId(trx, table);
      const contentsMatch = checksum.value === sourceSums.get(table.name);
      reports.push({
        table: table.name,
        sourceRows,
        targetRows,
        sourceMaxId,
        targetMaxId,
        contentsMatch,
        ok: contentsMatch && sourceRows === targetRows && sourceRows === sourceCounts.get(table.name) && sourceMaxId === targetMaxId,
      });
    }
    const bad = reports.filter((report) => !report.ok).map((report) => report.table);
    if (bad.length > 0) {
      throw new StoreCopyError(`the copy does not match the source in ${bad.join(', ')}`, reports);
    }
    return reports;
  });
}

const pick = (row: Row, columns: readonly string[]): Row => Object.fromEntries(columns.map((column) => [column, row[column]]));
const describeKey = (table: CopiedTable, row: Row) => table.primaryKey.map((column) => `${column}=${String(row[column])}`).join(', ');

function targetNotEmpty(occupied: readonly { table: string; rows: number }[]): StoreCopyError {
  const list = occupied.map(({ table, rows }) => `${table} (${rows} row${rows === 1 ? '' : 's'})`).join(', ');
  return new StoreCopyError(`the target store already holds data: ${list}. It is only ever filled when empty, never merged into or overwritten`);
}

// ---------------------------------------------------------------------------
// The whole copy

/** What a copy of `source` would involve, for a caller deciding on options before it starts. */
export async function describeSource(source: Store): Promise<{ tables: CopiedTable[]; blobs: number }> {
  return { tables: await describeSqliteTables(source.db), blobs: (await referencedBlobs(source.db)).length };
}

/**
 * Copies the SQLite store `source` (its rows, and the file contents under its
 * fileRoot) into the empty store `target` (rows, and contents under its fileRoot).
 * Throws StoreCopyError, with the target left without rows, when the target is not
 * empty, the two schemas differ, a source row breaks a foreign key, or the copy
 * does not match. Missing or damaged source files do not stop it: they are listed
 * in the report, and the caller decides what that means.
 */
export async function copyStore(source: Store, target: Store, options: StoreCopyOptions = {}): Promise<StoreCopyReport> {
  if (source.dialect !== 'sqlite') throw new StoreCopyError(`the source must be a SQLite store, not ${source.location}`);
  const tables = await describeSqliteTables(source.db);
  const problems = await compareSchemas(target.db, tables);
  if (problems.length > 0) throw new StoreCopyError(`the two stores' tables differ (${problems.join('; ')}); were they made by the same version of SolarDesk?`);
  const occupied = await tablesWithRows(target.db, tables);
  if (occupied.length > 0) throw targetNotEmpty(occupied);
  const violations = await findForeignKeyViolations(source.db);
  if (violations.length > 0) {
    const shown = violations.slice(0, 10).join('; ');
    throw new StoreCopyError(`the source has ${violations.length} row(s) whose foreign key points at nothing (${shown}${violations.length > 10 ? '; ...' : ''}); PostgreSQL would refuse them`);
  }

  const files: FileCopyReport = { files: 0, bytes: 0, copied: 0, alreadyPresent: 0, missing: [], damaged: [], unusableUploadParts: [] };
  // One read transaction on the source: the files listed, the rows copied and the
  // counts compared all see the same moment of it.
  const reports = await source.db.transaction().execute(async (snapshot) => {
    const { files: toCopy, badNames } = await filesToCopy(snapshot, source.fileRoot, target.fileRoot, new Date());
    for (const name of badNames) {
      if (name.startsWith('uploads/')) files.unusableUploadParts.push(`${name} (bad name)`);
      else files.damaged.push(name);
    }
    await copyFiles(toCopy, target.fileRoot, files, options.onProgress);
    return copyRows(snapshot, target.db, tables, options);
  });
  return { tables: reports, files, rows: reports.reduce((sum, report) => sum + report.targetRows, 0) };
}
