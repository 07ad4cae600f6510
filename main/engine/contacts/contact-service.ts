// Writing contacts. Every write is one writeTracked() transaction; a contact's
// change also changes the contacts_data of each project it is attached to, so
// those projects are tracked too. Access (contact-access.ts) and the client's
// precondition (If-Match) are the routes' to read; the check runs here, inside
// the write's transaction.
import type { Transaction } from 'kysely';
import type { Database, ContactRow } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import type { ContactWrite } from '../../../shared/schemas/contact-write.ts';
import { type ChangeTracker, writeTracked } from '../changes/tracked-write.ts';
import { actorScope } from '../changes/change-feed.ts';
import type { SnapshotSource } from '../changes/record-snapshots.ts';
import { checkPrecondition, type IfMatch, nextVersion } from '../http/preconditions.ts';
import { insertContact, serializeContactRecords } from './contacts.ts';

/** What change capture compares: the contact's API view. */
export const contactSnapshots: SnapshotSource = {
  model: 'contact',
  async read(trx, context, orgId, id) {
    const row = await trx.selectFrom('contacts').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
    // As Contact deliveries carry it: with the URLs of every project it is on (hosted-docs-facts.md 9).
    return row ? (await serializeContactRecords(context, trx, [row], null))[0]! : null;
  },
  projectOf: () => null, // a contact may be on many projects
};

async function trackContactAndItsProjects(trx: Transaction<Database>, track: ChangeTracker, contactId: number): Promise<void> {
  await track.contact(contactId);
  const links = await trx.selectFrom('project_contacts').select('project_id').where('contact_id', '=', contactId).execute();
  for (const { project_id: projectId } of links) await track.project(projectId);
}

export async function createContact(context: EngineContext, actor: Actor, input: ContactWrite): Promise<ContactRow> {
  return writeTracked(context, actorScope(actor), async (trx, track) => {
    const created = await insertContact(trx, context, actor, input);
    await track.contact(created.id, { created: true });
    return created;
  });
}

/** Sets the fields `input` carries; `ifMatch`: the client's precondition. */
export async function updateContact(context: EngineContext, actor: Actor, contact: ContactRow, input: ContactWrite, ifMatch: IfMatch | null): Promise<ContactRow> {
  const changes = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  return writeTracked(context, actorScope(actor), async (trx, track) => {
    const version = await checkPrecondition(trx, 'contacts', contact.id, ifMatch);
    await trackContactAndItsProjects(trx, track, contact.id);
    return trx
      .updateTable('contacts')
      .set({ ...changes, modified_date: nextVersion(context.clock, version) })
      .where('id', '=', contact.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/** Deletes the contact; the projects it was on lose it from their contacts. */
export async function deleteContact(context: EngineContext, actor: Actor, contact: ContactRow): Promise<void> {
  await writeTracked(context, actorScope(actor), async (trx, track) => {
    await trackContactAndItsProjects(trx, track, contact.id);
    await trx.deleteFrom('project_contacts').where('contact_id', '=', contact.id).execute();
    await trx.deleteFrom('contacts').where('id', '=', contact.id).execute();
  });
}
