// The "New project" form's body and messages against a real engine over HTTP: what
// the form sends is the documented create (service.md 4.1) and the engine takes it,
// with a new customer or an existing one; what the engine refuses comes back as a
// message beside the box it names.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../main/engine/testing/test-server.ts';
import { DEMO_USERS } from '../../main/engine/seed/demo-seed.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import type { ContactJson } from '../../shared/schemas/contact.ts';
import { boxErrorsOfResponse, createBodyOf, emptyNewProjectDraft, errorsBeforeSend, NEW_PROJECT_BOXES, type NewProjectDraft } from '../src/project/new-project.ts';

/** The create fields service.md 4.1 lists, and `contacts` (writable on every project): nothing else is sent. */
const DOCUMENTED_CREATE_FIELDS = new Set([
  'identifier', 'is_residential', 'lead_source', 'notes', 'lat', 'lon', 'address', 'locality', 'state', 'country_iso2', 'zip',
  'number_of_phases', 'roof_type', 'assigned_role', 'assigned_installer_role', 'assigned_site_inspector_role', 'contacts_new', 'contacts',
]);

function draftWith(patch: Partial<NewProjectDraft>): NewProjectDraft {
  return { ...emptyNewProjectDraft(), address: '7 Wattle Grove', ...patch };
}

describe('the New project form and the engine', () => {
  let server: TestServer;
  let token: string;
  const orgId = 1;
  before(async () => {
    server = await startTestServer();
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());

  const create = (draft: NewProjectDraft) => server.request('POST', apiPaths.projects(orgId), { token, body: createBodyOf(draft) });

  test('a project with a new customer is created as the form describes it', async () => {
    const roles = (await server.request('GET', apiPaths.roles(orgId), { token })).json as Array<{ url: string }>;
    const draft = draftWith({
      locality: 'Katoomba',
      state: 'NSW',
      zip: '2780',
      country_iso2: 'AU',
      is_residential: false,
      lead_source: 'Home show',
      roof_type_id: '14',
      assigned_role: roles[0]!.url,
      notes: 'Gate code 1234',
      lat: '-33.71',
      lon: '150.31',
      customer: { kind: 'new', contact: { first_name: ' Mira ', family_name: 'Okafor', email: 'mira.okafor@example.com', phone: '0400 000 111' } },
    });
    assert.deepEqual(errorsBeforeSend(draft), {});
    const body = createBodyOf(draft);
    assert.deepEqual(Object.keys(body).filter((field) => !DOCUMENTED_CREATE_FIELDS.has(field)), []);
    const created = await create(draft);
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const project = created.json;
    assert.equal(project.title, '7 Wattle Grove');
    assert.deepEqual(
      [project.locality, project.state, project.zip, project.country_iso2, project.is_residential, project.lead_source, project.notes, project.lat, project.lon],
      ['Katoomba', 'NSW', '2780', 'AU', false, 'Home show', 'Gate code 1234', -33.71, 150.31],
    );
    assert.match(String(project.roof_type), /\/api\/roof_types\/14\/$/);
    assert.equal(project.assigned_role, roles[0]!.url);
    assert.deepEqual(
      project.contacts_data.map((contact: ContactJson) => [contact.first_name, contact.family_name, contact.email, contact.phone]),
      [['Mira', 'Okafor', 'mira.okafor@example.com', '0400 000 111']],
    );
  });

  test('a project for an existing contact names her by her URL and makes no new contact', async () => {
    const found = (await server.request('GET', `${apiPaths.contacts(orgId)}?search=zara.wang`, { token })).json as ContactJson[];
    assert.equal(found.length, 1);
    const contactsBefore = ((await server.request('GET', `${apiPaths.contacts(orgId)}?limit=1000`, { token })).json as unknown[]).length;
    const draft = draftWith({ customer: { kind: 'existing', contact: found[0]! } });
    assert.deepEqual(createBodyOf(draft).contacts, [found[0]!.url]);
    assert.equal(createBodyOf(draft).contacts_new, undefined);
    const created = await create(draft);
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.deepEqual(created.json.contacts_data.map((contact: ContactJson) => contact.id), [found[0]!.id]);
    assert.equal(((await server.request('GET', `${apiPaths.contacts(orgId)}?limit=1000`, { token })).json as unknown[]).length, contactsBefore);
  });

  test('a latitude the engine cannot read comes back beside the Latitude box', async () => {
    const refused = await create(draftWith({ lat: 'north', customer: { kind: 'none' } }));
    assert.equal(refused.status, 400);
    const errors = boxErrorsOfResponse(refused.json, NEW_PROJECT_BOXES);
    assert.deepEqual(Object.keys(errors), ['lat']);
    assert.ok(errors.lat![0]!.length > 0);
  });

  test('a bad email is caught before sending, beside the Email box; the engine refuses it too', async () => {
    const draft = draftWith({ customer: { kind: 'new', contact: { first_name: 'Zed', family_name: '', email: 'zed@', phone: '' } } });
    assert.deepEqual(Object.keys(errorsBeforeSend(draft)), ['contact.email']);
    const refused = await create(draft);
    assert.equal(refused.status, 400);
    const errors = boxErrorsOfResponse(refused.json, NEW_PROJECT_BOXES);
    // Today the engine names only `contacts_new`; nested per contact, the message goes beside her box.
    assert.ok(errors.customer ?? errors['contact.email'], JSON.stringify(refused.json));
    assert.deepEqual(boxErrorsOfResponse({ contacts_new: [{ email: ['Enter a valid email address.'] }] }, NEW_PROJECT_BOXES), {
      'contact.email': ['Enter a valid email address.'],
    });
  });

  test('an address is needed, and an existing customer must be picked', () => {
    assert.deepEqual(Object.keys(errorsBeforeSend({ ...emptyNewProjectDraft(), customer: { kind: 'existing', contact: null } })), ['address', 'customer']);
    assert.deepEqual(Object.keys(errorsBeforeSend(draftWith({ customer: { kind: 'new', contact: { first_name: '', family_name: '', email: '', phone: '' } } }))), ['contact.first_name']);
    assert.deepEqual(errorsBeforeSend(draftWith({ customer: { kind: 'none' } })), {});
  });

  test('a message for a field the form has no box for, or for the whole request, is shown for the form', () => {
    assert.deepEqual(boxErrorsOfResponse({ detail: 'You do not have permission to perform this action.' }, NEW_PROJECT_BOXES), {
      form: ['You do not have permission to perform this action.'],
    });
    assert.deepEqual(boxErrorsOfResponse({ roof_type: ['Invalid hyperlink - Object does not exist.'], title: ['Too long.'] }, NEW_PROJECT_BOXES), {
      roof_type_id: ['Invalid hyperlink - Object does not exist.'],
      form: ['title: Too long.'],
    });
  });
});
