// Issue 16 (hosted-docs-facts.md 3): workflows as the hosted API has them. A
// workflow gains a description, an archived flag and its created/modified dates; a
// stage gains an archived flag (`position` stays the column behind the API's
// `order`); a stage's actions get their own table. Existing workflows take their
// org's creation date as both dates, and nothing is archived, so every store's data
// (the demo's included) keeps its meaning. workflow_actions is part of an API view,
// so on PostgreSQL it gets its write_generations trigger (migration 0010).
import { sql, type Kysely } from 'kysely';
import { type Dialect, idColumn } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('workflows').addColumn('description', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('workflows').addColumn('is_archived', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('workflows').addColumn('created_date', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('workflows').addColumn('modified_date', 'text', (c) => c.notNull().defaultTo('')).execute();
  await sql`
    update workflows set
      created_date = coalesce((select orgs.created_date from orgs where orgs.id = workflows.org_id), ''),
      modified_date = coalesce((select orgs.created_date from orgs where orgs.id = workflows.org_id), '')`.execute(db);
  await db.schema.alterTable('workflow_stages').addColumn('is_archived', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await db.schema
    .createTable('workflow_actions')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('stage_id', 'integer', (c) => c.notNull().references('workflow_stages.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('workflow_actions_by_stage').on('workflow_actions').columns(['stage_id', 'position']).execute();
  await db.schema.createIndex('workflow_stages_by_workflow').on('workflow_stages').columns(['workflow_id', 'position']).execute();

  if (dialect === 'postgres') {
    await sql`
      create trigger workflow_actions_write_generations
      after insert or update or delete or truncate on workflow_actions
      for each statement execute function bump_write_generations('records')`.execute(db);
  }
}
