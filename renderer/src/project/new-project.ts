// A new project as the form holds it, the create body it becomes, and the
// messages each box shows: from the check before sending and from the engine's
// 400 answer. The create is the engine's documented POST, as integrations send it
// (service.md 4.1): `contacts_new` for a new customer, `contacts` with the
// existing contact's URL for one already in the org.
import { apiPaths } from '../../../shared/api-paths.ts';
import type { ContactJson } from '../../../shared/schemas/contact.ts';
import { contactWriteSchema } from '../../../shared/schemas/contact-write.ts';
import { projectFieldErrors } from '../../../shared/field-rules.ts';

/** The new customer's boxes: what `contacts_new` carries for her. */
export const NEW_CONTACT_FIELDS = [
  { field: 'first_name', label: 'First name' },
  { field: 'family_name', label: 'Family name' },
  { field: 'email', label: 'Email', type: 'email' },
  { field: 'phone', label: 'Phone', type: 'tel' },
] as const;

export type NewContactField = (typeof NEW_CONTACT_FIELDS)[number]['field'];

export type CustomerDraft =
  | { kind: 'none' }
  | { kind: 'new'; contact: Record<NewContactField, string> }
  | { kind: 'existing'; contact: ContactJson | null };

export interface NewProjectDraft {
  address: string;
  locality: string;
  state: string;
  zip: string;
  /** ISO2, or '' for none. */
  country_iso2: string;
  is_residential: boolean;
  lead_source: string;
  /** A roof type id of shared/roof-types.ts as text, or '' for none. */
  roof_type_id: string;
  /** The URL of one of the org's roles, or '' for nobody yet. */
  assigned_role: string;
  notes: string;
  /** As typed: blank for none. */
  lat: string;
  lon: string;
  customer: CustomerDraft;
}

/**
 * The key of each box's message: a project field's own name (`address`, `lat`),
 * `customer` for the customer part as a whole, and `contact.<field>` for a box of
 * the new customer. `form` is a message about the whole form.
 */
export type BoxErrors = Record<string, string[]>;

export function emptyNewContact(): Record<NewContactField, string> {
  return { first_name: '', family_name: '', email: '', phone: '' };
}

export function emptyNewProjectDraft(defaults: { country_iso2?: string } = {}): NewProjectDraft {
  return {
    address: '',
    locality: '',
    state: '',
    zip: '',
    country_iso2: defaults.country_iso2 ?? '',
    is_residential: true,
    lead_source: '',
    roof_type_id: '',
    assigned_role: '',
    notes: '',
    lat: '',
    lon: '',
    customer: { kind: 'new', contact: emptyNewContact() },
  };
}

function hasText(text: string): boolean {
  return text.trim() !== '';
}

/**
 * What must be mended before the form is sent. This is the one place the form
 * checks before sending: the field rules every client shares are meant to be
 * called from here. For now it checks what the form itself needs (an address, a
 * customer when one is asked for) and the new contact with the engine's own
 * contact schema; everything else is the engine's to refuse, and its 400 shows
 * beside the box it names (boxErrorsOfResponse).
 */
export function errorsBeforeSend(draft: NewProjectDraft): BoxErrors {
  // The engine's own rules (shared/field-rules.ts) on what would be sent: the same message at the box as its 400 would give.
  const { contacts_new: _newCustomer, contacts: _existingCustomer, ...projectFields } = createBodyOf(draft);
  const errors: BoxErrors = { ...projectFieldErrors(projectFields) };
  if (!hasText(draft.address)) errors.address = ['Enter the street address: the project is named after it.'];
  const { customer } = draft;
  if (customer.kind === 'existing' && customer.contact === null) {
    errors.customer = ['Find the customer by a word of her name, email or phone and pick her, or choose "New customer".'];
  }
  if (customer.kind === 'new') {
    const { contact } = customer;
    if (!NEW_CONTACT_FIELDS.some(({ field }) => hasText(contact[field]))) {
      errors['contact.first_name'] = ['Enter the customer’s name, or choose "Not yet".'];
    }
    const checked = contactWriteSchema.safeParse(trimmedContact(contact));
    if (!checked.success) {
      for (const issue of checked.error.issues) (errors[`contact.${String(issue.path[0])}`] ??= []).push(issue.message);
    }
  }
  return errors;
}

function trimmedContact(contact: Record<NewContactField, string>): Record<NewContactField, string> {
  return Object.fromEntries(Object.entries(contact).map(([field, value]) => [field, value.trim()])) as Record<NewContactField, string>;
}

/** A number when the text is one; otherwise the text as typed, which the engine refuses with its own message. */
function coordinateOf(text: string): number | string {
  const trimmed = text.trim();
  const number = Number(trimmed);
  return Number.isFinite(number) ? number : trimmed;
}

/** The body of `POST /api/orgs/:org/projects/`, with only the create fields service.md lists. */
export function createBodyOf(draft: NewProjectDraft): Record<string, unknown> {
  const body: Record<string, unknown> = {
    address: draft.address.trim(),
    locality: draft.locality.trim(),
    state: draft.state.trim(),
    zip: draft.zip.trim(),
    is_residential: draft.is_residential,
    lead_source: draft.lead_source.trim(),
    notes: draft.notes,
  };
  if (draft.country_iso2) body.country_iso2 = draft.country_iso2;
  if (draft.roof_type_id) body.roof_type = apiPaths.roofType(Number(draft.roof_type_id));
  if (draft.assigned_role) body.assigned_role = draft.assigned_role;
  if (hasText(draft.lat)) body.lat = coordinateOf(draft.lat);
  if (hasText(draft.lon)) body.lon = coordinateOf(draft.lon);
  const { customer } = draft;
  if (customer.kind === 'new') body.contacts_new = [trimmedContact(customer.contact)];
  if (customer.kind === 'existing' && customer.contact) body.contacts = [customer.contact.url];
  return body;
}

/** The create body's keys that are the form's own boxes under another name. */
const BOX_OF_FIELD: Record<string, string> = { roof_type: 'roof_type_id', contacts_new: 'customer', contacts: 'customer' };

function messagesOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap((item) => (typeof item === 'string' ? [item] : []));
  return [];
}

/**
 * The engine's 400 body, DRF's field-error shape, as messages by box. A field's
 * list of strings goes to its box; `contacts_new` may also come nested, one object
 * of field errors per contact (`{"contacts_new": [{"email": ["..."]}]}`), whose
 * messages go beside the new customer's boxes. A `detail` or `non_field_errors`
 * goes to the form as a whole, as does a field the form has no box for.
 */
export function boxErrorsOfResponse(body: unknown, boxes: ReadonlySet<string>): BoxErrors {
  const errors: BoxErrors = {};
  const add = (box: string, messages: string[]) => {
    if (messages.length > 0) (errors[box] ??= []).push(...messages);
  };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return errors;
  for (const [field, value] of Object.entries(body as Record<string, unknown>)) {
    if (field === 'detail' || field === 'non_field_errors') {
      add('form', messagesOf(value));
      continue;
    }
    if (field === 'contacts_new' && Array.isArray(value)) {
      for (const item of value) {
        if (typeof item === 'object' && item !== null) {
          for (const [contactField, messages] of Object.entries(item as Record<string, unknown>)) {
            const box = `contact.${contactField}`;
            add(boxes.has(box) ? box : 'customer', messagesOf(messages));
          }
        }
      }
    }
    const box = BOX_OF_FIELD[field] ?? field;
    const messages = messagesOf(value);
    add(boxes.has(box) ? box : 'form', boxes.has(box) ? messages : messages.map((message) => `${field}: ${message}`));
  }
  return errors;
}

/** Every key a box of the form answers to: what boxErrorsOfResponse may place a message beside. */
export const NEW_PROJECT_BOXES: ReadonlySet<string> = new Set([
  'address',
  'locality',
  'state',
  'zip',
  'country_iso2',
  'is_residential',
  'lead_source',
  'roof_type_id',
  'assigned_role',
  'notes',
  'lat',
  'lon',
  'customer',
  ...NEW_CONTACT_FIELDS.map(({ field }) => `contact.${field}`),
]);
