// Counters of the writes this process has made, by what they can change, so the
// engine's caches (the caller's actor, a project's JSON, a record's snapshot) can
// tell whether anything they were built from may have changed since. Every query
// of the store passes through the plugin below before it runs: an insert, update,
// delete or merge bumps the counters of its table's group, and a query the plugin
// cannot read the target of (raw SQL that is not a select, schema changes) bumps
// them all. Counting only ever errs on the side of "changed".
//
// Writes made through this process's Kysely are seen as they happen. On SQLite,
// commits by any other connection to the file (an admin command working beside a
// running server: docs/store.md) are seen through `PRAGMA data_version`, which
// changes whenever another connection has committed: both counters move then.
// On a shared PostgreSQL other processes write at any time: there every write
// statement to a table also bumps the store's own counts (the write_generations
// table, kept by triggers: store migration 0010), which become visible with the
// commit, and a request reads them (refresh()) before it uses a cache.
import {
  AliasNode,
  DeleteQueryNode,
  InsertQueryNode,
  MergeQueryNode,
  RawNode,
  SelectQueryNode,
  TableNode,
  UpdateQueryNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import type { Database } from './tables.ts';

/** What the caller of a request is made of: their token, user, role in the org and the org's plan. */
export const AUTH_TABLES: ReadonlySet<keyof Database> = new Set(['tokens', 'users', 'roles', 'orgs']);

/**
 * Tables no API view of a record is built from: counters, queues and logs written
 * on every request or delivery. Writing them leaves every cached view valid. Any
 * table not listed here counts as part of the records' views.
 */
// Names, not keys of Database: it lists other parts' tables too (sync's, the watcher's, the core's),
// which a program holding only the engine does not know (docs/tables.md).
export const BOOKKEEPING_TABLES: ReadonlySet<string> = new Set([
  'throttle_buckets',
  'webhook_changes',
  // The change feed's log (migration 0011): read by the feed only, never part of a record's view.
  'change_log',
  // Photos' EXIF by contents hash (migration 0013): a cache main/core rebuilds from the blobs.
  'photo_exif',
  // The activity log (migration 0027): main/core's timeline, never part of a record's view.
  'activity_log',
  'webhook_deliveries',
  'webhook_process_logs',
  'file_uploads',
  'file_upload_parts',
  // Schedule feeds' secrets (migration 0025): read by the feed route alone, never part of a record's view.
  'calendar_feeds',
  // The sync outbox is left out: only main/sync/outbox.ts may name it (docs/layers.md),
  // so its writes count as writes to the records, which is only ever safe.
  'sync_state',
  'sync_uploads',
  'watch_projects',
  'watch_files',
]);

/** The store's counts of every process's committed writes (PostgreSQL: write_generations). */
export interface StoreWriteCounts {
  auth: number;
  records: number;
}

export class WriteGenerations {
  private authCount = 0;
  private recordsCount = 0;
  private lastExternalVersion: number | undefined;
  /** The largest store counts read so far: they only grow, and a read that finishes late must not move them back. */
  private storeAuth = 0;
  private storeRecords = 0;

  /**
   * `externalVersion`: a number that changes whenever another connection commits to the store (SQLite's data_version).
   * `readStoreCounts`: reads the store's counts of every process's committed writes (a shared PostgreSQL).
   */
  constructor(
    private readonly externalVersion?: () => number,
    private readonly readStoreCounts?: () => Promise<StoreWriteCounts>,
  ) {}

  /** Moves by every write that may change a caller's token, user, role or org (plan). */
  get auth(): number {
    this.noteExternalWrites();
    return this.authCount + this.storeAuth;
  }

  /** Moves by every write that may change an API view of any record (everything but bookkeeping). */
  get records(): number {
    this.noteExternalWrites();
    return this.recordsCount + this.storeRecords;
  }

  /**
   * On a shared store: reads what every process has committed, so the counters above
   * also move for other processes' writes. A request calls it before it looks in a
   * cache; what was committed before it started is then seen. Elsewhere a no-op.
   */
  async refresh(): Promise<void> {
    if (!this.readStoreCounts) return;
    const counts = await this.readStoreCounts();
    this.storeAuth = Math.max(this.storeAuth, counts.auth);
    this.storeRecords = Math.max(this.storeRecords, counts.records);
  }

  noteWrite(table: string | null): void {
    if (table === null || AUTH_TABLES.has(table as keyof Database)) this.authCount++;
    if (table === null || !BOOKKEEPING_TABLES.has(table)) this.recordsCount++;
  }

  private noteExternalWrites(): void {
    if (!this.externalVersion) return;
    const version = this.externalVersion();
    if (version !== this.lastExternalVersion) {
      // What another connection wrote is unknown: count it as a write to everything.
      if (this.lastExternalVersion !== undefined) this.noteWrite(null);
      this.lastExternalVersion = version;
    }
  }

  private readonly pending = new WeakMap<object, Array<string | null>>();

  /**
   * The Kysely plugin that counts; installed on the store's Kysely when it is opened.
   * A write is counted before it runs and again once it has run: a cache filled by
   * a read that slipped in between (it noted the counter after the first count, then
   * read the old rows) is then out of date as it should be.
   */
  readonly plugin: KyselyPlugin = {
    transformQuery: ({ node, queryId }: PluginTransformQueryArgs): RootOperationNode => {
      const tables = writtenTables(node);
      if (tables.length > 0) {
        for (const table of tables) this.noteWrite(table);
        this.pending.set(queryId, tables);
      }
      return node;
    },
    transformResult: async ({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => {
      const tables = this.pending.get(queryId);
      if (tables) {
        this.pending.delete(queryId);
        for (const table of tables) this.noteWrite(table);
      }
      return result;
    },
  };
}

const READ_ONLY_RAW = /^\s*(select|with\s[\s\S]*\bselect\b(?![\s\S]*\b(insert|update|delete)\b)|explain|pragma\s+\w+\s*$)/i;

/** The tables a query writes: none for a read; `null` (any table) when it cannot tell. */
function writtenTables(node: RootOperationNode): Array<string | null> {
  if (SelectQueryNode.is(node)) return [];
  if (InsertQueryNode.is(node)) return [tableName(node.into)];
  if (UpdateQueryNode.is(node)) return [tableName(node.table)];
  if (DeleteQueryNode.is(node)) return node.from.froms.map(tableName);
  if (MergeQueryNode.is(node)) return [tableName(node.into)];
  if (RawNode.is(node)) return READ_ONLY_RAW.test(node.sqlFragments.join('?')) ? [] : [null];
  return [null];
}

function tableName(node: OperationNode | undefined): string | null {
  if (!node) return null;
  if (TableNode.is(node)) return node.table.identifier.name;
  if (AliasNode.is(node)) return tableName(node.node);
  return null;
}
