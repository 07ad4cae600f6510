// Who may see and change which contact (docs/access.md), written once as a SQL
// condition so that the list, its search, the detail, every write and a project's
// `contacts` references all apply the same rule. It is the private files' rule
// (file-access.ts) with the org-wide projects permission in place of the files one:
//   - a member who sees all projects (or an admin) sees every contact of the org;
//   - others see the contacts attached to projects they can see, and those they created.
// A contact only appears inside a project the viewer can already open, so a
// project's contacts_data needs no filter of its own.
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { ContactRow, Database } from '../store/tables.ts';
import { type Actor, canSeeAllProjects } from '../auth/actor.ts';
import { forbidden, notFound } from '../http/errors.ts';
import { visibleProjectIds } from '../projects/project-access.ts';

/** Restricts a contacts query to the contacts the actor may see (their org's, and within it, the rule above). */
export function contactVisibleTo(actor: Actor) {
  return (builder: ExpressionBuilder<Database, 'contacts'>) => {
    const inOrg = builder('contacts.org_id', '=', actor.org.id);
    if (canSeeAllProjects(actor.role)) return inOrg;
    const onVisibleProjects = builder
      .selectFrom('project_contacts')
      .select('project_contacts.contact_id')
      .where('project_contacts.project_id', 'in', visibleProjectIds(actor));
    return builder.and([
      inOrg,
      builder.or([builder('contacts.created_by_user_id', '=', actor.user.id), builder('contacts.id', 'in', onVisibleProjects)]),
    ]);
  };
}

/**
 * The contact, when the actor may see it: 404 when no such contact exists in the
 * org, 403 when it exists but is not theirs to see (compatibility.md "Status
 * codes", as for projects and private files).
 */
export async function getVisibleContact(db: Kysely<Database>, actor: Actor, id: number): Promise<ContactRow> {
  const row = await db.selectFrom('contacts').selectAll().where('id', '=', id).where('org_id', '=', actor.org.id).executeTakeFirst();
  if (!row) throw notFound();
  const visible = await db.selectFrom('contacts').select('id').where('id', '=', id).where(contactVisibleTo(actor)).executeTakeFirst();
  if (!visible) {
    throw forbidden('You do not have access to this contact: it is on no project assigned to you. Ask an admin of the organisation to assign you to one of its projects.');
  }
  return row;
}

/** Which of these contact ids the actor may see (for checking a write's references). */
export async function visibleContactIds(db: Kysely<Database>, actor: Actor, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('contacts').select('id').where('id', 'in', ids).where(contactVisibleTo(actor)).execute();
  return new Set(rows.map((row) => row.id));
}
