// Issue 17: where and when each photo was taken, read once per contents from the
// local blob (main/core/photo-places.ts) and kept by the contents' sha256. A cache:
// rebuilt from the blobs at will, nothing an API view is built from, so it is
// bookkeeping (store/write-generations.ts) and carries no write_generations trigger.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('photo_exif')
    .addColumn('file_hash', 'text', (c) => c.primaryKey())
    .addColumn('taken_at', 'text')
    .addColumn('lat', 'real')
    .addColumn('lon', 'real')
    .addColumn('orientation', 'integer')
    .execute();
}
