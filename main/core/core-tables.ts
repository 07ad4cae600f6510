// The core's own tables (docs/tables.md): what the photo features learnt of a
// photo's contents (main/core/photo-places.ts), and the activity log
// (main/core/activity-log.ts). Only main/core/ queries them.
import type { Generated } from 'kysely';
import type { IdColumns, TableOwnership } from '../engine/store/table-ownership.ts';

/** Where and when a photo was taken, by its contents' sha256 (migration 0013; main/core/photo-places.ts). */
export interface PhotoExifTable {
  file_hash: string;
  taken_at: string | null;
  lat: number | null;
  lon: number | null;
  orientation: number | null;
}

/** One entry of the timeline (migration 0027; main/core/activity-log.ts, shared/activity.ts). */
export interface ActivityLogTable {
  id: Generated<number>;
  org_id: number;
  at: string;
  updated_at: string;
  kind: string;
  state: string;
  wait_reason: string | null;
  project_id: number | null;
  file_id: number | null;
  model: string | null;
  record_id: number | null;
  subject: string;
  /** JSON: the changed fields' labels. */
  fields: string;
  progress_done: number | null;
  progress_total: number | null;
  detail: string | null;
  hold_id: number | null;
  conflict_id: number | null;
  live_key: string | null;
  search_text: string;
}

export interface CoreTables {
  photo_exif: PhotoExifTable;
  activity_log: ActivityLogTable;
}

declare module '../engine/store/tables.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- adds the core's tables to the store's
  interface Database extends CoreTables {}
}

export const CORE_TABLES: TableOwnership<CoreTables> = {
  part: 'core',
  tables: { photo_exif: true, activity_log: true },
  migrations: ['0013-photo-exif', '0027-activity-log'],
};

/**
 * The record ids the core's tables hold (docs/tables.md "Record ids"). An entry's
 * project and file follow a record made offline to its remote id, through the
 * project folders' re-key the core hands to sync (agent-folders.ts
 * `projectFolderRecords`), so Open the project and Show in folder still find them.
 */
export const CORE_ID_COLUMNS: IdColumns<CoreTables> = {
  activity_log: {
    id: { notFollowed: "an entry's own number, made here" },
    org_id: { notFollowed: 'orgs are never made offline' },
    project_id: 'project',
    file_id: 'private_file',
    // A project's or a file's follows with them (activity-log.ts rekeyActivity); other models' are kept as written.
    record_id: { recordOfModelColumn: true },
    hold_id: { notFollowed: "a held delete's outbox row, made here and never re-keyed" },
    conflict_id: { notFollowed: "a conflict's row, made here and never re-keyed" },
  },
};
