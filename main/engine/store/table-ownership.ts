// Each part of the app owns its tables and the migrations that make them
// (docs/tables.md): the engine (main/engine/store/tables.ts), sync
// (main/sync/sync-tables.ts), the watcher (main/watch/watch-tables.ts) and the core
// (main/core/core-tables.ts). Only the owner queries a table; a part that needs
// another's data gets a function injected. The declarations below are what the
// ownership test (main/core/tests/table-ownership.test.ts) checks the migrated
// store and the lint rule (eslint.config.js, `tableOwners`) against.

export type TablePart = 'engine' | 'sync' | 'watch' | 'core';

/** A part's tables (every key of its row-type interface, checked by the compiler) and its migrations. */
export interface TableOwnership<Tables> {
  readonly part: TablePart;
  readonly tables: { readonly [Name in keyof Tables & string]: true };
  /**
   * The migrations that create or change these tables, in the part's own folder
   * (main/<part>/migrations/, the engine's main/engine/store/migrations/), which the
   * store applies in one numbered order for every part (migration-order.ts), so
   * existing data folders keep opening. One that moves data across two parts' tables
   * stays with the engine's and is listed by both.
   */
  readonly migrations: readonly string[];
}

export function ownedTableNames(ownership: TableOwnership<unknown>): string[] {
  return Object.keys(ownership.tables);
}

/**
 * Ids at and above this were made offline on a replica and are not on the remote
 * yet: records (below) and the org's own file tags (main/engine/files/file-tags.ts).
 * Sync refuses them from a remote (main/sync/remote-records.ts).
 */
export const PROVISIONAL_ID_FLOOR = 1_000_000_000_000;

/**
 * The records whose ids can change: one made offline (ids from 10^12 up) takes the
 * remote's id when its create is answered (main/sync/record-ids.ts `rekey`).
 */
export type RecordIdModel = 'project' | 'contact' | 'event' | 'webhook' | 'private_file';

/**
 * What a column holding ids refers to (docs/tables.md "Record ids"):
 * - a model: it holds that model's record ids, and follows a record to its new id;
 * - `{ recordOfModelColumn: true }`: it holds the id of the record its row's `model`
 *   column names (sync's bookkeeping), which follows it too;
 * - `{ notFollowed }`: why it never needs to: the ids of things never made offline
 *   (orgs, users, roles, stages, catalogue entries), or a log kept as it was written.
 */
export type IdColumnMeaning = RecordIdModel | { readonly recordOfModelColumn: true } | { readonly notFollowed: string };

/**
 * A part's declaration of every column of its tables that holds ids: each column
 * named `id`, `*_id` or `*_ids` (and `ID_LIKE_COLUMNS`), beside its tables. The
 * re-key is composed from these; a schema test (main/sync/tests/record-id-columns.test.ts)
 * fails when a migration adds such a column that its owner has not declared.
 */
export type IdColumns<Tables> = {
  readonly [Name in keyof Tables & string]?: { readonly [Column in keyof Tables[Name] & string]?: IdColumnMeaning };
};

/** Columns that hold ids without saying so in their name. */
export const ID_LIKE_COLUMNS: readonly string[] = ['model_pk'];

/** Whether a column's name says it holds ids, so its owner must declare it. */
export const namesIds = (column: string): boolean => column === 'id' || /_ids?$/.test(column) || ID_LIKE_COLUMNS.includes(column);

/** The columns of `declared` that hold `model`'s record ids, the record's own `id` first. */
export function columnsHolding<Tables>(declared: IdColumns<Tables>, model: RecordIdModel): { table: keyof Tables & string; column: string }[] {
  const found = Object.entries(declared).flatMap(([table, columns]) =>
    Object.entries(columns as Record<string, IdColumnMeaning>)
      .filter(([, meaning]) => meaning === model)
      .map(([column]) => ({ table: table as keyof Tables & string, column })),
  );
  return [...found.filter((entry) => entry.column === 'id'), ...found.filter((entry) => entry.column !== 'id')];
}
