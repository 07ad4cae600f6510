// hosted-docs-facts.md section 4: connected orgs, the Teams feature. One test per
// documented behaviour: the record seen from each side, ask by the partner's exact
// name, pending requests, accept with the pending item's org_to_id, list params,
// disable/enable, delete, admins only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-accounts.ts';
import { createOrg } from '../orgs/org-service.ts';
import { addPartnerOrg } from '../testing/partner-org.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

/** The path of a record's absolute `url`, for a request. */
const pathOf = (url: string) => new URL(url).pathname;

const RECORD_FIELDS = ['id', 'is_active', 'is_other_active', 'is_other_enabled', 'notify_roles', 'org', 'org_name', 'org_to', 'permission', 'url'];

describe('connected orgs (facts section 4)', () => {
  let server: TestServer;
  let sunrise: string;
  let basic: string;
  let member: string;
  let viewer: string;
  let deltaId: number;
  let deltaAdmin: string;

  /** Asks from `fromOrg` to the org named `name` and accepts as `acceptToken` in `toOrg`; answers the asking side's record id. */
  async function connect(fromOrg: number, fromToken: string, name: string, toOrg: number, acceptToken: string): Promise<number> {
    const asked = await server.request('POST', apiPaths.connectedOrgs(fromOrg), { token: fromToken, body: { org_name: name, notify_roles: [] } });
    assert.equal(asked.status, 201, asked.text);
    const accepted = await server.request('POST', apiPaths.connectedOrgsAccept(toOrg), { token: acceptToken, body: { org_to_id: fromOrg } });
    assert.equal(accepted.status, 200, accepted.text);
    return asked.json.id;
  }

  before(async () => {
    server = await startTestServer();
    sunrise = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    basic = await server.tokenFor(DEMO_USERS.basicAdmin);
    member = await server.tokenFor(DEMO_USERS.sunriseMember);
    viewer = await server.tokenFor(DEMO_USERS.sunriseViewer);
    const delta = await addPartnerOrg(server, 'Delta Solar', 'admin@delta.example');
    deltaId = delta.id;
    deltaAdmin = delta.admin;
  });
  after(() => server.close());

  test('asking names the partner by its exact name; no match or several matches is one 400 that names no org', async () => {
    const { context } = server.engine;
    await createOrg(context.db, context.clock, { name: 'Twin Solar' });
    await createOrg(context.db, context.clock, { name: 'Twin Solar' });
    const messages = new Set<string>();
    for (const name of ['basic solar', 'Basic', 'Basic Solar ', 'Nobody Solar', 'Twin Solar', '']) {
      const response = await server.request('POST', apiPaths.connectedOrgs(1), { token: sunrise, body: { org_name: name } });
      assert.equal(response.status, 400, `${JSON.stringify(name)}: ${response.text}`);
      assert.deepEqual(Object.keys(response.json), ['org_name']);
      messages.add(response.json.org_name[0]);
    }
    assert.equal(messages.size, 1, 'one message for every miss');
    assert.doesNotMatch([...messages][0]!, /Basic|Twin|Delta/);
    const itself = await server.request('POST', apiPaths.connectedOrgs(1), { token: sunrise, body: { org_name: 'Sunrise Solar' } });
    assert.equal(itself.status, 400);
    const missing = await server.request('POST', apiPaths.connectedOrgs(1), { token: sunrise, body: { notify_roles: [] } });
    assert.deepEqual(missing.json, { org_name: ['This field is required.'] });
  });

  test('the record is seen from the viewing org: url under it, org itself, org_to and org_name the partner', async () => {
    const asked = await server.request('POST', apiPaths.connectedOrgs(1), { token: sunrise, body: { org_name: 'Basic Solar', notify_roles: [] } });
    assert.equal(asked.status, 201, asked.text);
    const record = asked.json;
    assert.deepEqual(Object.keys(record).sort(), RECORD_FIELDS);
    assert.equal(record.url, `${server.baseUrl}${apiPaths.connectedOrg(1, record.id)}`);
    assert.equal(record.org, `${server.baseUrl}${apiPaths.org(1)}`);
    assert.equal(record.org_to, `${server.baseUrl}${apiPaths.org(2)}`);
    assert.equal(record.org_name, 'Basic Solar');
    assert.deepEqual([record.permission, record.notify_roles, record.is_active, record.is_other_active, record.is_other_enabled], [null, [], true, false, true]);
    assert.deepEqual((await server.request('GET', pathOf(record.url), { token: sunrise })).json, record, 'the url answers the record');

    const again = await server.request('POST', apiPaths.connectedOrgs(1), { token: sunrise, body: { org_name: 'Basic Solar' } });
    assert.equal(again.status, 400, 'already waiting');
    const reverse = await server.request('POST', apiPaths.connectedOrgs(2), { token: basic, body: { org_name: 'Sunrise Solar' } });
    assert.equal(reverse.status, 400);
    assert.match(reverse.json.non_field_errors[0], /accept_connection/);
  });

  test('the asked org sees the request in pending/ and accepts it with the org_to_id copied from the item', async () => {
    const pending = await server.request('GET', apiPaths.connectedOrgsPending(2), { token: basic });
    assert.equal(pending.status, 200);
    assert.equal(pending.json.length, 1);
    const item = pending.json[0];
    assert.deepEqual(Object.keys(item).sort(), ['item_id', 'org_from_id', 'org_from_name', 'org_to_id']);
    assert.deepEqual([item.org_from_id, item.org_from_name, item.org_to_id], [1, 'Sunrise Solar', 1]);
    assert.deepEqual((await server.request('GET', apiPaths.connectedOrgs(2), { token: basic })).json, [], 'not listed before it is accepted');
    assert.deepEqual((await server.request('GET', apiPaths.connectedOrgsPending(1), { token: sunrise })).json, [], 'the asking org has nothing to accept');

    const wrong = await server.request('POST', apiPaths.connectedOrgsAccept(2), { token: basic, body: { org_to_id: deltaId } });
    assert.equal(wrong.status, 400);
    assert.match(wrong.json.org_to_id[0], /pending/);
    const selfAccept = await server.request('POST', apiPaths.connectedOrgsAccept(1), { token: sunrise, body: { org_to_id: 2 } });
    assert.equal(selfAccept.status, 400, 'the asking org cannot accept its own request');

    const accepted = await server.request('POST', apiPaths.connectedOrgsAccept(2), { token: basic, body: { org_to_id: item.org_to_id } });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.json.connected_org.id, item.item_id);
    assert.deepEqual((await server.request('GET', apiPaths.connectedOrgsPending(2), { token: basic })).json, []);
    const [basicSide] = (await server.request('GET', apiPaths.connectedOrgs(2), { token: basic })).json;
    assert.deepEqual([basicSide.id, basicSide.org_name, basicSide.org_to, basicSide.is_other_active], [item.item_id, 'Sunrise Solar', `${server.baseUrl}${apiPaths.org(1)}`, true]);
    const [sunriseSide] = (await server.request('GET', apiPaths.connectedOrgs(1), { token: sunrise })).json;
    assert.deepEqual([sunriseSide.is_active, sunriseSide.is_other_active, sunriseSide.is_other_enabled], [true, true, true]);
  });

  test('the list takes fieldset=list, limit, page and ordering (-id) and answers a bare array', async () => {
    await connect(1, sunrise, 'Delta Solar', deltaId, deltaAdmin);
    const all = (await server.request('GET', `${apiPaths.connectedOrgs(1)}?fieldset=list`, { token: sunrise })).json;
    assert.deepEqual(all.map((record: { org_name: string }) => record.org_name), ['Basic Solar', 'Delta Solar']);
    const newestFirst = (await server.request('GET', `${apiPaths.connectedOrgs(1)}?fieldset=list&ordering=-id`, { token: sunrise })).json;
    assert.deepEqual(newestFirst.map((record: { id: number }) => record.id), all.map((record: { id: number }) => record.id).reverse());
    const second = (await server.request('GET', `${apiPaths.connectedOrgs(1)}?fieldset=list&limit=1&page=2`, { token: sunrise })).json;
    assert.deepEqual(second.map((record: { id: number }) => record.id), [all[1].id]);
  });

  test('PATCH is_active disables and enables this side; the partner sees is_other_enabled follow', async () => {
    const [record] = (await server.request('GET', apiPaths.connectedOrgs(1), { token: sunrise })).json;
    const disabled = await server.request('PATCH', pathOf(record.url), { token: sunrise, body: { is_active: false } });
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal(disabled.json.is_active, false);
    const basicSide = (await server.request('GET', apiPaths.connectedOrgs(2), { token: basic })).json[0];
    assert.deepEqual([basicSide.is_active, basicSide.is_other_active, basicSide.is_other_enabled], [true, true, false]);
    const enabled = await server.request('PATCH', pathOf(record.url), { token: sunrise, body: { is_active: true } });
    assert.equal(enabled.json.is_active, true);
    assert.equal((await server.request('GET', apiPaths.connectedOrgs(2), { token: basic })).json[0].is_other_enabled, true);
  });

  test("notify_roles must be this org's role ids and permission a Teams permissions role of this org", async () => {
    const [record] = (await server.request('GET', apiPaths.connectedOrgs(1), { token: sunrise })).json;
    const roles = (await server.request('GET', apiPaths.roles(1), { token: sunrise })).json;
    const notified = await server.request('PATCH', pathOf(record.url), { token: sunrise, body: { notify_roles: [roles[0].id] } });
    assert.deepEqual(notified.json.notify_roles, [roles[0].id]);
    const basicRole = (await server.request('GET', apiPaths.roles(2), { token: basic })).json[0];
    const foreign = await server.request('PATCH', pathOf(record.url), { token: sunrise, body: { notify_roles: [basicRole.id] } });
    assert.equal(foreign.status, 400);
    assert.ok(foreign.json.notify_roles);

    const role = await server.request('POST', apiPaths.permissionsRoles(1), {
      token: sunrise,
      body: { role_type: 1, title: 'Partners', permissions: JSON.stringify({ project: { project: { view: 1, create: 0, edit: 0, delete: 0 } } }) },
    });
    assert.equal(role.status, 201, role.text);
    const withPermission = await server.request('PATCH', pathOf(record.url), { token: sunrise, body: { permission: role.json.url } });
    assert.equal(withPermission.status, 200, withPermission.text);
    assert.equal(withPermission.json.permission, role.json.url);
    const bad = await server.request('PATCH', pathOf(record.url), { token: sunrise, body: { permission: `${server.baseUrl}${apiPaths.permissionsRole(2, role.json.id)}` } });
    assert.equal(bad.status, 400);
    assert.ok(bad.json.permission);
    const cleared = await server.request('PATCH', pathOf(record.url), { token: sunrise, body: { permission: null } });
    assert.equal(cleared.json.permission, null);
  });

  test('only admins set up or change connections: members and viewers get 403 saying so, and may list', async () => {
    const [record] = (await server.request('GET', apiPaths.connectedOrgs(1), { token: sunrise })).json;
    for (const token of [member, viewer]) {
      const attempts = [
        await server.request('POST', apiPaths.connectedOrgs(1), { token, body: { org_name: 'Lapsed Solar' } }),
        await server.request('PATCH', pathOf(record.url), { token, body: { is_active: false } }),
        await server.request('DELETE', pathOf(record.url), { token }),
        await server.request('POST', apiPaths.connectedOrgsAccept(1), { token, body: { org_to_id: 2 } }),
      ];
      for (const response of attempts) {
        assert.equal(response.status, 403, response.text);
        assert.match(response.json.detail, /Only admins/);
      }
      assert.equal((await server.request('GET', apiPaths.connectedOrgs(1), { token })).status, 200);
    }
    assert.equal((await server.request('GET', pathOf(record.url), { token: deltaAdmin })).status, 403, 'another org is not a member here');
    const deltaSide = (await server.request('GET', apiPaths.connectedOrgs(deltaId), { token: deltaAdmin })).json;
    assert.ok(!deltaSide.some((other: { id: number }) => other.id === record.id), "Delta never sees the Sunrise-Basic connection");
    assert.equal((await server.request('GET', apiPaths.connectedOrg(deltaId, record.id), { token: deltaAdmin })).status, 404);
  });

  test('DELETE removes the connection on both sides; a new request may follow', async () => {
    const [record] = (await server.request('GET', apiPaths.connectedOrgs(1), { token: sunrise })).json;
    assert.equal((await server.request('DELETE', pathOf(record.url), { token: sunrise })).status, 204);
    assert.equal((await server.request('GET', pathOf(record.url), { token: sunrise })).status, 404);
    assert.ok(!(await server.request('GET', apiPaths.connectedOrgs(1), { token: sunrise })).json.some((other: { org_name: string }) => other.org_name === 'Basic Solar'));
    assert.deepEqual((await server.request('GET', apiPaths.connectedOrgs(2), { token: basic })).json, []);
    const renewed = await server.request('POST', apiPaths.connectedOrgs(2), { token: basic, body: { org_name: 'Sunrise Solar' } });
    assert.equal(renewed.status, 201, renewed.text);
    // The asked org may decline a waiting request by deleting its pending item.
    const [item] = (await server.request('GET', apiPaths.connectedOrgsPending(1), { token: sunrise })).json;
    assert.equal((await server.request('DELETE', apiPaths.connectedOrg(1, item.item_id), { token: sunrise })).status, 204);
    assert.deepEqual((await server.request('GET', apiPaths.connectedOrgs(2), { token: basic })).json, [], "the asking org's request is gone too");
  });
});
