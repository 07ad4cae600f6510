// Contacts and roles on their own endpoints (compatibility.md "Projects").
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

describe('contacts', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer();
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());

  test('create (gender as a string), read, list, update, delete', async () => {
    const created = await server.request('POST', '/api/orgs/1/contacts/', {
      token,
      body: { first_name: 'Grace', family_name: 'Hopper', email: 'grace@example.com', gender: '1', date_of_birth: '1906-12-09', unknown: 'ignored' },
    });
    assert.equal(created.status, 201);
    assert.equal(created.json.gender, 1);
    assert.equal(created.json.display, 'Grace Hopper');
    assert.equal(created.json.org_id, 1);
    assert.equal(created.json.url, `${server.baseUrl}${apiPaths.contact(1, created.json.id)}`);
    assert.equal(created.json.unknown, undefined);

    const fetched = await server.request('GET', apiPaths.contact(1, created.json.id), { token });
    assert.deepEqual(fetched.json, created.json);
    const listed = await server.request('GET', '/api/orgs/1/contacts/?search=hopper', { token });
    assert.deepEqual(listed.json.map((contact: { id: number }) => contact.id), [created.json.id]);
    // Every word, each in any field and in any order (issue 27): a word of the email, then the family name.
    const byWords = await server.request('GET', `${apiPaths.contacts(1)}?search=${encodeURIComponent('grace@ Hopper')}`, { token });
    assert.deepEqual(byWords.json.map((contact: { id: number }) => contact.id), [created.json.id]);
    const notAll = await server.request('GET', `${apiPaths.contacts(1)}?search=${encodeURIComponent('Hopper Lovelace')}`, { token });
    assert.deepEqual(notAll.json, [], 'a word found nowhere leaves nobody');

    const patched = await server.request('PATCH', apiPaths.contact(1, created.json.id).replace(/\/$/, ''), { token, body: { phone: '0400 111 222' } });
    assert.equal(patched.status, 200);
    assert.equal(patched.json.phone, '0400 111 222');
    assert.equal(patched.json.email, 'grace@example.com');

    assert.equal((await server.request('DELETE', apiPaths.contact(1, created.json.id), { token })).status, 204);
    assert.equal((await server.request('GET', apiPaths.contact(1, created.json.id), { token })).status, 404);
  });

  test('bad contact data is 400 per field', async () => {
    const response = await server.request('POST', '/api/orgs/1/contacts/', { token, body: { email: 'not-an-email', gender: 7, date_of_birth: '12/10/1990' } });
    assert.equal(response.status, 400);
    assert.ok(response.json.email && response.json.gender && response.json.date_of_birth, response.text);
  });

  test('deleting a contact detaches it from projects', async () => {
    const project = (await server.request('GET', '/api/orgs/1/projects/11/', { token })).json;
    const contactId = project.contacts_data[0].id;
    assert.equal((await server.request('DELETE', apiPaths.contact(1, contactId), { token })).status, 204);
    const after = (await server.request('GET', '/api/orgs/1/projects/11/', { token })).json;
    assert.ok(!after.contacts_data.some((contact: { id: number }) => contact.id === contactId));
  });

  test('the activity log records a contact taken off a project as it records one added', async () => {
    const path = apiPaths.project(1, 12);
    const project = (await server.request('GET', path, { token })).json;
    const added = await server.request('PATCH', path, { token, body: { contacts_new: [{ first_name: 'Ada', family_name: 'Lovelace' }] } });
    assert.equal(added.status, 200, added.text);
    const ada = added.json.contacts_data.find((contact: { display: string }) => contact.display === 'Ada Lovelace');
    assert.ok(ada, added.text);
    const removed = await server.request('PATCH', path, { token, body: { contacts: project.contacts } });
    assert.equal(removed.status, 200, removed.text);
    assert.ok(!removed.json.contacts_data.some((contact: { id: number }) => contact.id === ada.id));

    const events = (await server.request('GET', `${apiPaths.events(1)}?project=12&limit=100`, { token })).json as { event_type: string; title: string }[];
    const titles = events.filter((event) => event.event_type.startsWith('contact_')).map((event) => `${event.event_type}: ${event.title}`);
    assert.ok(titles.includes('contact_added: Contact added: Ada Lovelace'), titles.join('\n'));
    assert.ok(titles.includes('contact_removed: Contact removed: Ada Lovelace'), titles.join('\n'));
    // The contact itself stays in the org: only its place on the project went.
    assert.equal((await server.request('GET', apiPaths.contact(1, ada.id), { token })).status, 200);
  });

  test('another org’s contact is 403 for its org path and 404 when named under your own', async () => {
    const basicToken = await server.tokenFor(DEMO_USERS.basicAdmin);
    const basicContacts = await server.request('GET', '/api/orgs/2/contacts/', { token: basicToken });
    const foreign = basicContacts.json[0];
    assert.equal((await server.request('GET', apiPaths.contact(2, foreign.id), { token })).status, 403);
    assert.equal((await server.request('GET', apiPaths.contact(1, foreign.id), { token })).status, 404);
  });
});

describe('roles', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('list and detail carry the role record shape', async () => {
    const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const roles = await server.request('GET', '/api/orgs/1/roles/', { token });
    assert.equal(roles.status, 200);
    assert.ok(roles.json.length >= 6);
    const role = (await server.request('GET', apiPaths.role(1, roles.json[0].id), { token })).json;
    for (const field of ['id', 'email', 'user_email', 'first_name', 'family_name', 'job_title', 'accreditation', 'user_phone', 'display', 'phone', 'org_name',
      'is_admin', 'is_hidden', 'allow_email_notifications', 'has_logged_in', 'user_is_staff', 'user', 'org', 'url', 'portrait_image',
      'external_calendar_id', 'schedule_meeting_url', 'schedule_meeting_label', 'api_key_chat']) {
      assert.ok(field in role, field);
    }
    assert.equal(role.has_logged_in, true, 'the admin signed in above');
  });

  test('an admin may change any role; a member only their own', async () => {
    const adminToken = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const memberToken = await server.tokenFor(DEMO_USERS.sunriseMember);
    const memberRoleId = (await server.request('GET', '/api/orgs/1/', { token: memberToken })).json.role_id;
    const adminRoleId = (await server.request('GET', '/api/orgs/1/', { token: adminToken })).json.role_id;
    const own = await server.request('PATCH', apiPaths.role(1, memberRoleId), { token: memberToken, body: { job_title: 'Lead installer', is_hidden: 'false' } });
    assert.equal(own.status, 200);
    assert.equal(own.json.job_title, 'Lead installer');
    assert.equal((await server.request('PATCH', apiPaths.role(1, adminRoleId), { token: memberToken, body: { job_title: 'x' } })).status, 403);
    const byAdmin = await server.request('PATCH', apiPaths.role(1, memberRoleId), { token: adminToken, body: { accreditation: 'CEC A0000001' } });
    assert.equal(byAdmin.json.accreditation, 'CEC A0000001');
    // A project that holds the role shows the new data.
    const project = (await server.request('GET', '/api/orgs/1/projects/?limit=100', { token: memberToken })).json[0];
    const detail = (await server.request('GET', apiPaths.project(1, project.id), { token: memberToken })).json;
    const held = [detail.assigned_role_data, detail.assigned_installer_role_data].find((data) => data?.id === memberRoleId);
    assert.equal(held.accreditation, 'CEC A0000001');
  });
});
