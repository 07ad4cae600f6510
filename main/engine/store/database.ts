// Opens the store: a SQLite file in WAL mode (the default, one process) or a
// PostgreSQL database (`--database postgres://...`, any number of processes), both
// behind the same Kysely query code, with the numbered migrations applied at start.
// See docs/store.md and docs/scale-out.md.
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { CompiledQuery, type DatabaseConnection, type DatabaseIntrospector, type DatabaseMetadata, Kysely, type Migration, type MigrationProvider, Migrator, PostgresDialect, SqliteDialect, type SqliteDialectConfig, SqliteDriver, sql, type Transaction } from 'kysely';
import type { Database } from './tables.ts';
import { type Dialect, postgresColumnTypes } from './dialect.ts';
import { MIGRATIONS } from './migration-order.ts';
import { createPrivateFileIfMissing, makePrivateFolder } from './private-files.ts';
import { WriteGenerations } from './write-generations.ts';
import { StoreOpenError } from './store-errors.ts';

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** This process's own folder: the SQLite file, and file contents unless `fileRoot` says otherwise. */
  readonly dataDir: string;
  /** Where file contents live (blobs/, uploads/, tmp/): `--blob-dir` when several processes share them, else the data folder. */
  readonly fileRoot: string;
  /**
   * True when other processes may be using the same database and file root right now
   * (PostgreSQL). Then nothing may assume it is alone: crash leftovers are only those
   * nobody has touched for a while, and writes that read-then-write take locks.
   */
  readonly shared: boolean;
  /** Where the data is, for logs and messages; never includes a password. */
  readonly location: string;
  /** Counters of this process's writes, for caches that must never serve a view older than a write (write-generations.ts). */
  readonly writes: WriteGenerations;
  /**
   * Holds locks named by `keys` until `trx` ends, so transactions in other processes
   * that name the same key wait for this one. SQLite runs one write transaction at a
   * time already, so there it does nothing.
   */
  lock(trx: Transaction<Database>, keys: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export { StoreOpenError };

export interface StoreOptions {
  dataDir: string;
  /** `postgres://USER:PASS@HOST:PORT/DB[?schema=NAME]`; the SQLite file in the data folder when absent. */
  database?: string;
  /** A folder for file contents shared by every process on the same database. */
  blobDir?: string;
  /** Tests of a migration only: stop after this migration, leaving the store as an older SolarDesk did. */
  migrateUpTo?: string;
}


export const DATABASE_FILE_NAME = 'solardesk.sqlite';

export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

export async function openStore(options: StoreOptions): Promise<Store> {
  makePrivateFolder(options.dataDir);
  const fileRoot = path.resolve(options.blobDir ?? options.dataDir);
  makePrivateFolder(fileRoot);
  if (options.database && !isPostgresUrl(options.database)) {
    throw new Error(`--database must be a postgres://USER:PASS@HOST:PORT/DB address (got "${redactUrl(options.database)}"); leave it out to use the SQLite file in the data folder`);
  }
  return options.database
    ? openPostgresStore(options.database, options.dataDir, fileRoot, options.migrateUpTo)
    : openSqliteStore(options.dataDir, fileRoot, options.migrateUpTo);
}

export async function openSqliteStore(dataDir: string, fileRoot = dataDir, migrateUpTo?: string): Promise<Store> {
  makePrivateFolder(dataDir);
  const file = path.join(dataDir, DATABASE_FILE_NAME);
  // SQLite would create it 0644 less the umask; its -wal, -shm and -journal files
  // take the database file's mode, so a private database keeps them private too.
  createPrivateFileIfMissing(file);
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode; only an OS crash or power
  // loss can lose the last transactions, and FULL costs an fsync per commit.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Changes when another connection (an admin command beside this server) commits.
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const writes = new WriteGenerations(() => dataVersion.get() as number);
  const db = new Kysely<Database>({ dialect: new SqliteDialectAfterAutomaticRollback(sqlite, { database: withStatementCache(sqlite) }), plugins: [writes.plugin] });
  try {
    await migrate(db, 'sqlite', undefined, migrateUpTo);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return {
    db,
    dialect: 'sqlite',
    dataDir,
    fileRoot,
    shared: false,
    writes,
    location: `SQLite file ${file}`,
    lock: async () => {},
    close: () => db.destroy(),
  };
}

/**
 * SQLite ends a transaction by itself when a statement in it fails with
 * SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY or SQLITE_NOMEM (sqlite.org/lang_transaction.html,
 * "Response To Errors Within A Transaction"). Kysely then sends ROLLBACK, which fails
 * with "cannot rollback - no transaction is active" and hides the real error (a full
 * disk answered 500, issue 25). Here ROLLBACK is sent only when a transaction is open,
 * so the statement's own error is what the caller sees.
 */
class SqliteDialectAfterAutomaticRollback extends SqliteDialect {
  constructor(
    private readonly sqlite: BetterSqlite3.Database,
    private readonly config: SqliteDialectConfig,
  ) {
    super(config);
  }

  override createDriver(): SqliteDriver {
    const sqlite = this.sqlite;
    return new (class extends SqliteDriver {
      override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
        if (sqlite.inTransaction) await super.rollbackTransaction(connection);
      }
    })(this.config);
  }
}

/** Prepared statements kept per SQL text: enough for every query shape the engine makes, with room for IN lists of many lengths. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Kysely's SQLite driver prepares every query afresh; compiling the SQL was the
 * largest single cost of a request in the profile (docs/benchmarks.md). The driver
 * runs each statement to completion synchronously (all() or run()) and never
 * streams here, so one prepared statement per SQL text can be reused safely.
 * The least recently used statement is dropped past STATEMENT_CACHE_SIZE.
 */
export function withStatementCache(sqlite: BetterSqlite3.Database): { prepare(sql: string): BetterSqlite3.Statement; close(): void } {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(text) {
      let statement = statements.get(text);
      if (statement) {
        statements.delete(text);
      } else {
        statement = sqlite.prepare(text);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      }
      statements.set(text, statement);
      return statement;
    },
    close: () => sqlite.close(),
  };
}

/** pg returns 64-bit integers and numerics as strings; every such value here (ids, counts, ms timestamps) fits a double. */
const NUMERIC_TYPES = [20 /* int8 */, 1700 /* numeric */];
const pgTypesOf = (driver: typeof pg) =>
  ({
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (NUMERIC_TYPES.includes(oid)) return (value: string) => Number(value);
      return driver.types.getTypeParser(oid, format);
    },
  }) as pg.CustomTypesConfig;

/** Connections per process. Requests wait for one rather than fail; PostgreSQL's default max_connections (100) fits several processes. */
const POOL_SIZE = 16;

export async function openPostgresStore(url: string, dataDir: string, fileRoot: string, migrateUpTo?: string): Promise<Store> {
  const { connectionString, schema } = splitSchema(url);
  const location = `PostgreSQL ${redactUrl(connectionString)}${schema ? ` (schema ${schema})` : ''}`;
  // Loaded here, not at start: a SQLite store (the desktop's) never needs the PostgreSQL driver.
  const driver = (await import('pg')).default;
  const pool = new driver.Pool({ connectionString, max: POOL_SIZE, types: pgTypesOf(driver), connectionTimeoutMillis: 30_000 });
  // An idle connection the server dropped must not take the process down.
  pool.on('error', (error) => console.error(`PostgreSQL connection error (${location}):`, error.message));
  // Every process's committed writes, counted by triggers (migration 0010): one small read per request that uses a cache.
  const writes = new WriteGenerations(undefined, async () => {
    const { rows } = await sql<{ name: string; total: number }>`select name, sum(generation)::bigint as total from write_generations group by name`.execute(db);
    const total = (name: string) => Number(rows.find((row) => row.name === name)?.total ?? 0);
    return { auth: total('auth'), records: total('records') };
  });
  const db: Kysely<Database> = new Kysely<Database>({
    plugins: [writes.plugin],
    dialect: new OwnSchemaPostgresDialect({
      pool,
      onCreateConnection: schema
        ? (connection) => connection.executeQuery(CompiledQuery.raw(`set search_path to "${schema}"`)).then(() => undefined)
        : undefined,
    }),
  });
  try {
    if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
    // The migrator must look for its own tables in this store's schema only: another
    // store in the same database has tables of the same names.
    const { rows } = await sql<{ current: string | null }>`select current_schema() as current`.execute(db);
    const current = rows[0]?.current;
    if (!current) throw new Error('the database has no schema this user may create tables in (check search_path and grants)');
    await migrate(db, 'postgres', current, migrateUpTo);
  } catch (error) {
    await db.destroy();
    throw new StoreOpenError(
      `could not open ${location}: ${(error as Error).message}. Check that PostgreSQL is running at that address and accepts this user, password and database.`,
      { cause: error },
    );
  }
  return {
    db,
    dialect: 'postgres',
    dataDir,
    fileRoot,
    shared: true,
    writes,
    location,
    async lock(trx, keys) {
      if (keys.length === 0) return;
      // Taken in key order (PostgreSQL evaluates a volatile function in the select
      // list after sorting), so two transactions naming the same keys queue in the
      // same order and never deadlock; one round trip for all of them.
      await sql`select pg_advisory_xact_lock(hashtextextended(key, 0)) from unnest(${[...new Set(keys)]}::text[]) as key order by key`.execute(trx);
    },
    close: () => db.destroy(),
  };
}

/** `?schema=NAME` lets one database hold several stores (the test suite gives each test server its own). */
export function splitSchema(url: string): { connectionString: string; schema: string | null } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  if (schema === null) return { connectionString: url, schema: null };
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`the schema in --database must be lower-case letters, digits and _ (got "${schema}")`);
  }
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
}

/** The address with its password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}

async function migrate(db: Kysely<Database>, dialect: Dialect, migrationTableSchema?: string, upTo?: string): Promise<void> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const migrations: Record<string, Migration> = {};
      for (const [name, module] of Object.entries(MIGRATIONS)) {
        // Migrations are written once with SQLite's column types; PostgreSQL gets its equivalents.
        migrations[name] = { up: (kysely) => module.up(dialect === 'postgres' ? kysely.withPlugin(postgresColumnTypes) : kysely, dialect) };
      }
      return migrations;
    },
  };
  // Several processes may start at once on one PostgreSQL; the migrator holds a lock while it works.
  const run = (migrator: Migrator) => (upTo === undefined ? migrator.migrateToLatest() : migrator.migrateTo(upTo));
  const { error, results } = await run(new Migrator({ db, provider, migrationTableSchema }));
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Could not migrate the store (migration ${failed}): ${String(error)}`);
  }
}

/**
 * Kysely's migrator asks the dialect's introspector whether its own tables exist, and
 * PostgreSQL's stock introspector lists every column of every schema in the database
 * (calling pg_get_serial_sequence on each). Another store in the same database that
 * drops its schema or rebuilds a table in that moment (the test suite gives each server
 * its own schema) fails that listing with "relation/column/schema ... does not exist",
 * about tables that are not ours. This store only ever asks about its own schema, so the
 * introspector lists that one alone, by name, from the catalogue views.
 */
class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }
}

class OwnSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas() {
    const { rows } = await sql<{ name: string }>`select current_schema() as name`.execute(this.db);
    return rows.filter((row) => row.name !== null);
  }

  async getTables() {
    const { rows } = await sql<{ schema: string; table: string; type: string; column: string; not_null: boolean; has_default: boolean; data_type: string }>`
      select table_schema as schema, table_name as table, t.table_type as type, column_name as column,
             is_nullable = 'NO' as not_null, column_default is not null as has_default, udt_name as data_type
      from information_schema.columns c join information_schema.tables t using (table_schema, table_name)
      where table_schema = current_schema()
      order by table_name, ordinal_position`.execute(this.db);
    const tables = new Map<string, { name: string; schema: string; isView: boolean; columns: { name: string; dataType: string; isNullable: boolean; isAutoIncrementing: boolean; hasDefaultValue: boolean }[] }>();
    for (const row of rows) {
      let table = tables.get(row.table);
      if (!table) tables.set(row.table, (table = { name: row.table, schema: row.schema, isView: row.type === 'VIEW', columns: [] }));
      table.columns.push({ name: row.column, dataType: row.data_type, isNullable: !row.not_null, isAutoIncrementing: false, hasDefaultValue: row.has_default });
    }
    return [...tables.values()];
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}
