// The core's own tables (docs/tables.md): what the photo features learnt of a
// photo's contents (main/core/photo-places.ts). Only main/core/ queries them.
import type { TableOwnership } from '../engine/store/table-ownership.ts';

/** Where and when a photo was taken, by its contents' sha256 (migration 0013; main/core/photo-places.ts). */
export interface PhotoExifTable {
  file_hash: string;
  taken_at: string | null;
  lat: number | null;
  lon: number | null;
  orientation: number | null;
}

export interface CoreTables {
  photo_exif: PhotoExifTable;
}

declare module '../engine/store/tables.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- adds the core's tables to the store's
  interface Database extends CoreTables {}
}

export const CORE_TABLES: TableOwnership<CoreTables> = {
  part: 'core',
  tables: { photo_exif: true },
  migrations: ['0013-photo-exif'],
};
