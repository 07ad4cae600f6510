// The hosted service's field names and small shapes (facts section 15, hosted docs:
// Projects; Roles; Private Files; Webhooks Project), one test per documented
// behaviour, on a real engine over HTTP with the demo data. Nothing is faked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { withLastCharacterChanged } from '../testing/tamper.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo-seed.ts';
import { createUser } from '../auth/accounts.ts';
import { parseAttributes } from '../projects/project-columns.ts';
import { apiPaths, parseUserReference } from '../../../shared/api-paths.ts';
import { HOSTED_FIELD_NAMES } from '../../../shared/project-fields.ts';
import { parseCountryReference } from '../../../shared/countries.ts';
import { KNOWN_WEBHOOK_PATHS } from '../../../shared/webhook-fields.ts';

describe('hosted field names and shapes', () => {
  let server: TestServer;
  let admin: string;

  before(async () => {
    server = await startTestServer();
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());

  /** Stores values as a design import or a pull from the remote would: straight into the project's attributes. */
  async function storeAttributes(projectId: number, values: Record<string, unknown>): Promise<void> {
    const { db } = server.engine.context;
    const row = await db.selectFrom('projects').select('attributes').where('id', '=', projectId).executeTakeFirstOrThrow();
    await db.updateTable('projects').set({ attributes: JSON.stringify({ ...parseAttributes(row.attributes), ...values }) }).where('id', '=', projectId).execute();
  }

  test('a project carries docusign_contract_envelope_id, greenlancer_project_id and brighte_role_connection_status with the values of our names', async () => {
    const fresh = await server.request('GET', apiPaths.project(1, 3), { token: admin });
    assert.equal(fresh.json.docusign_contract_envelope_id, null);
    assert.equal(fresh.json.greenlancer_project_id, null);
    assert.equal(fresh.json.brighte_role_connection_status, 'connection_missing');
    await storeAttributes(3, { esign_contract_envelope_id: 'env-123', marketplace_project_id: 'gl-9', lender_role_connection_status: 'connected' });
    const stored = await server.request('GET', apiPaths.project(1, 3), { token: admin });
    for (const [hosted, ours] of Object.entries(HOSTED_FIELD_NAMES)) assert.equal(stored.json[hosted], stored.json[ours], hosted);
    assert.equal(stored.json.docusign_contract_envelope_id, 'env-123');
    assert.equal(stored.json.greenlancer_project_id, 'gl-9');
    assert.equal(stored.json.brighte_role_connection_status, 'connected');
  });

  test('both names are read-only: a write of either is ignored and the stored value stays', async () => {
    await storeAttributes(4, { esign_contract_envelope_id: 'env-kept' });
    const patched = await server.request('PATCH', apiPaths.project(1, 4), {
      token: admin,
      body: { docusign_contract_envelope_id: 'env-hosted', esign_contract_envelope_id: 'env-ours', greenlancer_project_id: 'x', notes: 'hosted names' },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.notes, 'hosted names', 'the rest of the write is applied');
    assert.equal(patched.json.docusign_contract_envelope_id, 'env-kept');
    assert.equal(patched.json.esign_contract_envelope_id, 'env-kept');
    assert.equal(patched.json.greenlancer_project_id, null);
  });

  test('role records carry google_calendar_id beside external_calendar_id, in the roles list and in assigned_*_role_data', async () => {
    const roles = await server.request('GET', apiPaths.roles(1), { token: admin });
    const roleId = roles.json[0].id as number;
    const patched = await server.request('PATCH', apiPaths.role(1, roleId), { token: admin, body: { external_calendar_id: 'cal-ours' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.google_calendar_id, 'cal-ours');
    const listed = (await server.request('GET', apiPaths.roles(1), { token: admin })).json.find((role: { id: number }) => role.id === roleId);
    assert.equal(listed.google_calendar_id, 'cal-ours');
    assert.equal(listed.external_calendar_id, 'cal-ours');
    const assigned = await server.request('PATCH', apiPaths.project(1, 6), { token: admin, body: { assigned_role: apiPaths.role(1, roleId) } });
    assert.equal(assigned.json.assigned_role_data.google_calendar_id, 'cal-ours');
  });

  test('a role write may name google_calendar_id; sent with external_calendar_id, google_calendar_id wins', async () => {
    const roleId = (await server.request('GET', apiPaths.roles(1), { token: admin })).json[0].id as number;
    const hosted = await server.request('PATCH', apiPaths.role(1, roleId), { token: admin, body: { google_calendar_id: 'cal-hosted' } });
    assert.equal(hosted.status, 200, hosted.text);
    assert.equal(hosted.json.external_calendar_id, 'cal-hosted');
    const both = await server.request('PATCH', apiPaths.role(1, roleId), { token: admin, body: { external_calendar_id: 'cal-a', google_calendar_id: 'cal-b' } });
    assert.equal(both.json.external_calendar_id, 'cal-b');
    assert.equal(both.json.google_calendar_id, 'cal-b');
    const cleared = await server.request('PATCH', apiPaths.role(1, roleId), { token: admin, body: { google_calendar_id: null } });
    assert.equal(cleared.json.external_calendar_id, null);
  });

  test('customer_proposal_data is five booleans derived from the project: contacts, contacts with a login, a design, a priced system, ready', async () => {
    const created = await server.request('POST', apiPaths.projects(1), { token: admin, body: { title: 'Proposal flags' } });
    assert.equal(created.status, 201, created.text);
    const id = created.json.id as number;
    const flags = async () => (await server.request('GET', apiPaths.project(1, id), { token: admin })).json.customer_proposal_data;
    assert.deepEqual(created.json.customer_proposal_data, {
      has_contacts_active: false, has_contacts_active_with_login: false, has_customer_view: false, has_customer_view_system: false, ready: false,
    });
    // A contact without an email cannot be sent the proposal; one with an email can.
    await server.request('PATCH', apiPaths.project(1, id), { token: admin, body: { contacts_new: [{ first_name: 'No Email' }] } });
    assert.equal((await flags()).has_contacts_active, false);
    await server.request('PATCH', apiPaths.project(1, id), { token: admin, body: { contacts_new: [{ first_name: 'Flag', email: 'flags@proposal.example' }] } });
    assert.deepEqual(await flags(), {
      has_contacts_active: true, has_contacts_active_with_login: false, has_customer_view: false, has_customer_view_system: false, ready: false,
    });
    // The contact's email gets a login.
    await createUser(server.engine.context.db, server.engine.context.clock, { email: 'flags@proposal.example', password: DEMO_PASSWORD });
    assert.equal((await flags()).has_contacts_active_with_login, true);
    // A design whose systems have no price yet: a view, no priced system.
    await storeAttributes(id, { systems: [{ uuid: 'a', price_including_tax: 0 }] });
    assert.deepEqual(await flags(), {
      has_contacts_active: true, has_contacts_active_with_login: true, has_customer_view: true, has_customer_view_system: false, ready: false,
    });
    await storeAttributes(id, { systems: [{ uuid: 'a', price_including_tax: 0 }, { uuid: 'b', price_including_tax: 15400 }] });
    assert.deepEqual(await flags(), {
      has_contacts_active: true, has_contacts_active_with_login: true, has_customer_view: true, has_customer_view_system: true, ready: true,
    });
    // The list fieldset carries the same object.
    const listed = await server.request('GET', `${apiPaths.projects(1)}?limit=1000`, { token: admin });
    assert.deepEqual(listed.json.find((project: { id: number }) => project.id === id).customer_proposal_data, await flags());
  });

  test("a private file's user is /api/global_users/<id>/, which resolves with the user", async () => {
    const files = await server.request('GET', `${apiPaths.privateFiles(1)}?limit=1`, { token: admin });
    const fileUser = files.json[0].user as string;
    assert.match(fileUser, /^http:\/\/127\.0\.0\.1:\d+\/api\/global_users\/\d+\/$/);
    const userId = parseUserReference(fileUser)!;
    const answer = await server.request('GET', new URL(fileUser).pathname, { token: admin });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.id, userId);
    assert.ok(answer.json.email.endsWith('.example'));
  });

  test('a user by /api/global_users/<id>/ or /auth/users/<id>/: the user themselves or an admin of one of their orgs; others 403, unknown 404', async () => {
    const member = await server.tokenFor(DEMO_USERS.sunriseMember);
    const basic = await server.tokenFor(DEMO_USERS.basicAdmin);
    const memberId = (await server.request('GET', apiPaths.fetchToken(), { token: member })).json.user.id as number;
    for (const path of [apiPaths.globalUser(memberId), apiPaths.user(memberId)]) {
      assert.equal((await server.request('GET', path, { token: member })).status, 200, `${path}: themselves`);
      assert.equal((await server.request('GET', path, { token: admin })).status, 200, `${path}: their org's admin`);
      assert.equal((await server.request('GET', path, { token: basic })).status, 403, `${path}: another org's admin`);
      assert.equal((await server.request('GET', path)).status, 401, `${path}: no token`);
    }
    assert.equal((await server.request('GET', apiPaths.globalUser(999999), { token: admin })).status, 404);
    // PATCH keeps its old path.
    assert.equal((await server.request('PATCH', apiPaths.user(memberId), { token: member, body: { is_machine_user: false } })).status, 200);
  });

  test('where a user URL is read, both shapes are accepted', () => {
    assert.equal(parseUserReference('https://api.example.com/api/global_users/42/'), 42);
    assert.equal(parseUserReference('/auth/users/42/'), 42);
    assert.equal(parseUserReference('/api/global_users/42'), 42);
    assert.equal(parseUserReference('/api/global_users/x/'), null);
  });

  test('a project country is /api/countries/<ISO 3166 numeric>/, which resolves; the ISO2 path still does; country_iso2 stays', async () => {
    const project = await server.request('GET', apiPaths.project(1, 1), { token: admin });
    assert.equal(project.json.country_iso2, 'AU');
    assert.equal(project.json.country, `${server.baseUrl}/api/countries/36/`);
    const numeric = await server.request('GET', new URL(project.json.country).pathname);
    assert.equal(numeric.status, 200, numeric.text);
    assert.deepEqual(numeric.json, { id: 36, iso2: 'AU', name: 'Australia', url: `${server.baseUrl}/api/countries/36/` });
    const byIso2 = await server.request('GET', '/api/countries/au/');
    assert.deepEqual(byIso2.json, numeric.json);
    assert.equal((await server.request('GET', '/api/countries/840/')).json.iso2, 'US');
    assert.equal((await server.request('GET', '/api/countries/999/')).status, 404);
    assert.equal((await server.request('GET', '/api/countries/1234/')).status, 404);
    // Two letters that name no country (user-assigned AA, "unknown" ZZ, the EU) are not countries either.
    for (const letters of ['AA', 'zz', 'EU']) assert.equal((await server.request('GET', apiPaths.country(letters))).status, 404, letters);
    assert.equal(parseCountryReference('https://api.example.com/api/countries/36/'), 'AU');
    assert.equal(parseCountryReference('/api/countries/GB/'), 'GB');
  });

  test('share_link is /share/<project id>/?token=..., which shows the project; the old /shared/projects/ path still works; a wrong token is 404', async () => {
    const project = await server.request('GET', apiPaths.project(1, 1), { token: admin });
    const link = new URL(project.json.share_link);
    assert.equal(link.pathname, '/share/1/');
    const token = link.searchParams.get('token')!;
    assert.ok(token.length >= 20);
    const page = await server.request('GET', `${link.pathname}${link.search}`);
    assert.equal(page.status, 200, page.text);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.ok(page.text.includes(project.json.title.replace(/&/g, '&amp;')), 'the page names the project');
    assert.equal((await server.request('GET', `/shared/projects/1/?token=${token}`)).status, 200);
    assert.equal((await server.request('GET', `/share/2/?token=${token}`)).status, 404, "another project's id");
    assert.equal((await server.request('GET', '/share/1/')).status, 404, 'no token');
    assert.equal((await server.request('GET', `/share/1/?token=${withLastCharacterChanged(token)}`)).status, 404);
    assert.equal((await server.request('GET', `/share/999999/?token=${token}`)).status, 404);
  });

  test('webhook payload and trigger fields may name the hosted field names, which the pickers offer', async () => {
    for (const field of [...Object.keys(HOSTED_FIELD_NAMES), 'customer_proposal_data']) {
      assert.ok(KNOWN_WEBHOOK_PATHS.project.includes(`project.${field}`), `project.${field} is a known path`);
    }
    const created = await server.request('POST', apiPaths.webhooks(1), {
      token: admin,
      body: {
        endpoint: 'https://hooks.example.invalid/hosted-names',
        enabled: false,
        debug: false,
        trigger_fields: ['project.docusign_contract_envelope_id', 'project.customer_proposal_data'],
        payload_fields: ['project.greenlancer_project_id', 'project.brighte_role_connection_status'],
      },
    });
    assert.equal(created.status, 201, created.text);
  });
});
