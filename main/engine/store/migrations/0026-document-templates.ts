// Issue 29, item 5: org document templates, a SolarDesk extension
// (docs/documents.md "Templates"). One per document type and org: the org's name as
// printed, a logo (an image private file of the org), two colours, and intro and
// terms text with {placeholders}. A saved document names the template it was made
// with in its input_data, so private_files needs no column of its own.
import { sql, type Kysely } from 'kysely';
import { type Dialect, idColumn } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('document_templates')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('document_type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('org_display_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('logo_file_id', 'integer')
    .addColumn('primary_colour', 'text', (c) => c.notNull())
    .addColumn('accent_colour', 'text', (c) => c.notNull())
    .addColumn('intro_text', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('terms_text', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_date', 'text', (c) => c.notNull())
    .addColumn('modified_date', 'text', (c) => c.notNull())
    .execute();
  // One template per type in an org.
  await db.schema.createIndex('document_templates_org_type').on('document_templates').columns(['org_id', 'document_type']).unique().execute();
  // A template is part of what a document is made from: on PostgreSQL its writes move the
  // write generations (migration 0010), so other processes' caches see a changed template.
  if (dialect === 'postgres') {
    await sql`
      create trigger document_templates_write_generations
      after insert or update or delete or truncate on document_templates
      for each statement execute function bump_write_generations('records')`.execute(db);
  }
}
