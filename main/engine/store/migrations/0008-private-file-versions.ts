// Issue 14: an edit in place replaces a private file's contents and keeps the id;
// the contents it replaced are kept as versions on this computer (the 10 newest
// of each file, and every one younger than 30 days), listed and restored through
// the engine's versions extension (docs/files.md "Versions"). A version names a
// blob by its sha256 like a file does, so the blob lives while either names it.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumn } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const notNull = (c: ColumnDefinitionBuilder) => c.notNull();
  await db.schema
    .createTable('private_file_versions')
    .addColumn('id', ...idColumn(dialect))
    // A version goes with its file (and follows it when sync re-keys it); its blob is released by the delete, or swept at start.
    .addColumn('file_id', 'integer', (c) => c.notNull().references('private_files.id').onDelete('cascade').onUpdate('cascade'))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('file_hash', 'text', notNull)
    .addColumn('filesize', 'integer', notNull)
    .addColumn('mime_type', 'text', notNull)
    .addColumn('file_name', 'text', notNull)
    // When these contents stopped being the file's: the version's date.
    .addColumn('replaced_at', 'text', notNull)
    // Who replaced them; null when sync brought the new contents, or the user is gone.
    .addColumn('replaced_by_user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .execute();
  // A file's versions newest first (the list, the retention count) walk this index;
  // the blob reference check and the start-up prune use the other two.
  await db.schema.createIndex('private_file_versions_file').on('private_file_versions').columns(['file_id', 'replaced_at', 'id']).execute();
  await db.schema.createIndex('private_file_versions_hash').on('private_file_versions').column('file_hash').execute();
  await db.schema.createIndex('private_file_versions_replaced').on('private_file_versions').column('replaced_at').execute();
}
