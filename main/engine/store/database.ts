// Opens the store: a SQLite file in WAL mode behind Kysely, with the numbered
// migrations applied at start. See docs/store.md.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, type Migration, type MigrationProvider, Migrator, SqliteDialect } from 'kysely';
import type { Database } from './tables.ts';
import type { Dialect } from './dialect.ts';
import * as core from './migrations/0001-core.ts';
import * as files from './migrations/0002-files.ts';
import * as webhooksEventsThrottles from './migrations/0003-webhooks-events-throttles.ts';
import * as sync from './migrations/0004-sync.ts';
import * as foldersUploads from './migrations/0005-folders-uploads.ts';

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** The folder holding the database file and, later, file blobs and secrets. */
  readonly dataDir: string;
  close(): Promise<void>;
}

type MigrationModule = { up(db: Kysely<unknown>, dialect: Dialect): Promise<void> };
/** Numbered migrations, applied in order and recorded in kysely_migration. Append only. */
const MIGRATIONS: Record<string, MigrationModule> = {
  '0001-core': core,
  '0002-files': files,
  '0003-webhooks-events-throttles': webhooksEventsThrottles,
  '0004-sync': sync,
  '0005-folders-uploads': foldersUploads,
};

export const DATABASE_FILE_NAME = 'solardesk.sqlite';

export async function openSqliteStore(dataDir: string): Promise<Store> {
  fs.mkdirSync(dataDir, { recursive: true });
  const sqlite = new BetterSqlite3(path.join(dataDir, DATABASE_FILE_NAME));
  sqlite.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode; only an OS crash or power
  // loss can lose the last transactions, and FULL costs an fsync per commit.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    await migrate(db, 'sqlite');
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return { db, dialect: 'sqlite', dataDir, close: () => db.destroy() };
}

async function migrate(db: Kysely<Database>, dialect: Dialect): Promise<void> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const migrations: Record<string, Migration> = {};
      for (const [name, module] of Object.entries(MIGRATIONS)) {
        migrations[name] = { up: (kysely) => module.up(kysely, dialect) };
      }
      return migrations;
    },
  };
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Could not migrate the store (migration ${failed}): ${String(error)}`);
  }
}
