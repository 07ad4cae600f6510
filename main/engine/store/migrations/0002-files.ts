// Private files, their tags, chunked upload sessions, and connected orgs (issue 3).
// File contents live outside the database as content-addressed blobs
// (main/engine/files/blob-store.ts); a row holds the blob's sha256 in file_hash.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumn } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const flag = (name: string) => [name, 'integer', (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(0)] as const;
  const timestamp = (name: string) => [name, 'text', (c: ColumnDefinitionBuilder) => c.notNull()] as const;

  await db.schema
    .createTable('private_files')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    // A deleted project leaves its files in the org, unattached: files are never lost with it.
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('set null'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('filesize', 'integer')
    .addColumn('file_hash', 'text')
    .addColumn('system_uuid', 'text')
    .addColumn('input_data', 'text')
    .addColumn('input_data_hash', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'text')
    .addColumn('status_message', 'text')
    .addColumn(...flag('show_customer'))
    .addColumn(...flag('temporary'))
    .addColumn('upload_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('parts', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('completed_on', 'text')
    .addColumn(...timestamp('created_date'))
    .addColumn(...timestamp('modified_date'))
    .execute();
  // The list's default order walks this index; the others serve projects, blob
  // reference counts and the "files I created" access rule.
  await db.schema.createIndex('private_files_org_modified').on('private_files').columns(['org_id', 'modified_date', 'id']).execute();
  await db.schema.createIndex('private_files_project').on('private_files').column('project_id').execute();
  await db.schema.createIndex('private_files_hash').on('private_files').column('file_hash').execute();
  await db.schema.createIndex('private_files_org_user').on('private_files').columns(['org_id', 'user_id']).execute();

  await db.schema
    .createTable('file_tags')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('private'))
    .addColumn(...timestamp('created_date'))
    .execute();
  await db.schema.createIndex('file_tags_org_title').unique().on('file_tags').columns(['org_id', 'title']).execute();

  await db.schema
    .createTable('private_file_tags')
    .addColumn('file_id', 'integer', (c) => c.notNull().references('private_files.id').onDelete('cascade'))
    .addColumn('tag_id', 'integer', (c) => c.notNull().references('file_tags.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('private_file_tags_pk', ['file_id', 'tag_id'])
    .execute();
  await db.schema.createIndex('private_file_tags_tag').on('private_file_tags').column('tag_id').execute();

  await db.schema
    .createTable('file_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('set null'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('declared_size', 'integer')
    .addColumn('completed_file_id', 'integer', (c) => c.references('private_files.id').onDelete('set null'))
    .addColumn(...timestamp('created_date'))
    .addColumn(...timestamp('expires_at'))
    .execute();
  await db.schema.createIndex('file_uploads_expires').on('file_uploads').column('expires_at').execute();

  await db.schema
    .createTable('file_upload_parts')
    .addColumn('upload_id', 'text', (c) => c.notNull().references('file_uploads.id').onDelete('cascade'))
    .addColumn('part_number', 'integer', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('etag', 'text', (c) => c.notNull())
    .addColumn(...timestamp('created_date'))
    .addPrimaryKeyConstraint('file_upload_parts_pk', ['upload_id', 'part_number'])
    .execute();

  await db.schema
    .createTable('connected_orgs')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('connected_org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('requested_by_user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn(...timestamp('created_date'))
    .addColumn(...timestamp('modified_date'))
    .execute();
  await db.schema.createIndex('connected_orgs_org').on('connected_orgs').column('org_id').execute();
  await db.schema.createIndex('connected_orgs_connected').on('connected_orgs').column('connected_org_id').execute();
}
