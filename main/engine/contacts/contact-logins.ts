// Which contacts have a user login: a customer who can sign in (facts sections 12
// and 15). A contact's login is its `user_id` when set, else the user whose email is
// the contact's (users' emails are stored normalised: lower case, trimmed). The
// hosted service invites a customer by their contact email and the login is made
// for that address, so the two name the same person; SolarDesk has no invitation,
// and an admin makes the user (`solardesk admin create-user`). One rule, used by
// customer_proposal_data and by GET /api/user_logins/.
import { sql, type Kysely } from 'kysely';
import type { ContactRow, Database } from '../store/tables.ts';

/** Of these contacts, the ids of those with a login: one query for a page of projects. */
export async function loadContactLogins(db: Kysely<Database>, contacts: readonly ContactRow[]): Promise<Set<number>> {
  const withLogin = new Set(contacts.filter((contact) => contact.user_id !== null).map((contact) => contact.id));
  const emails = [...new Set(contacts.filter((contact) => contact.user_id === null).map((contact) => loginEmail(contact.email)).filter(Boolean))];
  if (emails.length === 0) return withLogin;
  const users = await db.selectFrom('users').select('email').where('email', 'in', emails).execute();
  const known = new Set(users.map((user) => user.email));
  for (const contact of contacts) if (contact.user_id === null && known.has(loginEmail(contact.email))) withLogin.add(contact.id);
  return withLogin;
}

const loginEmail = (email: string) => email.trim().toLowerCase();

/** The projects (of those named) on which the user is a customer contact: a contact whose login is theirs. */
export async function projectsWhereCustomer(
  db: Kysely<Database>,
  user: { id: number; email: string },
  projectIds: readonly number[],
): Promise<Set<number>> {
  if (projectIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('project_contacts')
    .innerJoin('contacts', 'contacts.id', 'project_contacts.contact_id')
    .select('project_contacts.project_id')
    .where('project_contacts.project_id', 'in', projectIds)
    .where((builder) =>
      builder.or([
        builder('contacts.user_id', '=', user.id),
        builder.and([builder('contacts.user_id', 'is', null), builder(sql`lower(trim(contacts.email))`, '=', loginEmail(user.email))]),
      ]),
    )
    .execute();
  return new Set(rows.map((row) => row.project_id));
}
