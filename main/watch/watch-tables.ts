// The folder watcher's own tables (docs/tables.md): which folder is which
// project's, and which file in it is which private file. Only main/watch/ queries
// them; sync and the core get what they need of them as functions
// (main/watch/folder-links.ts), injected by the composer.
import type { Generated, Insertable, Selectable } from 'kysely';
import type { Flag } from '../engine/store/portable-columns.ts';
import type { IdColumns, TableOwnership } from '../engine/store/table-ownership.ts';

/** A project's folder under the folder root (main/watch/). */
export interface WatchProjectsTable {
  project_id: number;
  /** The folder's name under the root. */
  folder: string;
  /** The "<title> (<id>)" name it was last given; when that changes, the folder is renamed. */
  canonical: string;
  folder_ino: string | null;
}

/** A file in a project folder and the private file it is (main/watch/). */
export interface WatchFilesTable {
  project_id: number;
  name: string;
  file_id: number;
  file_hash: string;
  size: number;
  mtime_ms: number;
  ino: string;
  /** 1: attached from a file dropped into the folder; 0: written out here by the watcher (migration 0029). */
  is_dropped: Generated<Flag>;
}

export interface WatchTables {
  watch_projects: WatchProjectsTable;
  watch_files: WatchFilesTable;
}

declare module '../engine/store/tables.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- adds the watcher's tables to the store's
  interface Database extends WatchTables {}
}

export const WATCH_TABLES: TableOwnership<WatchTables> = {
  part: 'watch',
  tables: { watch_projects: true, watch_files: true },
  migrations: ['0005-folders-uploads', '0029-dropped-files'],
};

/**
 * The record ids the watcher's tables hold (docs/tables.md "Record ids"). When a record
 * made offline takes the remote's id, the watcher moves them itself (folder-records.ts
 * `rekeyProject`, `rekeyFile`), handed to sync's re-key by the core.
 */
export const WATCH_ID_COLUMNS: IdColumns<WatchTables> = {
  watch_projects: { project_id: 'project' },
  watch_files: { project_id: 'project', file_id: 'private_file' },
};

export type WatchProjectRow = Selectable<WatchProjectsTable>;
export type WatchFileRow = Selectable<WatchFilesTable>;
/** A mapping as written: `is_dropped` only where the watcher attached a dropped file (0 when left out). */
export type WatchFileMapping = Insertable<WatchFilesTable>;
