// Issue 6: the project folders' mapping (which folder is which project's, which file
// in it is which private file) and the state of chunked pushes, so a restart
// resumes a big upload from its next part. Like 0004, only the agent writes these;
// they live in every store so one schema serves both hosts.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  const notNull = (c: ColumnDefinitionBuilder) => c.notNull();

  // One row per outbox create going up in parts: the remote's upload id and how many parts it acknowledged.
  await db.schema
    .createTable('sync_uploads')
    .addColumn('op_id', 'text', (c) => c.primaryKey())
    .addColumn('upload_id', 'text', notNull)
    .addColumn('part_bytes', 'integer', notNull)
    .addColumn('parts_done', 'integer', notNull)
    .addColumn('created_date', 'text', notNull)
    .execute();

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
