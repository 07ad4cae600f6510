// What a remote sends is read with the API's schemas, tolerantly (remote-records.ts):
// fields this engine does not know (the hosted service sends more) sync as usual;
// a record that does not read as its model is reported in the sync status and
// skipped, and the rest of the cycle goes on. A real server and a real agent; the
// fault proxy stands in for a remote that answers such records.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API JSON

const CONTACT_LIST = /^\/api\/orgs\/1\/contacts\/$/;
/** The incremental pull's first page of contacts, newest first. */
const CHANGES_PAGE_ONE = /^(?=(?:.*&)?ordering=-modified_date(?:&|$))(?=(?:.*&)?page=1(?:&|$))/;
const CHANGES_PAGE_ONE_QUERY = 'ordering=-modified_date&limit=100&page=1';

/** Fields a remote may send that this engine has never heard of. */
const HOSTED_ONLY = { hosted_only_flag: true, hosted_only_settings: { tier: 'gold', regions: ['eu', 'us'] } };

describe('sync reads remote records with their schemas', () => {
  let h: SyncHarness;
  before(async () => {
    // The lists' reading is under test: the proxy rewrites list answers. The change feed reads
    // records one by one (and is tested in sync-change-feed.test.ts), so it is off here.
    h = await startSyncHarness({ serverChangeFeed: false });
    await h.synced();
  });
  after(() => h.close());

  test('records with fields this engine does not know sync as usual', async () => {
    const contact = (await h.remote('POST', '/api/orgs/1/contacts/', { first_name: 'Hosted', family_name: 'Extra' })).json as Json;
    const project = (await h.remote('POST', '/api/orgs/1/projects/', { title: 'Hosted extras', address: '7 Unknown Field Way' })).json as Json;
    const contacts = (await h.remote('GET', `${apiPaths.contacts(1)}?${CHANGES_PAGE_ONE_QUERY}`)).json as Json[];
    const withExtras = (record: Json) => ({ ...record, ...HOSTED_ONLY });
    h.proxy.addRule({ method: 'GET', path: CONTACT_LIST, query: CHANGES_PAGE_ONE, action: { kind: 'status', status: 200, body: contacts.map(withExtras) } });
    // The project's detail, with extras at the top and inside what hangs off it.
    const detail = (await h.remote('GET', apiPaths.project(1, project.id))).json as Json;
    const detailWithExtras = { ...withExtras(detail), workflow: withExtras(detail.workflow), contacts_data: (detail.contacts_data as Json[]).map(withExtras) };
    h.proxy.addRule({ method: 'GET', path: new RegExp(`^${apiPaths.project(1, project.id)}$`), action: { kind: 'status', status: 200, body: detailWithExtras } });
    try {
      await h.synced();
    } finally {
      h.proxy.clearRules();
    }
    assert.equal((await h.local('GET', apiPaths.contact(1, contact.id))).json.family_name, 'Extra');
    assert.equal((await h.local('GET', apiPaths.project(1, project.id))).json.address, '7 Unknown Field Way');
    assert.equal((await h.agent.sync.status()).detail, null, 'nothing was skipped');
  });

  test("a remote that names fields the hosted service's way (facts 15) fills ours: hosted names only, a numeric country URL, global_users", async () => {
    const project = (await h.remote('POST', '/api/orgs/1/projects/', { title: 'Hosted names', address: '15 Facts Lane', country_iso2: 'NZ' })).json as Json;
    const detail = (await h.remote('GET', apiPaths.project(1, project.id))).json as Json;
    const {
      esign_contract_envelope_id: _esign, marketplace_project_id: _marketplace, lender_role_connection_status: _lender, country_iso2: _iso2, ...rest
    } = detail;
    const hosted = {
      ...rest,
      docusign_contract_envelope_id: 'env-hosted-1',
      greenlancer_project_id: 'gl-hosted-1',
      brighte_role_connection_status: 'connected',
      country: 'https://hosted.example/api/countries/554/',
    };
    h.proxy.addRule({ method: 'GET', path: new RegExp(`^${apiPaths.project(1, project.id)}$`), action: { kind: 'status', status: 200, body: hosted } });
    try {
      await h.synced();
    } finally {
      h.proxy.clearRules();
    }
    const local = (await h.local('GET', apiPaths.project(1, project.id))).json as Json;
    assert.equal(local.esign_contract_envelope_id, 'env-hosted-1');
    assert.equal(local.docusign_contract_envelope_id, 'env-hosted-1');
    assert.equal(local.marketplace_project_id, 'gl-hosted-1');
    assert.equal(local.lender_role_connection_status, 'connected');
    assert.equal(local.country_iso2, 'NZ', 'read from the numeric country URL');
    assert.equal((await h.agent.sync.status()).detail, null, 'nothing was skipped');
  });

  test('a record that does not read as its model is reported and skipped; the others sync', async () => {
    const broken = (await h.remote('POST', '/api/orgs/1/contacts/', { first_name: 'Broken', family_name: 'Typed' })).json as Json;
    const fine = (await h.remote('POST', '/api/orgs/1/contacts/', { first_name: 'Fine', family_name: 'Alongside' })).json as Json;
    const contacts = (await h.remote('GET', `${apiPaths.contacts(1)}?${CHANGES_PAGE_ONE_QUERY}`)).json as Json[];
    const answered = [
      ...contacts.map((contact) => (contact.id === broken.id ? { ...contact, first_name: 42 } : contact)),
      { first_name: 'No', family_name: 'Id', modified_date: new Date().toISOString() },
    ];
    h.proxy.addRule({ method: 'GET', path: CONTACT_LIST, query: CHANGES_PAGE_ONE, action: { kind: 'status', status: 200, body: answered } });
    try {
      await h.synced();
    } finally {
      h.proxy.clearRules();
    }
    const status = await h.agent.sync.status();
    assert.equal(status.state, 'idle', 'the cycle finished');
    assert.match(status.detail ?? '', /skipped 2 remote records/);
    assert.match(status.detail ?? '', new RegExp(`contact ${broken.id} \\(first_name: [^)]*expected string`));
    assert.match(status.detail ?? '', /a contact without an id/);
    assert.equal((await h.local('GET', apiPaths.contact(1, fine.id))).json.family_name, 'Alongside', 'the rest synced');
    assert.equal((await h.local('GET', apiPaths.contact(1, broken.id))).status, 404, 'nothing half-read reached the replica');

    // Read right, it comes down with the next pull: the skipped record held the pull's mark back.
    await h.synced();
    assert.equal((await h.local('GET', apiPaths.contact(1, broken.id))).json.first_name, 'Broken');
    assert.equal((await h.agent.sync.status()).detail, null);
  });
});
