// Reads the server's SQLite store from the test process, through a read-only
// connection of its own (WAL lets it read while the server writes): snapshots of
// every table that holds data, the commit counter, and SQLite's own checks.
import path from 'node:path';
import Database from 'better-sqlite3';
import { DATABASE_FILE_NAME } from '../engine/store/database.ts';

/**
 * Tables that are bookkeeping rather than data a request makes: sign-in tokens,
 * throttle counts, webhook delivery queues and logs (the consequence of a change,
 * checked on their own), the sync agent's `sync_*` tables (replicas only) and
 * migrations. Every other table, including any added later, is data. The change
 * feed's `change_log` is kept in the snapshots on purpose (unlike in
 * engine/store/write-generations.ts): a refused request must log no change, and the
 * bad-input test checks that each valid write logged exactly its own rows.
 */
const BOOKKEEPING_TABLES = new Set([
  'tokens',
  'throttle_buckets',
  'webhook_changes',
  'webhook_deliveries',
  'webhook_process_logs',
  'kysely_migration',
  'kysely_migration_lock',
  'sqlite_sequence',
]);
const isBookkeeping = (table: string) => BOOKKEEPING_TABLES.has(table) || table.startsWith('sync_');

/** Table -> row key (its id, or the whole row for link tables) -> the row as JSON. */
export type StoreSnapshot = Map<string, Map<string, string>>;

export interface RowChange {
  table: string;
  key: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export class StoreInspector {
  private readonly db: Database.Database;

  constructor(dataDir: string) {
    this.db = new Database(path.join(dataDir, DATABASE_FILE_NAME), { readonly: true, fileMustExist: true });
  }

  /** Changes whenever another connection (the server) commits; never otherwise. */
  dataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }

  dataTables(): string[] {
    const tables = this.db.prepare("select name from sqlite_master where type = 'table' order by name").all() as Array<{ name: string }>;
    return tables.map((table) => table.name).filter((name) => !isBookkeeping(name));
  }

  snapshot(): StoreSnapshot {
    const snapshot: StoreSnapshot = new Map();
    for (const table of this.dataTables()) {
      const rows = this.db.prepare(`select * from "${table}"`).all() as Array<Record<string, unknown>>;
      snapshot.set(table, new Map(rows.map((row) => [rowKey(row), JSON.stringify(row)])));
    }
    return snapshot;
  }

  all<Row = Record<string, unknown>>(query: string, ...params: unknown[]): Row[] {
    return this.db.prepare(query).all(...params) as Row[];
  }

  /** "ok", or what SQLite found wrong. */
  integrityCheck(): string {
    const rows = this.db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    return rows.map((row) => row.integrity_check).join('; ');
  }

  foreignKeyViolations(): unknown[] {
    return this.db.pragma('foreign_key_check') as unknown[];
  }

  close(): void {
    this.db.close();
  }
}

function rowKey(row: Record<string, unknown>): string {
  return 'id' in row ? String(row.id) : JSON.stringify(row);
}

/** Every row added, removed or changed between two snapshots. */
export function diffSnapshots(before: StoreSnapshot, after: StoreSnapshot): RowChange[] {
  const changes: RowChange[] = [];
  for (const table of new Set([...before.keys(), ...after.keys()])) {
    const old = before.get(table) ?? new Map<string, string>();
    const now = after.get(table) ?? new Map<string, string>();
    for (const key of new Set([...old.keys(), ...now.keys()])) {
      const was = old.get(key);
      const is = now.get(key);
      if (was === is) continue;
      changes.push({ table, key, before: was === undefined ? null : JSON.parse(was), after: is === undefined ? null : JSON.parse(is) });
    }
  }
  return changes;
}
