// What sync needs to know of the project folders (main/watch/ owns their tables,
// docs/tables.md). Sync never queries the watcher's tables: the composer
// (main/core/agent-folders.ts) hands the agent the watcher's implementation
// (main/watch/folder-records.ts) as `folderRecords`, as it hands the watcher
// sync's outbox (main/watch/folder-outbox.ts).
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';

type Db = Kysely<Database> | Transaction<Database>;

export interface ProjectFolderRecords {
  /** The private file was attached here from a file dropped into a project folder (not one only written out there). */
  isDroppedIntoProjectFolder(db: Db, fileId: number): Promise<boolean>;
  /** Which of `fileIds` are files in a project folder here. */
  filesInProjectFolders(db: Db, fileIds: readonly number[]): Promise<Set<number>>;
  /** A project folder here shows a file of `projectId` with contents `fileHash`, other than `exceptFileId`. */
  showsContentsInProject(db: Db, projectId: number, fileHash: string, exceptFileId: number): Promise<boolean>;
  /**
   * A project made offline took the remote's id `to`: its folder stays its folder,
   * and the folder of a pulled copy of `to`, if any, is let go. Runs in the re-key's transaction.
   */
  rekeyProject(trx: Transaction<Database>, from: number, to: number): Promise<void>;
  /** A private file made offline took the remote's id `to`: its folder copy stays its copy. */
  rekeyFile(trx: Transaction<Database>, from: number, to: number): Promise<void>;
}

/** An agent without project folders: no file is in one, and a re-key has no folder to move. */
export const NO_PROJECT_FOLDERS: ProjectFolderRecords = {
  isDroppedIntoProjectFolder: async () => false,
  filesInProjectFolders: async () => new Set(),
  showsContentsInProject: async () => false,
  rekeyProject: async () => {},
  rekeyFile: async () => {},
};
