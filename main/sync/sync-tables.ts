// Sync's own tables (docs/tables.md): its outbox, merge bases, conflicts, state and
// chunked uploads. Only main/sync/ queries them (sync_outbox only through
// outbox.ts); they join the store's `Database` by augmenting it, so the engine,
// which runs without sync, imports none of this.
import type { Generated, Selectable } from 'kysely';
import type { IdColumns, TableOwnership } from '../engine/store/table-ownership.ts';

export type OutboxStatus = 'pending' | 'in_flight' | 'parked' | 'held';

/** A local change waiting to reach the remote (main/sync/). */
export interface SyncOutboxTable {
  id: Generated<number>;
  op_id: string;
  model: string;
  record_id: number;
  op: 'create' | 'update' | 'delete';
  /** JSON array of the fields an update changed. */
  fields: string;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: string;
  /** When a request for it went out with no answer recorded yet (a crash or a lost response). */
  sent_at: string | null;
  last_error: string | null;
  created_date: string;
}

/** A synced record's merge base: the writable field values both sides last agreed on. */
export interface SyncRecordsTable {
  model: string;
  record_id: number;
  base: string;
  remote_modified: string | null;
}

export interface SyncConflictsTable {
  id: Generated<number>;
  model: string;
  record_id: number;
  field: string;
  local_value: string;
  remote_value: string;
  base_value: string;
  created_date: string;
  /** Why it is a conflict when not both sides changed it (the remote did not take the value sent); null: changed on both sides. Migration 0023. */
  reason: string | null;
}

/** A private file create going up in parts (main/sync/push.ts): resumed from parts_done + 1 after a restart. */
export interface SyncUploadsTable {
  op_id: string;
  upload_id: string;
  part_bytes: number;
  parts_done: number;
  created_date: string;
}

export interface SyncStateTable {
  key: string;
  value: string;
}


export interface SyncTables {
  sync_outbox: SyncOutboxTable;
  sync_records: SyncRecordsTable;
  sync_conflicts: SyncConflictsTable;
  sync_state: SyncStateTable;
  sync_uploads: SyncUploadsTable;
}

declare module '../engine/store/tables.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- adds sync's tables to the store's
  interface Database extends SyncTables {}
}

export const SYNC_TABLES: TableOwnership<SyncTables> = {
  part: 'sync',
  tables: { sync_outbox: true, sync_records: true, sync_conflicts: true, sync_state: true, sync_uploads: true },
  // 0016 and 0017 are the engine's but read or rewrite merge bases and conflicts (ids that changed meaning).
  migrations: ['0004-sync', '0005-folders-uploads', '0016-catalogues', '0017-event-types-identifiers', '0023-conflict-reasons'],
};

/**
 * The record ids sync's tables hold (docs/tables.md "Record ids"): each row names its
 * record's model in `model`. The re-key (record-ids.ts) moves the outbox's and the
 * conflicts' rows to the new id and drops the merge base of the old one; the keys of
 * `sync_state` that hold ids are moved by their owners' functions there.
 */
/** A change's own id, made by this computer (a UUID), never a record's. */
const CLIENT_OP = { notFollowed: 'a change\'s own id (a UUID made here), not a record\'s' } as const;

export const SYNC_ID_COLUMNS: IdColumns<SyncTables> = {
  sync_outbox: { id: { notFollowed: 'the outbox row\'s own sequence' }, op_id: CLIENT_OP, record_id: { recordOfModelColumn: true } },
  sync_records: { record_id: { recordOfModelColumn: true } },
  sync_conflicts: { id: { notFollowed: 'the conflict\'s own id' }, record_id: { recordOfModelColumn: true } },
  sync_uploads: { op_id: CLIENT_OP, upload_id: { notFollowed: 'the remote\'s id of a chunked upload, not a record' } },
};

export type OutboxRow = Selectable<SyncOutboxTable>;
export type ConflictRow = Selectable<SyncConflictsTable>;
export type SyncUploadRow = Selectable<SyncUploadsTable>;
