// service.md 2.1 and 4.1: the project resource, its writes, and what hangs off it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { decodeDesign } from '../../../shared/design-codec.ts';
import { LIST_FIELDSET } from '../../../shared/project-fields.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null' | 'any';
const nullable = (type: JsonType): JsonType[] => [type, 'null'];

/** service.md 2.1, transcribed by hand so the test checks the engine against the document, not against itself. */
const DETAIL_TYPES: Record<string, JsonType[]> = {
  id: ['integer'], url: ['string'], identifier: ['string'], title: ['string'], org_id: ['integer'], org: ['string'], org_name: ['string'],
  address: ['string'], locality: ['string'], county: nullable('string'), state: ['string'], zip: ['string'], country: nullable('string'),
  country_iso2: ['string'], country_name: ['string'], lat: nullable('number'), lon: nullable('number'), timezone_offset: ['number'],
  business_name: nullable('string'), business_identifier: ['string'], parcel_identifier: ['string'], meter_identifier: ['string'],
  is_residential: ['boolean'], roof_type: nullable('string'), number_of_phases: nullable('integer'), number_of_wires: nullable('integer'),
  number_of_storeys: nullable('integer'), wind_region: ['any'], has_cellular_coverage: ['integer'],
  assigned_role: nullable('string'), assigned_installer_role: nullable('string'), assigned_site_inspector_role: nullable('string'),
  assigned_designer_role: nullable('string'), assigned_salesperson_role: nullable('string'),
  assigned_role_data: nullable('object'), assigned_installer_role_data: nullable('object'), assigned_site_inspector_role_data: nullable('object'),
  assigned_designer_role_data: nullable('object'), assigned_salesperson_role_data: nullable('object'),
  assigned_role_id: nullable('integer'), assigned_role_name: nullable('string'), assigned_role_email: nullable('string'), assigned_role_phone: nullable('string'),
  assigned_designer_role_id: nullable('integer'), assigned_designer_role_name: nullable('string'), assigned_designer_role_email: nullable('string'), assigned_designer_role_phone: nullable('string'),
  assigned_salesperson_role_id: nullable('integer'), assigned_salesperson_role_name: nullable('string'), assigned_salesperson_role_email: nullable('string'), assigned_salesperson_role_phone: nullable('string'),
  assigned_role_accreditation: ['string'],
  contacts: ['array'], contacts_data: ['array'], private_files: ['array'], private_files_data: ['array'],
  workflow: ['object'], active_stage_id: ['integer'], workflows: ['array'], stage: ['integer'], stage_warning: ['string'],
  created_date: ['string'], modified_date: ['string'], contract_date: nullable('string'), installation_date: nullable('string'), sold_date: nullable('string'),
  valid_until_date: nullable('string'), project_sold: ['any'], project_installed: ['any'], system_sold: ['any'], system_installed: ['any'], payment_option_sold: ['any'],
  contract: ['any'], is_pricing_locked: ['boolean'], is_lite: ['boolean'], simulate_first_year_only: ['boolean'], auto_apply_max_simulate_years: ['boolean'],
  allow_email_notifications: ['boolean'], priority: ['integer'], stars: ['array'], shared_with: ['array'], tags: ['array'], testimonials: ['array'],
  tags_data: ['array'], testimonials_data: ['array'], transactions_data: ['array'], years_to_simulate: ['integer'], lender_role_connection_status: ['string'],
  contract_template_mode: ['string'], marketplace_project_id: nullable('string'), esign_contract_envelope_id: nullable('string'), access: ['integer'],
  docusign_contract_envelope_id: nullable('string'), greenlancer_project_id: nullable('string'), brighte_role_connection_status: ['string'],
  language: nullable('string'), language_override: nullable('string'), last_calculation_error: ['any'],
  notes: ['string'], site_notes: ['string'], lead_source: ['string'], proposal_message: ['string'], proposal_content: ['string'], contract_terms: ['string'],
  serial_numbers_panels: ['string'], serial_numbers_inverters: ['string'], serial_numbers_batteries: ['string'],
  custom_project_info_1: ['string'], custom_project_info_2: ['string'], custom_project_info_3: ['string'], custom_project_info_4: ['string'], custom_project_info_5: ['string'],
  custom_data: nullable('object'), events: ['array'], events_data: ['array'], actions: ['array'], available_customer_actions: ['array'], systems: ['array'],
  configuration: ['any'], configuration_override: ['any'], costing: ['any'], costing_override: ['any'], customer_proposal_data: nullable('object'), proposal_template: ['any'],
  proposal_template_settings: ['any'], premium_imagery_activations: ['array'], activated_premium_imagery_wallet_product_ids: ['array'], share_link: ['string'],
  usage: ['any'], usage_annual_or_guess: ['number'], utility_tariff_current: nullable('string'), utility_tariff_proposed: nullable('string'),
  utility_tariff_current_data: nullable('object'), utility_tariff_proposed_data: nullable('object'), utility_tariff_current_custom: nullable('string'),
  utility_tariff_proposed_custom: nullable('string'), utility_tariff_current_guess: ['object'], utility_tariff_or_guess: ['object'],
  utility_tariff_proposed_or_guess: ['object'], temperature_min_max: ['array'], temperature_min_override: nullable('number'), temperature_max_override: nullable('number'),
  federal_income_tax_rate_percentage: nullable('number'), state_income_tax_rate_percentage: nullable('number'), power_factor: nullable('number'),
  design: nullable('string'),
};

function typeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}
function assertType(field: string, value: unknown, allowed: JsonType[]) {
  if (allowed.includes('any')) return;
  const actual = typeOf(value);
  const ok = allowed.includes(actual) || (actual === 'integer' && allowed.includes('number'));
  assert.ok(ok, `${field}: expected ${allowed.join('|')}, got ${actual} (${JSON.stringify(value)?.slice(0, 80)})`);
}

describe('projects', () => {
  let server: TestServer;
  let token: string;
  const projectsPath = '/api/orgs/1/projects/';
  before(async () => {
    server = await startTestServer();
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());

  test('the detail carries every field of service.md 2.1 with its documented type', async () => {
    const response = await server.request('GET', `${projectsPath}1/`, { token });
    assert.equal(response.status, 200);
    for (const [field, allowed] of Object.entries(DETAIL_TYPES)) {
      assert.ok(field in response.json, `missing ${field}`);
      assertType(field, response.json[field], allowed);
    }
    const role = response.json.assigned_role_data;
    for (const field of ['id', 'email', 'user_email', 'first_name', 'family_name', 'display', 'org_name', 'url', 'org', 'is_admin', 'api_key_chat']) {
      assert.ok(field in role, `role field ${field}`);
    }
    assert.equal(role.api_key_chat, '', 'never a secret');
    assert.equal(response.json.url, `${server.baseUrl}${apiPaths.project(1, 1)}`);
    assert.match(response.json.share_link, /\?token=[\w-]+$/);
  });

  test('the design decodes back to JSON with facets and systems', async () => {
    const response = await server.request('GET', `${projectsPath}1/`, { token });
    const design = decodeDesign<{ site: { autoFacetsGeoJson: { features: unknown[] } }; systems: Array<{ uuid: string }> }>(response.json.design);
    assert.ok(design.site.autoFacetsGeoJson.features.length > 0);
    assert.ok(design.systems.length > 0);
    assert.deepEqual(response.json.systems.map((system: { uuid: string }) => system.uuid), design.systems.map((system) => system.uuid));
  });

  test('the list carries exactly the list fieldset; studio more; neither the design', async () => {
    const list = await server.request('GET', `${projectsPath}?limit=5`, { token });
    for (const item of list.json) assert.deepEqual(Object.keys(item).sort(), [...LIST_FIELDSET].sort());
    const explicit = await server.request('GET', `${projectsPath}?limit=5&fieldset=list`, { token });
    assert.deepEqual(explicit.json, list.json);
    const studio = await server.request('GET', `${projectsPath}?limit=5&fieldset=studio`, { token });
    for (const item of studio.json) {
      for (const field of LIST_FIELDSET) assert.ok(field in item);
      assert.ok('identifier' in item && 'lat' in item && 'usage' in item);
      assert.equal(item.design, undefined);
    }
  });

  test('every field a list or studio row shows is the value the detail of its project shows', async () => {
    // Rows load only the related records their fieldset shows; this holds them to the detail's values.
    for (const fieldset of ['list', 'studio']) {
      const rows = await server.request('GET', `${projectsPath}?limit=20&ordering=id&fieldset=${fieldset}`, { token });
      assert.equal(rows.json.length, 20);
      for (const row of rows.json) {
        const detail = await server.request('GET', `${projectsPath}${row.id}/`, { token });
        for (const [field, value] of Object.entries(row)) assert.deepEqual(value, detail.json[field], `${fieldset} row ${row.id}: ${field}`);
      }
    }
  });

  test('create accepts the service.md example body with numbers as strings, and answers 201 with the whole project', async () => {
    const roles = await server.request('GET', '/api/orgs/1/roles/', { token });
    const installer = roles.json.find((role: { job_title: string }) => role.job_title === 'Installer');
    const response = await server.request('POST', projectsPath, {
      token,
      body: {
        identifier: 'CRM-0042',
        is_residential: '1',
        lead_source: 'Website',
        notes: 'Customer prefers mornings',
        lat: '-33.8688',
        lon: '151.2093',
        address: '1 Test Street',
        locality: 'Sydney',
        state: 'NSW',
        country_iso2: 'au',
        zip: '2000',
        number_of_phases: '1',
        roof_type: `${server.baseUrl}/api/roof_types/19/`,
        assigned_role: apiPaths.role(1, installer.id),
        assigned_installer_role: installer.url,
        contacts_new: [{ first_name: 'Ada', family_name: 'Byron', email: 'ada@example.com', phone: '0400 000 000', date_of_birth: '1990-12-10', gender: '1' }],
        password_hash: 'ignored', id: 999, org_id: 2, stage: 4, // read-only and unknown keys are ignored
      },
    });
    assert.equal(response.status, 201, response.text);
    const project = response.json;
    assert.notEqual(project.id, 999);
    assert.equal(project.org_id, 1);
    assert.equal(project.lat, -33.8688);
    assert.equal(project.lon, 151.2093);
    assert.equal(project.is_residential, true);
    assert.equal(project.number_of_phases, 1);
    assert.equal(project.country_iso2, 'AU');
    assert.equal(project.country_name, 'Australia');
    assert.equal(project.title, '1 Test Street', 'an untitled project is named by its address');
    assert.equal(project.roof_type, `${server.baseUrl}/api/roof_types/19/`);
    assert.equal(project.assigned_role, installer.url);
    assert.equal(project.assigned_role_data.id, installer.id);
    assert.equal(project.assigned_role_name, `${installer.first_name} ${installer.family_name}`);
    assert.equal(project.assigned_installer_role_data.id, installer.id);
    assert.equal(project.contacts_data.length, 1);
    assert.equal(project.contacts_data[0].gender, 1);
    assert.equal(project.contacts_data[0].email, 'ada@example.com');
    assert.equal(project.contacts[0], project.contacts_data[0].url);
    assert.equal(project.stage, 0);
    assert.equal(typeof project.workflow.active_stage_id, 'number');
    assert.equal((await server.request('GET', `${projectsPath}${project.id}/`, { token })).json.identifier, 'CRM-0042');
  });

  test('wrong types are 400 with DRF field errors, naming each field', async () => {
    const response = await server.request('PATCH', `${projectsPath}2/`, {
      token,
      body: { lat: 'north', is_residential: 'maybe', number_of_phases: 1.5, installation_date: '2026-13-45', stars: 'x', title: null },
    });
    assert.equal(response.status, 400);
    for (const field of ['lat', 'is_residential', 'number_of_phases', 'installation_date', 'stars', 'title']) {
      assert.ok(Array.isArray(response.json[field]) && typeof response.json[field][0] === 'string', `${field}: ${response.text}`);
    }
    assert.equal(response.json.title[0], 'This field may not be null.');
    const unchanged = await server.request('GET', `${projectsPath}2/`, { token });
    assert.notEqual(unchanged.json.lat, 'north');
  });

  test('references to unknown or foreign records are 400', async () => {
    const basicToken = await server.tokenFor(DEMO_USERS.basicAdmin);
    const basicRoles = await server.request('GET', '/api/orgs/2/roles/', { token: basicToken });
    for (const body of [
      { assigned_role: '/api/orgs/1/roles/999999/' },
      { assigned_role: basicRoles.json[0].url },
      { assigned_role: 'not a url' },
      { roof_type: '/api/roof_types/99/' },
      { contacts: ['/api/orgs/1/contacts/999999/'] },
      { contacts: [`/api/orgs/1/projects/1/`] },
    ]) {
      const response = await server.request('PATCH', `${projectsPath}2/`, { token, body });
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.ok(response.json[Object.keys(body)[0]!], response.text);
    }
  });

  test('contacts replaces the attached set; contacts_new adds; contacts_data follows', async () => {
    const before = (await server.request('GET', `${projectsPath}3/`, { token })).json;
    const other = (await server.request('GET', `${projectsPath}4/`, { token })).json;
    const replaced = await server.request('PATCH', `${projectsPath}3/`, { token, body: { contacts: [other.contacts[0]] } });
    assert.equal(replaced.status, 200);
    assert.deepEqual(replaced.json.contacts, [other.contacts[0]]);
    assert.deepEqual(replaced.json.contacts_data.map((contact: { id: number }) => contact.id), [other.contacts_data[0].id]);
    const added = await server.request('PATCH', `${projectsPath}3/`, { token, body: { contacts_new: [{ first_name: 'New', family_name: 'Person' }] } });
    assert.equal(added.json.contacts.length, 2);
    assert.equal(added.json.contacts_data[1].first_name, 'New');
    const cleared = await server.request('PATCH', `${projectsPath}3/`, { token, body: { contacts: [] } });
    assert.deepEqual(cleared.json.contacts, []);
    // The contacts themselves are not deleted by detaching them.
    assert.equal((await server.request('GET', apiPaths.contact(1, before.contacts_data[0].id), { token })).status, 200);
  });

  test('replacing the assigned role by URL, and clearing it with null', async () => {
    const roles = (await server.request('GET', '/api/orgs/1/roles/', { token })).json;
    const designer = roles.find((role: { job_title: string }) => role.job_title === 'Solar designer');
    const changed = await server.request('PATCH', `${projectsPath}5/`, { token, body: { assigned_role: designer.url } });
    assert.equal(changed.json.assigned_role_id, designer.id);
    assert.equal(changed.json.assigned_role_email, designer.email || designer.user_email);
    const cleared = await server.request('PATCH', `${projectsPath}5/`, { token, body: { assigned_role: null } });
    assert.equal(cleared.json.assigned_role, null);
    assert.equal(cleared.json.assigned_role_data, null);
    assert.equal(cleared.json.assigned_role_id, null);
  });

  test('the stage changes through workflow.active_stage_id; stage follows the milestone; bad stages are 400', async () => {
    const workflows = (await server.request('GET', '/api/orgs/1/workflows/', { token })).json;
    assert.equal(workflows.length, 1);
    const stages = workflows[0].workflow_stages as Array<{ id: number; milestone: number; title: string }>;
    assert.ok(stages.every((stage) => typeof stage.id === 'number' && typeof stage.title === 'string' && stage.milestone >= 0 && stage.milestone <= 4));
    const installed = stages.find((stage) => stage.milestone === 3)!;
    const body = { workflow: { workflow_id: workflows[0].id, active_stage_id: installed.id }, active_stage_id: installed.id };
    const changed = await server.request('PATCH', `${projectsPath}6/`, { token, body });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.json.workflow.active_stage_id, installed.id);
    assert.equal(changed.json.active_stage_id, installed.id);
    assert.equal(changed.json.stage, 3);
    const topLevel = await server.request('PATCH', `${projectsPath}6/`, { token, body: { active_stage_id: stages[0]!.id } });
    assert.equal(topLevel.json.stage, stages[0]!.milestone);

    const unknown = await server.request('PATCH', `${projectsPath}6/`, { token, body: { active_stage_id: 999999 } });
    assert.equal(unknown.status, 400);
    const basicToken = await server.tokenFor(DEMO_USERS.basicAdmin);
    const basicWorkflow = (await server.request('GET', '/api/orgs/2/workflows/', { token: basicToken })).json[0];
    const foreignStage = await server.request('PATCH', `${projectsPath}6/`, { token, body: { workflow: { workflow_id: workflows[0].id, active_stage_id: basicWorkflow.workflow_stages[0].id } } });
    assert.equal(foreignStage.status, 400);
    const foreignWorkflow = await server.request('PATCH', `${projectsPath}6/`, { token, body: { workflow: { workflow_id: basicWorkflow.id, active_stage_id: basicWorkflow.workflow_stages[0].id } } });
    assert.equal(foreignWorkflow.status, 400);
    assert.equal((await server.request('GET', `${projectsPath}6/`, { token })).json.active_stage_id, stages[0]!.id);
  });

  test('every usage pair of service.md 4.1 is accepted and derives usage_annual_or_guess', async () => {
    const cases: Array<[string, unknown, number]> = [
      ['kwh_annual', 7300, 7300],
      ['kwh_monthly', Array(12).fill(500), 6000],
      ['kwh_every_second_month', Array(6).fill(1000), 6000],
      ['kwh_quarterly', [1500, 1500, 1500, 1500], 6000],
      ['kwh_daily_per_month', Array(12).fill(10), 3650],
      ['estimate', 'High', 10000],
    ];
    // A project with no tariff turns bills into kWh at the assumed 0.25 a kWh.
    const created = await server.request('POST', projectsPath, { token, body: { title: 'No tariff', address: '1 Usage St' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.utility_tariff_current_data, null);
    cases.push(['bill_annual', 2000, 8000], ['bill_monthly', Array(12).fill(100), 4800], ['bill_every_second_month', Array(6).fill(200), 4800], ['bill_quarterly', [300, 300, 300, 300], 4800]);
    for (const [source, values, annual] of cases) {
      const response = await server.request('PATCH', `${projectsPath}${created.json.id}/`, { token, body: { usage: { usage_data_source: source, values } } });
      assert.equal(response.status, 200, `${source}: ${response.text}`);
      assert.deepEqual(response.json.usage, { usage_data_source: source, values });
      assert.equal(response.json.usage_annual_or_guess, annual, source);
    }
  });

  test('bills become kWh with the project’s tariff: its fixed charges off, the rest at its rate', async () => {
    const tariff = (await server.request('GET', `${projectsPath}7/`, { token })).json.utility_tariff_current_data;
    assert.ok(tariff && tariff.energy_rate_per_kwh > 0, 'demo project 7 has a tariff');
    const { energy_rate_per_kwh: rate, fixed_charge_per_month: fixed } = tariff as { energy_rate_per_kwh: number; fixed_charge_per_month: number };
    const bills: Array<[string, unknown, number]> = [
      ['bill_annual', 3000, (3000 - 12 * fixed) / rate],
      ['bill_monthly', Array(12).fill(250), (12 * (250 - fixed)) / rate],
      ['bill_quarterly', [750, 750, 750, 750], (4 * (750 - 3 * fixed)) / rate],
    ];
    for (const [source, values, annual] of bills) {
      const response = await server.request('PATCH', `${projectsPath}7/`, { token, body: { usage: { usage_data_source: source, values } } });
      assert.equal(response.status, 200, `${source}: ${response.text}`);
      assert.equal(response.json.usage_annual_or_guess, Math.round(annual), source);
    }
  });

  test('a wrong usage source, length or type is 400 naming usage', async () => {
    for (const usage of [
      { usage_data_source: 'kwh_weekly', values: 5 },
      { usage_data_source: 'kwh_monthly', values: Array(11).fill(500) },
      { usage_data_source: 'kwh_quarterly', values: ['1', '2', '3', '4'] },
      { usage_data_source: 'kwh_annual', values: 12.5 },
      { usage_data_source: 'kwh_annual', values: -1 },
      { usage_data_source: 'estimate', values: 'Huge' },
      { values: 100 },
      'kwh_annual',
    ]) {
      const response = await server.request('PATCH', `${projectsPath}7/`, { token, body: { usage } });
      assert.equal(response.status, 400, JSON.stringify(usage));
      assert.ok(Array.isArray(response.json.usage), response.text);
    }
  });

  test('PUT updates like PATCH; the response carries the fields service.md names', async () => {
    const response = await server.request('PUT', `${projectsPath}8/`, { token, body: { title: 'Put title', simulate_first_year_only: 'true', custom_data: { crm: 'abc' } } });
    assert.equal(response.status, 200);
    for (const field of ['id', 'identifier', 'org_id', 'org', 'simulate_first_year_only', 'url', 'customer_proposal_data', 'workflow', 'custom_data']) {
      assert.ok(field in response.json, field);
    }
    assert.equal(response.json.title, 'Put title');
    assert.equal(response.json.simulate_first_year_only, true);
    assert.deepEqual(response.json.custom_data, { crm: 'abc' });
  });

  test('writes bump modified_date and keep other fields', async () => {
    const before = (await server.request('GET', `${projectsPath}9/`, { token })).json;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const after = (await server.request('PATCH', `${projectsPath}9/`, { token, body: { site_notes: 'Dog on site' } })).json;
    assert.ok(after.modified_date > before.modified_date);
    assert.equal(after.created_date, before.created_date);
    assert.equal(after.notes, before.notes);
    assert.equal(after.address, before.address);
    assert.deepEqual(after.contacts, before.contacts);
  });

  test('search matches title, address, identifier and contacts; % and _ are literal', async () => {
    const project = (await server.request('GET', `${projectsPath}10/`, { token })).json;
    const byAddress = await server.request('GET', `${projectsPath}?search=${encodeURIComponent(project.address.slice(0, 8))}&limit=100`, { token });
    assert.ok(byAddress.json.some((item: { id: number }) => item.id === 10));
    const contactName = project.contacts_data[0].family_name;
    const byContact = await server.request('GET', `${projectsPath}?search=${encodeURIComponent(contactName.toUpperCase())}&limit=100`, { token });
    assert.ok(byContact.json.some((item: { id: number }) => item.id === 10));
    const wildcard = await server.request('GET', `${projectsPath}?search=${encodeURIComponent('%')}&limit=100`, { token });
    assert.equal(wildcard.status, 200);
    assert.deepEqual(wildcard.json, []);
  });

  test('DELETE answers 204, the project is gone, its contact links with it', async () => {
    const created = (await server.request('POST', projectsPath, { token, body: { title: 'To delete', contacts_new: [{ first_name: 'Gone' }] } })).json;
    const deleted = await server.request('DELETE', `${projectsPath}${created.id}/`, { token });
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    assert.equal((await server.request('GET', `${projectsPath}${created.id}/`, { token })).status, 404);
    assert.equal((await server.request('DELETE', `${projectsPath}${created.id}/`, { token })).status, 404);
    const links = await server.engine.context.db.selectFrom('project_contacts').selectAll().where('project_id', '=', created.id).execute();
    assert.deepEqual(links, []);
  });
});
