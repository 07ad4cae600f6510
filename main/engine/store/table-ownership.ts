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
   * The migrations (main/engine/store/migrations/, applied in one numbered order for
   * every part, so existing data folders keep opening) that create or change these
   * tables. One that touches two parts' tables is listed by both.
   */
  readonly migrations: readonly string[];
}

export function ownedTableNames(ownership: TableOwnership<unknown>): string[] {
  return Object.keys(ownership.tables);
}
