// Orgs, users, roles, tokens, workflows, projects and contacts.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumn } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const flag = (name: string, fallback: 0 | 1) =>
    [name, 'integer', (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(fallback)] as const;
  const text = (name: string) => [name, 'text', (c: ColumnDefinitionBuilder) => c.notNull().defaultTo('')] as const;

  await db.schema
    .createTable('orgs')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('api_plan', 'text')
    .addColumn('plan_starts_on', 'text')
    .addColumn('plan_ends_on', 'text')
    .addColumn(...flag('plan_is_trial', 0))
    .addColumn('created_date', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn(...text('first_name'))
    .addColumn(...text('family_name'))
    .addColumn(...text('phone'))
    .addColumn(...flag('is_machine_user', 0))
    .addColumn(...flag('is_staff', 0))
    .addColumn('created_date', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('roles')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('user_id', 'integer', (c) => c.references('users.id'))
    .addColumn(...text('email'))
    .addColumn(...text('first_name'))
    .addColumn(...text('family_name'))
    .addColumn(...text('job_title'))
    .addColumn(...text('accreditation'))
    .addColumn(...text('phone'))
    .addColumn(...flag('is_admin', 0))
    .addColumn(...flag('is_hidden', 0))
    .addColumn(...flag('allow_email_notifications', 1))
    .addColumn(...flag('has_logged_in', 0))
    .addColumn('external_calendar_id', 'text')
    .addColumn(...text('schedule_meeting_url'))
    .addColumn(...text('schedule_meeting_label'))
    .addColumn(...flag('is_pro', 0))
    .addColumn(...flag('sees_all_projects', 0))
    .addColumn(...flag('can_access_all_files', 0))
    .addColumn(...flag('can_export_projects', 0))
    .addColumn('created_date', 'text', (c) => c.notNull())
    .addColumn('modified_date', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('roles_org_user').on('roles').columns(['org_id', 'user_id']).execute();

  await db.schema
    .createTable('tokens')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_date', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('workflows')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn(...flag('is_default', 0))
    .execute();

  await db.schema
    .createTable('workflow_stages')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('workflow_id', 'integer', (c) => c.notNull().references('workflows.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('milestone', 'integer', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn(...text('title'))
    .addColumn(...text('identifier'))
    .addColumn(...text('address'))
    .addColumn(...text('locality'))
    .addColumn(...text('state'))
    .addColumn(...text('zip'))
    .addColumn(...text('country_iso2'))
    .addColumn('lat', 'double precision')
    .addColumn('lon', 'double precision')
    .addColumn('business_name', 'text')
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(2))
    .addColumn(...flag('is_residential', 1))
    .addColumn(...flag('is_lite', 0))
    .addColumn('roof_type_id', 'integer')
    .addColumn('workflow_id', 'integer', (c) => c.notNull().references('workflows.id'))
    .addColumn('active_stage_id', 'integer', (c) => c.notNull().references('workflow_stages.id'))
    .addColumn('assigned_role_id', 'integer', (c) => c.references('roles.id'))
    .addColumn('assigned_installer_role_id', 'integer', (c) => c.references('roles.id'))
    .addColumn('assigned_site_inspector_role_id', 'integer', (c) => c.references('roles.id'))
    .addColumn('assigned_designer_role_id', 'integer', (c) => c.references('roles.id'))
    .addColumn('assigned_salesperson_role_id', 'integer', (c) => c.references('roles.id'))
    .addColumn('usage', 'text')
    .addColumn('design', 'text')
    .addColumn('attributes', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_date', 'text', (c) => c.notNull())
    .addColumn('modified_date', 'text', (c) => c.notNull())
    .execute();
  // The list's default order, and the sync client's incremental pull, walk this index.
  await db.schema.createIndex('projects_org_modified').on('projects').columns(['org_id', 'modified_date', 'id']).execute();

  await db.schema
    .createTable('contacts')
    .addColumn('id', ...idColumn(dialect))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('orgs.id'))
    .addColumn(...text('first_name'))
    .addColumn(...text('family_name'))
    .addColumn(...text('email'))
    .addColumn(...text('phone'))
    .addColumn(...text('passport_number'))
    .addColumn(...text('licence_number'))
    .addColumn(...text('custom_contact_info_1'))
    .addColumn(...text('custom_contact_info_2'))
    .addColumn(...text('identifier'))
    .addColumn('user_id', 'integer', (c) => c.references('users.id'))
    .addColumn('type', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('date_of_birth', 'text')
    .addColumn('gender', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_date', 'text', (c) => c.notNull())
    .addColumn('modified_date', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('contacts_org').on('contacts').columns(['org_id', 'id']).execute();

  await db.schema
    .createTable('project_contacts')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('contact_id', 'integer', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('project_contacts_pk', ['project_id', 'contact_id'])
    .execute();
  await db.schema.createIndex('project_contacts_contact').on('project_contacts').column('contact_id').execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

}
