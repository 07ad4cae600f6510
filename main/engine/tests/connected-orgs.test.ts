// service.md 4.4: connected orgs. A request names the other org exactly; the other
// org sees it pending until it accepts; either may decline (or disconnect).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { createOrg, setPlan } from '../orgs/org-service.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

const RECORD_FIELDS = [
  'connected_org', 'connected_org_id', 'connected_org_name', 'created_date', 'direction', 'id', 'modified_date',
  'org', 'org_id', 'org_name', 'requested_by', 'status', 'url',
];

describe('connected orgs', () => {
  let server: TestServer;
  let sunrise: string;
  let basic: string;
  let member: string;
  let deltaId: number;
  const sunrisePath = '/api/orgs/1/connected_orgs/';
  const basicPath = '/api/orgs/2/connected_orgs/';

  before(async () => {
    server = await startTestServer();
    sunrise = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    basic = await server.tokenFor(DEMO_USERS.basicAdmin);
    member = await server.tokenFor(DEMO_USERS.sunriseMember);
    const { context } = server.engine;
    const delta = await createOrg(context.db, context.clock, { name: 'Delta Solar' });
    await setPlan(context.db, context.clock, delta.id, { plan: 'api_access', startsOn: '2025-01-01' });
    deltaId = delta.id;
  });
  after(() => server.close());

  test('a request names the other org by id and exact name; anything else is 400, saying nothing about which ids exist', async () => {
    const attempts = [
      { connected_org: 2, connected_org_name: 'basic solar' },
      { connected_org: 2, connected_org_name: 'Basic' },
      { connected_org: 999, connected_org_name: 'Basic Solar' },
      { connected_org: 'not an org', connected_org_name: 'Basic Solar' },
    ];
    const messages = new Set<string>();
    for (const body of attempts) {
      const response = await server.request('POST', sunrisePath, { token: sunrise, body });
      assert.equal(response.status, 400, JSON.stringify(body));
      messages.add(response.json.connected_org[0]);
    }
    assert.equal(messages.size, 1, 'one message for every miss');
    const itself = await server.request('POST', sunrisePath, { token: sunrise, body: { connected_org: 1, connected_org_name: 'Sunrise Solar' } });
    assert.equal(itself.status, 400);
    const missing = await server.request('POST', sunrisePath, { token: sunrise, body: { connected_org: 2 } });
    assert.deepEqual(missing.json, { connected_org_name: ['This field is required.'] });
  });

  test('the asking org sees its request outgoing and pending, the asked org incoming and pending; accepting connects both', async () => {
    const created = await server.request('POST', sunrisePath, {
      token: sunrise,
      body: { connected_org: `${server.baseUrl}${apiPaths.org(2)}`, connected_org_name: 'Basic Solar' },
    });
    assert.equal(created.status, 201, created.text);
    const record = created.json;
    assert.deepEqual(Object.keys(record).sort(), RECORD_FIELDS);
    assert.equal(record.url, `${server.baseUrl}${sunrisePath}${record.id}/`);
    assert.equal(record.org, `${server.baseUrl}${apiPaths.org(1)}`);
    assert.equal(record.connected_org, `${server.baseUrl}${apiPaths.org(2)}`);
    assert.deepEqual([record.org_name, record.connected_org_name, record.status, record.direction], ['Sunrise Solar', 'Basic Solar', 'pending', 'outgoing']);
    assert.match(record.requested_by, /\/auth\/users\/\d+\/$/);

    const incoming = (await server.request('GET', basicPath, { token: basic })).json;
    assert.equal(incoming.length, 1);
    assert.deepEqual([incoming[0].id, incoming[0].status, incoming[0].direction], [record.id, 'pending', 'incoming']);
    assert.equal(incoming[0].url, `${server.baseUrl}${basicPath}${record.id}/`);

    const again = await server.request('POST', sunrisePath, { token: sunrise, body: { connected_org: 2, connected_org_name: 'Basic Solar' } });
    assert.equal(again.status, 400, 'already pending');
    const reverse = await server.request('POST', basicPath, { token: basic, body: { connected_org: 1, connected_org_name: 'Sunrise Solar' } });
    assert.equal(reverse.status, 400);
    assert.match(reverse.json.non_field_errors[0], /accept its request/);

    const selfAccept = await server.request('PATCH', `${sunrisePath}${record.id}/`, { token: sunrise, body: { status: 'accepted' } });
    assert.equal(selfAccept.status, 403, 'only the asked org accepts');
    const accepted = await server.request('PATCH', `${basicPath}${record.id}/`, { token: basic, body: { status: 'accepted' } });
    assert.equal(accepted.status, 200);
    assert.equal(accepted.json.status, 'accepted');
    assert.equal((await server.request('GET', sunrisePath, { token: sunrise })).json[0].status, 'accepted');

    const disconnected = await server.request('PATCH', `${sunrisePath}${record.id}/`, { token: sunrise, body: { status: 'declined' } });
    assert.equal(disconnected.json.status, 'declined', 'either side may disconnect');
    const reopen = await server.request('PATCH', `${basicPath}${record.id}/`, { token: basic, body: { status: 'accepted' } });
    assert.equal(reopen.status, 400);
    const renewed = await server.request('POST', basicPath, { token: basic, body: { connected_org: 1, connected_org_name: 'Sunrise Solar' } });
    assert.equal(renewed.status, 201, 'after a decline, a new request may be sent');
    assert.equal((await server.request('GET', sunrisePath, { token: sunrise })).json.length, 2, 'the declined one stays as history');
  });

  test('only admins ask and answer; members list; other orgs never see the record', async () => {
    assert.equal((await server.request('POST', sunrisePath, { token: member, body: { connected_org: deltaId, connected_org_name: 'Delta Solar' } })).status, 403);
    assert.equal((await server.request('GET', sunrisePath, { token: member })).status, 200);
    const betweenOthers = await server.request('POST', basicPath, { token: basic, body: { connected_org: deltaId, connected_org_name: 'Delta Solar' } });
    assert.equal(betweenOthers.status, 201);
    assert.ok(!(await server.request('GET', sunrisePath, { token: sunrise })).json.some((record: { id: number }) => record.id === betweenOthers.json.id));
    assert.equal((await server.request('PATCH', `${sunrisePath}${betweenOthers.json.id}/`, { token: sunrise, body: { status: 'declined' } })).status, 404);
    const memberAnswer = await server.request('PATCH', `${basicPath}${betweenOthers.json.id}/`, { token: member, body: { status: 'declined' } });
    assert.equal(memberAnswer.status, 403);
    const nonsense = await server.request('PATCH', `${basicPath}${betweenOthers.json.id}/`, { token: basic, body: { status: 'maybe' } });
    assert.equal(nonsense.status, 400);
    assert.ok(nonsense.json.status);
    const withdrawn = await server.request('PATCH', `${basicPath}${betweenOthers.json.id}/`, { token: basic, body: { status: 'declined' } });
    assert.equal(withdrawn.json.status, 'declined', 'the asking org may withdraw');
  });
});
