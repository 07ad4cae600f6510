// What the folder watcher needs of sync's outbox (main/sync/outbox.ts owns the
// table): holding, releasing and confirming the deletion of a file that left its
// folder, and reading what waits. The watcher never imports sync; the composer
// (main/core/agent-folders.ts) hands it an implementation.
import type { Expression, ExpressionBuilder, Kysely, SqlBool, Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { ChangeActor } from '../engine/changes/change-feed.ts';

type Db = Kysely<Database> | Transaction<Database>;

export interface FolderOutbox {
  /** Holds the deletion of a private file, once; returns the hold's id. */
  holdDelete(db: Db, fileId: number, reason: string, now: string): Promise<number>;
  /** The file is back in a folder: its held deletion goes. */
  releaseHeldDelete(db: Db, fileId: number): Promise<boolean>;
  /** Deletes the file for real (--confirm-deletes). */
  confirmHeldDelete(holdId: number, by: ChangeActor): Promise<{ fileId: number }>;
  /** Drops holds of files that no longer exist. */
  dropStaleHolds(): Promise<number>;
  /** A condition on `private_files`: no deletion of the file is queued or held. */
  hasNoQueuedDelete(builder: ExpressionBuilder<Database, 'private_files'>): Expression<SqlBool>;
  /** A condition on `private_files`: nothing of the file waits in the outbox (files on demand evict only such files). */
  hasNoQueuedChange(builder: ExpressionBuilder<Database, 'private_files'>): Expression<SqlBool>;
  /** Files from the folders still waiting to reach the remote. */
  listFolderUploads(limit: number): Promise<
    Array<{ record_id: number; status: string; last_error: string | null; name: string; size: number; folder: string; project_id: number }>
  >;
  /**
   * An edit in place on a folder copy whose file took other contents elsewhere since
   * the copy was made (`folderBase` -> `before` there, `folderBase` -> `local` here):
   * sync records a contents conflict, so the edit is not sent over the other side's
   * bytes. False when it is no conflict (the other contents were made here, or never synced).
   */
  recordContentsConflict(fileId: number, sides: { folderBase: string; before: string; local: string }): Promise<boolean>;
  listHeldFileDeletes(limit: number): Promise<Array<{ id: number; record_id: number; last_error: string | null }>>;
}
