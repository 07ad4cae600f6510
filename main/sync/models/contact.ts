// Contacts: records of the org (docs/sync.md "Events and contacts"), every
// writable field merged one by one; a contact made offline goes up on its own or
// inside a new project's `contacts_new` (project.ts).
import type { Transaction } from 'kysely';
import type { Database } from '../../engine/store/tables.ts';
import { contactRowValues } from '../../engine/contacts/contacts.ts';
import type { ContactWrite } from '../../../shared/schemas/contact-write.ts';
import { sameJson } from '../../../shared/webhook-fields.ts';
import { MODEL_PATHS, type RecordView } from '../sync-models.ts';
import type { RemoteContact } from '../remote-records.ts';
import { ownOrgVerdict } from '../record-orgs.ts';
import { EPOCH } from '../replica-rows.ts';
import { DEFAULT_QUOTA, type SyncModel, everyField, valueAsTyped, viewFieldsBody } from './sync-model.ts';
import { allButId } from '../upsert-set.ts';

const CONTACT_FIELDS = [
  'first_name', 'family_name', 'email', 'phone', 'passport_number', 'licence_number',
  'custom_contact_info_1', 'custom_contact_info_2', 'identifier', 'type', 'date_of_birth', 'gender',
] as const;

export const contactView = (json: Record<string, unknown>): RecordView => Object.fromEntries(CONTACT_FIELDS.map((field) => [field, json[field] ?? null]));

export function contactRow(orgId: number, contact: RemoteContact) {
  // The remote checked its own gender values when it stored them; they are kept as it sent them.
  const values = { ...contact, gender: contact.gender as ContactWrite['gender'] };
  return { ...contactRowValues(orgId, values, contact.created_date ?? EPOCH, contact.modified_date ?? EPOCH), id: contact.id };
}

export async function upsertContact(trx: Transaction<Database>, orgId: number, contact: RemoteContact, keep: RecordView = {}): Promise<void> {
  const row = { ...contactRow(orgId, contact), ...keep };
  await trx.insertInto('contacts').values(row).onConflict((conflict) => conflict.column('id').doUpdateSet(allButId(row))).execute();
}

export const contactModel: SyncModel = {
  model: 'contact',
  path: MODEL_PATHS.contact,
  quota: DEFAULT_QUOTA,
  view: contactView,
  pushableFields: everyField,
  updateBody: async (_sync, json, fields) => viewFieldsBody(contactView(json), fields),
  createBody: async (_sync, _group, json) => contactView(json),
  async findLostCreate({ view, list }) {
    if (!view) return null;
    const recent = await list({ ordering: '-created_date', limit: 50 });
    return recent.find((contact) => sameJson(contactView(contact), view)) ?? null;
  },
  checkValue: valueAsTyped,
  async applyView(trx, id, view) {
    await trx.updateTable('contacts').set(view).where('id', '=', id).execute();
  },
  orgVerdict: async (sync, record) => ownOrgVerdict(sync, record),
  store: ({ trx, sync, keep }, record) => upsertContact(trx, sync.orgId, record as RemoteContact, keep),
  async remove(trx, id) {
    await trx.deleteFrom('project_contacts').where('contact_id', '=', id).execute();
    await trx.deleteFrom('contacts').where('id', '=', id).execute();
  },
};
