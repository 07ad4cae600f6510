// Contacts: the JSON shape (service.md 2.1 "Contact record shape") and writes.
import type { Kysely, Transaction } from 'kysely';
import type { ContactRow, Database, NewContact } from '../store/tables.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { ContactWrite } from '../../../shared/schemas/contact-write.ts';
import type { ContactJson, ContactRecordJson } from '../../../shared/schemas/contact.ts';
import { nowIso } from '../clock.ts';
import { type Actor, canSeeAllProjects } from '../auth/actor.ts';
import { visibleProjectIds } from '../projects/project-access.ts';

export function serializeContact(context: EngineContext, contact: ContactRow): ContactJson {
  return {
    id: contact.id,
    org_id: contact.org_id,
    url: absoluteUrl(context, apiPaths.contact(contact.org_id, contact.id)),
    first_name: contact.first_name,
    family_name: contact.family_name,
    display: `${contact.first_name} ${contact.family_name}`.trim() || contact.email,
    email: contact.email,
    phone: contact.phone,
    passport_number: contact.passport_number,
    licence_number: contact.licence_number,
    custom_contact_info_1: contact.custom_contact_info_1,
    custom_contact_info_2: contact.custom_contact_info_2,
    identifier: contact.identifier,
    user_id: contact.user_id,
    type: contact.type,
    date_of_birth: contact.date_of_birth,
    gender: contact.gender,
    created_date: contact.created_date,
    modified_date: contact.modified_date,
    org: absoluteUrl(context, apiPaths.org(contact.org_id)),
    user: contact.user_id === null ? null : absoluteUrl(context, apiPaths.user(contact.user_id)),
  };
}

/** The contact's own record: its JSON and the URLs of its projects (`projectIds`, from loadContactProjects). */
export function serializeContactRecord(context: EngineContext, contact: ContactRow, projectIds: readonly number[]): ContactRecordJson {
  return { ...serializeContact(context, contact), projects: projectIds.map((id) => absoluteUrl(context, apiPaths.project(contact.org_id, id))) };
}

/**
 * The projects each contact is on, by project id; with `actor`, only those the actor
 * may see (a contact's record never names a project hidden from its reader).
 */
export async function loadContactProjects(
  db: Kysely<Database> | Transaction<Database>,
  contactIds: readonly number[],
  actor: Actor | null,
): Promise<Map<number, number[]>> {
  const byContact = new Map<number, number[]>(contactIds.map((id) => [id, []]));
  if (contactIds.length === 0) return byContact;
  let query = db
    .selectFrom('project_contacts')
    .select(['project_contacts.contact_id', 'project_contacts.project_id'])
    .where('project_contacts.contact_id', 'in', contactIds);
  if (actor && !canSeeAllProjects(actor.role)) query = query.where('project_contacts.project_id', 'in', visibleProjectIds(actor));
  const rows = await query.orderBy('project_contacts.project_id').execute();
  for (const row of rows) byContact.get(row.contact_id)?.push(row.project_id);
  return byContact;
}

/** Contacts as their records, with one query for all their projects. */
export async function serializeContactRecords(
  context: EngineContext,
  db: Kysely<Database> | Transaction<Database>,
  contacts: readonly ContactRow[],
  actor: Actor | null,
): Promise<ContactRecordJson[]> {
  const projects = await loadContactProjects(db, contacts.map((contact) => contact.id), actor);
  return contacts.map((contact) => serializeContactRecord(context, contact, projects.get(contact.id) ?? []));
}

/** A contact's row from its writable fields, missing ones at their defaults. */
export function contactRowValues(orgId: number, contact: ContactWrite, createdDate: string, modifiedDate: string): NewContact {
  return {
    org_id: orgId,
    first_name: contact.first_name ?? '',
    family_name: contact.family_name ?? '',
    email: contact.email ?? '',
    phone: contact.phone ?? '',
    passport_number: contact.passport_number ?? '',
    licence_number: contact.licence_number ?? '',
    custom_contact_info_1: contact.custom_contact_info_1 ?? '',
    custom_contact_info_2: contact.custom_contact_info_2 ?? '',
    identifier: contact.identifier ?? '',
    user_id: null,
    type: contact.type ?? 0,
    date_of_birth: contact.date_of_birth ?? null,
    gender: contact.gender ?? 0,
    created_date: createdDate,
    modified_date: modifiedDate,
  };
}

/** A new contact in the actor's org, recorded as theirs so they keep seeing it (docs/access.md). */
export async function insertContact(
  db: Kysely<Database> | Transaction<Database>,
  context: EngineContext,
  actor: Actor,
  contact: ContactWrite,
): Promise<ContactRow> {
  const now = nowIso(context.clock);
  return db
    .insertInto('contacts')
    .values({ ...contactRowValues(actor.org.id, contact, now, now), created_by_user_id: actor.user.id })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Contacts attached to each project, in their attached order. */
export async function loadProjectContacts(
  db: Kysely<Database>,
  projectIds: readonly number[],
): Promise<Map<number, ContactRow[]>> {
  const byProject = new Map<number, ContactRow[]>(projectIds.map((id) => [id, []]));
  if (projectIds.length === 0) return byProject;
  const rows = await db
    .selectFrom('project_contacts')
    .innerJoin('contacts', 'contacts.id', 'project_contacts.contact_id')
    .selectAll('contacts')
    .select('project_contacts.project_id')
    .where('project_contacts.project_id', 'in', projectIds)
    .orderBy('project_contacts.project_id')
    .orderBy('project_contacts.position')
    .execute();
  for (const { project_id: projectId, ...contact } of rows) byProject.get(projectId)?.push(contact);
  return byProject;
}
