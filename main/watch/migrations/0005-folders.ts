// Issue 6, the watcher's half of migration 0005-folders-uploads (the store applies it
// after sync's half, main/sync/migrations/0005-uploads.ts, under that one name): the
// project folders' mapping, which folder is which project's and which file in it is
// which private file. Only the watcher writes these; they live in every store so one
// schema serves every host.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const notNull = (c: ColumnDefinitionBuilder) => c.notNull();

  // A project's folder under the folder root. `canonical` is the "<title> (<id>)" name
  // it was last given; a new canonical name (renamed or re-keyed project) renames it.
  await db.schema
    .createTable('watch_projects')
    .addColumn('project_id', 'integer', (c) => c.primaryKey())
    .addColumn('folder', 'text', notNull)
    .addColumn('canonical', 'text', notNull)
    .addColumn('folder_ino', 'text')
    .execute();

  // A file in a project folder and the private file it is. size, mtime and inode as
  // last seen tell an unchanged file (nothing to do) and a renamed one (same inode).
  await db.schema
    .createTable('watch_files')
    .addColumn('project_id', 'integer', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('file_id', 'integer', notNull)
    .addColumn('file_hash', 'text', notNull)
    .addColumn('size', 'integer', notNull)
    .addColumn('mtime_ms', 'double precision', notNull)
    .addColumn('ino', 'text', notNull)
    .addPrimaryKeyConstraint('watch_files_pk', ['project_id', 'name'])
    .execute();
  await db.schema.createIndex('watch_files_file').on('watch_files').column('file_id').execute();
  await db.schema.createIndex('watch_files_ino').on('watch_files').column('ino').execute();
}
