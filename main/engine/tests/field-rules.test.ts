// Issue 27, "Validation": the engine refuses what cannot be true (a latitude off the
// globe, an email that is not one, a date that is not a date, an unknown country or
// roof type, a count that is fractional or negative) with 400 in DRF's field-error
// shape, on project create/PATCH/PUT, contact create/PATCH/PUT and a project's
// contacts_new; and keeps accepting everything the hosted service accepts
// (compatibility.md: numbers as strings, is_residential "1", gender "2", null).
// The rules are shared/field-rules.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, UNTHROTTLED_RATES, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

type Json = Record<string, unknown>;

/** Project bodies that are refused, each with the one field named in the 400 and its message. */
const REFUSED_PROJECT_FIELDS: Array<[body: Json, field: string, message: string]> = [
  [{ lat: 134 }, 'lat', 'Latitude must be between -90 and 90.'],
  [{ lat: '-134.5' }, 'lat', 'Latitude must be between -90 and 90.'],
  [{ lat: -90.000001 }, 'lat', 'Latitude must be between -90 and 90.'],
  [{ lat: 'north' }, 'lat', 'Latitude must be a number, such as -33.86.'],
  [{ lon: 180.5 }, 'lon', 'Longitude must be between -180 and 180.'],
  [{ lon: '-181' }, 'lon', 'Longitude must be between -180 and 180.'],
  [{ lon: 'east' }, 'lon', 'Longitude must be a number, such as 151.21.'],
  [{ sold_date: '2026-02-30' }, 'sold_date', 'Sold date must be a real date, such as 2026-03-31.'],
  [{ installation_date: 'next Tuesday' }, 'installation_date', 'Installation date must be a real date, such as 2026-03-31.'],
  [{ contract_date: '27/11/2026' }, 'contract_date', 'Contract date must be a real date, such as 2026-03-31.'],
  [{ valid_until_date: '2026-13-01' }, 'valid_until_date', 'Valid until date must be a real date, such as 2026-03-31.'],
  [{ country_iso2: 'XX' }, 'country_iso2', 'There is no country with this code: use its 2-letter ISO code, such as AU, US or GB.'],
  [{ country_iso2: 'AUS' }, 'country_iso2', 'Enter a 2-letter country code, such as AU, US or GB.'],
  [{ number_of_phases: 1.5 }, 'number_of_phases', 'Number of phases must be a whole number, such as 2.'],
  [{ number_of_phases: '-1' }, 'number_of_phases', 'Number of phases cannot be negative.'],
  [{ number_of_wires: -3 }, 'number_of_wires', 'Number of wires cannot be negative.'],
  [{ number_of_storeys: '2.5' }, 'number_of_storeys', 'Number of storeys must be a whole number, such as 2.'],
  [{ years_to_simulate: -20 }, 'years_to_simulate', 'Years to simulate cannot be negative.'],
  [{ roof_type: '/api/roof_types/99/' }, 'roof_type', 'Invalid hyperlink - Object does not exist.'],
];

/** Project bodies the hosted service accepts, each with what a read gives back. */
const ACCEPTED_PROJECT_FIELDS: Array<[body: Json, expected: Json]> = [
  [{ lat: '35.12', lon: '-120.5' }, { lat: 35.12, lon: -120.5 }],
  [{ lat: -90, lon: -180 }, { lat: -90, lon: -180 }],
  [{ lat: 90, lon: 180 }, { lat: 90, lon: 180 }],
  [{ lat: '90', lon: '-180' }, { lat: 90, lon: -180 }],
  [{ lat: null, lon: null }, { lat: null, lon: null }],
  [{ is_residential: '1' }, { is_residential: true }],
  [{ is_residential: '0' }, { is_residential: false }],
  [{ number_of_phases: '3', number_of_wires: 0, number_of_storeys: null, years_to_simulate: '25' }, { number_of_phases: 3, number_of_wires: 0, number_of_storeys: null, years_to_simulate: 25 }],
  [{ sold_date: '2024-02-29', installation_date: null }, { sold_date: '2024-02-29', installation_date: null }],
  [{ country_iso2: 'nz' }, { country_iso2: 'NZ' }],
  [{ roof_type: '/api/roof_types/19/' }, { roof_type: '/api/roof_types/19/' }],
  [{ roof_type: null }, { roof_type: null }],
];

/** Contact bodies that are refused, each with the field named and its message. */
const REFUSED_CONTACT_FIELDS: Array<[body: Json, field: string, message: string]> = [
  [{ email: 'grace@' }, 'email', 'Enter a valid email address.'],
  [{ email: 'grace at example.com' }, 'email', 'Enter a valid email address.'],
  [{ date_of_birth: '1990-02-30' }, 'date_of_birth', 'Date of birth must be a real date, such as 2026-03-31.'],
  [{ date_of_birth: 'yesterday' }, 'date_of_birth', 'Date of birth must be a real date, such as 2026-03-31.'],
  [{ gender: 3 }, 'gender', 'Gender must be 0 (not given), 1 (female) or 2 (male).'],
  [{ gender: 'male' }, 'gender', 'Gender must be 0 (not given), 1 (female) or 2 (male).'],
];

const ACCEPTED_CONTACT_FIELDS: Array<[body: Json, expected: Json]> = [
  [{ email: 'grace@example.com' }, { email: 'grace@example.com' }],
  [{ email: '' }, { email: '' }],
  [{ gender: '2' }, { gender: 2 }],
  [{ gender: 0 }, { gender: 0 }],
  [{ date_of_birth: '1906-12-09' }, { date_of_birth: '1906-12-09' }],
  [{ date_of_birth: null }, { date_of_birth: null }],
];

/** A read's value of `field`, with a roof type URL cut to its path (the engine answers absolute URLs). */
const readValue = (record: Json, field: string) => (field === 'roof_type' && typeof record[field] === 'string' ? new URL(record[field]).pathname : record[field]);

describe('field rules: the engine refuses what cannot be true and accepts what the hosted service accepts', () => {
  let server: TestServer;
  let token: string;
  let projectId: number;
  let contactId: number;
  const projectPath = () => apiPaths.project(1, projectId);
  const contactPath = () => apiPaths.contact(1, contactId);

  before(async () => {
    server = await startTestServer({ throttleRates: UNTHROTTLED_RATES });
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const project = await server.request('POST', apiPaths.projects(1), { token, body: { title: 'Rules', lat: -33.86, lon: 151.21, notes: 'first' } });
    assert.equal(project.status, 201, project.text);
    projectId = project.json.id;
    const contact = await server.request('POST', apiPaths.contacts(1), { token, body: { first_name: 'Grace', email: 'grace@example.com' } });
    assert.equal(contact.status, 201, contact.text);
    contactId = contact.json.id;
  });
  after(() => server.close());

  test('a project create, PATCH and PUT with a value that breaks a rule is 400 naming the field, and nothing is saved', async () => {
    const projectsBefore = (await server.request('GET', `${apiPaths.projects(1)}?limit=1000`, { token })).json.length;
    const stored = (await server.request('GET', projectPath(), { token })).json;
    for (const [body, field, message] of REFUSED_PROJECT_FIELDS) {
      for (const [method, path] of [['POST', apiPaths.projects(1)], ['PATCH', projectPath()], ['PUT', projectPath()]] as const) {
        const answer = await server.request(method, path, { token, body: { title: 'Never saved', ...body } });
        assert.equal(answer.status, 400, `${method} ${JSON.stringify(body)}: ${answer.text}`);
        assert.deepEqual(answer.json, { [field]: [message] }, `${method} ${JSON.stringify(body)}`);
      }
    }
    assert.equal((await server.request('GET', `${apiPaths.projects(1)}?limit=1000`, { token })).json.length, projectsBefore, 'no refused create made a project');
    const after = (await server.request('GET', projectPath(), { token })).json;
    assert.equal(after.title, stored.title);
    assert.equal(after.lat, -33.86);
    assert.equal(after.modified_date, stored.modified_date, 'no refused PATCH or PUT changed the project');
  });

  test('every broken field is named in one 400, beside the others', async () => {
    const answer = await server.request('PATCH', projectPath(), { token, body: { lat: 91, lon: -200, number_of_phases: -1, sold_date: '2026-04-31', notes: 'fine' } });
    assert.equal(answer.status, 400);
    assert.deepEqual(answer.json, {
      lat: ['Latitude must be between -90 and 90.'],
      lon: ['Longitude must be between -180 and 180.'],
      number_of_phases: ['Number of phases cannot be negative.'],
      sold_date: ['Sold date must be a real date, such as 2026-03-31.'],
    });
  });

  test('what the hosted service accepts is accepted on create, PATCH and PUT, typed in the answer', async () => {
    for (const [body, expected] of ACCEPTED_PROJECT_FIELDS) {
      const created = await server.request('POST', apiPaths.projects(1), { token, body: { title: 'Accepted', ...body } });
      assert.equal(created.status, 201, `POST ${JSON.stringify(body)}: ${created.text}`);
      for (const [field, value] of Object.entries(expected)) assert.deepEqual(readValue(created.json, field), value, `POST ${field}`);
      for (const method of ['PATCH', 'PUT'] as const) {
        const updated = await server.request(method, projectPath(), { token, body });
        assert.equal(updated.status, 200, `${method} ${JSON.stringify(body)}: ${updated.text}`);
        for (const [field, value] of Object.entries(expected)) assert.deepEqual(readValue(updated.json, field), value, `${method} ${field}`);
      }
    }
  });

  test('a contact create, PATCH and PUT with a value that breaks a rule is 400 naming the field; accepted forms are kept', async () => {
    for (const [body, field, message] of REFUSED_CONTACT_FIELDS) {
      for (const [method, path] of [['POST', apiPaths.contacts(1)], ['PATCH', contactPath()], ['PUT', contactPath()]] as const) {
        const answer = await server.request(method, path, { token, body: { first_name: 'Never saved', ...body } });
        assert.equal(answer.status, 400, `${method} ${JSON.stringify(body)}: ${answer.text}`);
        assert.deepEqual(answer.json, { [field]: [message] }, `${method} ${JSON.stringify(body)}`);
      }
    }
    assert.equal((await server.request('GET', contactPath(), { token })).json.first_name, 'Grace');
    for (const [body, expected] of ACCEPTED_CONTACT_FIELDS) {
      for (const [method, path] of [['POST', apiPaths.contacts(1)], ['PATCH', contactPath()], ['PUT', contactPath()]] as const) {
        const answer = await server.request(method, path, { token, body: { first_name: 'Grace', ...body } });
        assert.equal(answer.status, method === 'POST' ? 201 : 200, `${method} ${JSON.stringify(body)}: ${answer.text}`);
        for (const [field, value] of Object.entries(expected)) assert.deepEqual(answer.json[field], value, `${method} ${field}`);
      }
    }
  });

  test("a project create's contacts_new is checked as contacts: a bad one refuses the whole create under contacts_new", async () => {
    const projectsBefore = (await server.request('GET', `${apiPaths.projects(1)}?limit=1000`, { token })).json.length;
    const refused = await server.request('POST', apiPaths.projects(1), {
      token,
      body: { title: 'Bad customer', contacts_new: [{ first_name: 'Fine', email: 'fine@example.com' }, { first_name: 'Bad', email: 'bad@', gender: 5 }] },
    });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json, { contacts_new: ['Enter a valid email address.', 'Gender must be 0 (not given), 1 (female) or 2 (male).'] });
    assert.equal((await server.request('GET', `${apiPaths.projects(1)}?limit=1000`, { token })).json.length, projectsBefore);

    const accepted = await server.request('POST', apiPaths.projects(1), {
      token,
      body: { title: 'Good customer', lat: '-27.47', contacts_new: [{ first_name: 'Zara', email: 'zara@example.com', gender: '2', date_of_birth: null }] },
    });
    assert.equal(accepted.status, 201, accepted.text);
    assert.equal(accepted.json.lat, -27.47);
    assert.equal(accepted.json.contacts_data[0].gender, 2);
  });

  test('a project stored with an old bad value is readable, and a PATCH of another field saves', async () => {
    // Values the engine refuses now, stored before it did (the issue saw -134.5 and "50x45" in the app),
    // written straight to the store; the new modified_date makes the JSON cache build the record again.
    const stored = await server.engine.context.db.selectFrom('projects').select('modified_date').where('id', '=', projectId).executeTakeFirstOrThrow();
    await server.engine.context.db
      .updateTable('projects')
      .set({ lat: -134.5, zip: '50x45', modified_date: stored.modified_date.replace(/^\d{4}/, '2001') })
      .where('id', '=', projectId)
      .execute();
    const read = await server.request('GET', projectPath(), { token });
    assert.equal(read.status, 200);
    assert.equal(read.json.lat, -134.5);
    const patched = await server.request('PATCH', projectPath(), { token, body: { notes: 'Checked the meter box.' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.notes, 'Checked the meter box.');
    assert.equal(patched.json.lat, -134.5, 'a field not sent is not checked and not changed');
    assert.equal(patched.json.zip, '50x45', 'postal codes are never refused by the engine');
    const fixed = await server.request('PATCH', projectPath(), { token, body: { lat: -34.5 } });
    assert.equal(fixed.status, 200, fixed.text);
    assert.equal(fixed.json.lat, -34.5);
  });
});
