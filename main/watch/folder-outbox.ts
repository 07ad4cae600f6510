// What the folder watcher needs of sync's outbox (main/sync/outbox.ts owns the
// table): holding, releasing and confirming the deletion of a file that left its
// folder, and reading what waits. The watcher never imports sync nor queries its
// tables, and sync is asked questions, not handed SQL (docs/tables.md); the composer
// (main/core/agent-folders.ts) hands it an implementation.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { ChangeActor } from '../engine/changes/change-feed.ts';

type Db = Kysely<Database> | Transaction<Database>;

export interface QueuedFileCreate {
  /** The outbox entry's id: the key of the next page. */
  id: number;
  record_id: number;
  status: string;
  last_error: string | null;
}

export interface FolderOutbox {
  /** Holds the deletion of a private file, once; returns the hold's id. */
  holdDelete(db: Db, fileId: number, reason: string, now: string): Promise<number>;
  /** The file is back in a folder: its held deletion goes. */
  releaseHeldDelete(db: Db, fileId: number): Promise<boolean>;
  /** Deletes the file for real (--confirm-deletes). */
  confirmHeldDelete(holdId: number, by: ChangeActor): Promise<{ fileId: number }>;
  /** Drops holds of files that no longer exist. */
  dropStaleHolds(): Promise<number>;
  /** Which of these files have a deletion queued or held. */
  filesWithQueuedDelete(fileIds: readonly number[]): Promise<Set<number>>;
  /** Which of these files have anything waiting in the outbox (files on demand evict only files with nothing). */
  filesWithQueuedChange(fileIds: readonly number[]): Promise<Set<number>>;
  /** Private file creates still waiting to reach the remote, in queue order: at most `limit` after the entry `afterId`. */
  listFileCreates(afterId: number, limit: number): Promise<QueuedFileCreate[]>;
  /**
   * An edit in place on a folder copy whose file took other contents elsewhere since
   * the copy was made (`folderBase` -> `before` there, `folderBase` -> `local` here):
   * sync records a contents conflict, so the edit is not sent over the other side's
   * bytes. False when it is no conflict (the other contents were made here, or never synced).
   */
  recordContentsConflict(fileId: number, sides: { folderBase: string; before: string; local: string }): Promise<boolean>;
  listHeldFileDeletes(limit: number): Promise<Array<{ id: number; record_id: number; last_error: string | null }>>;
  /** The contents hash each file had when last read from the remote (sync's merge base): bytes the remote is known to hold. Files never synced are absent. */
  remoteFileHashes(fileIds: readonly number[]): Promise<Map<number, string | null>>;
}
