// hosted-docs-facts.md section 11: sharing projects (and entities) with a connected
// org. One test per documented behaviour; docs/access.md "Teams" says what SolarDesk
// decided where the facts leave it open.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-accounts.ts';
import { addOrgUser, addPartnerOrg, type PartnerOrg } from '../testing/partner-org.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

const SUNRISE = 1;
const BASIC = 2;

describe('sharing with connected orgs (facts section 11)', () => {
  let server: TestServer;
  let sunrise: string;
  let basic: string;
  let basicMember: string;
  let stranger: PartnerOrg;
  let projectId: number;
  let sunriseSide: number;

  const detailAs = (token: string, org: number, id = projectId) => server.request('GET', apiPaths.project(org, id), { token });
  const listIds = async (token: string, org: number, query = '') =>
    ((await server.request('GET', `${apiPaths.projects(org)}?fieldset=list&limit=1000${query}`, { token })).json as Array<{ id: number }>).map((row) => row.id);
  const share = (entries: unknown, method = 'PATCH') => server.request(method, apiPaths.project(SUNRISE, projectId), { token: sunrise, body: { shared_with: entries } });
  /** The partner's change feed from `after`: the project changes it lists. */
  const feedOf = async (token: string, org: number, after: string) => {
    const response = await server.request('GET', `${apiPaths.changes(org)}?after=${after}&limit=1000`, { token });
    assert.equal(response.status, 200, response.text);
    return response.json as { changes: Array<{ model: string; id: number; op: string }>; next_cursor: string };
  };
  const headOf = async (token: string, org: number) => (await server.request('GET', apiPaths.changes(org), { token })).json.next_cursor as string;
  /** Waits (bounded) until the feed after `after` lists the project with `op`: the partner's rows are written just after the owner's write. */
  const waitForFeed = async (token: string, org: number, after: string, op: string) => {
    for (let attempt = 0; attempt < 200; attempt++) {
      const feed = await feedOf(token, org, after);
      if (feed.changes.some((change) => change.model === 'project' && change.id === projectId && change.op === op)) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.fail(`the feed of org ${org} never listed project ${projectId} as ${op}`);
  };

  before(async () => {
    server = await startTestServer();
    sunrise = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    basic = await server.tokenFor(DEMO_USERS.basicAdmin);
    basicMember = await addOrgUser(server, BASIC, 'member@basic.example', { is_pro: true });
    stranger = await addPartnerOrg(server, 'Stranger Solar', 'admin@stranger.example');
    // A demo project with contacts, notes and files: something for a permissions role to hide.
    for (const id of await listIds(sunrise, SUNRISE)) {
      const json = (await detailAs(sunrise, SUNRISE, id)).json;
      if (json.contacts_data.length > 0) {
        projectId = id;
        break;
      }
    }
    assert.ok(projectId, 'a demo project with contacts');
    const note = await server.request('POST', apiPaths.events(SUNRISE), { token: sunrise, body: { title: 'Owner note', project: projectId } });
    assert.equal(note.status, 201, note.text);
    // And a file on it, for info_documents to hide.
    const file = (await server.request('GET', `${apiPaths.privateFiles(SUNRISE)}?limit=1`, { token: sunrise })).json[0];
    await server.request('PATCH', apiPaths.project(SUNRISE, projectId), { token: sunrise, body: { private_files: [file.url] } });
    const asked = await server.request('POST', apiPaths.connectedOrgs(SUNRISE), { token: sunrise, body: { org_name: 'Basic Solar' } });
    sunriseSide = asked.json.id;
  });
  after(() => server.close());

  test('sharing needs an active connection: otherwise 400 saying what to do', async () => {
    const pending = await share([{ org_id: BASIC }]);
    assert.equal(pending.status, 400, 'the request is not accepted yet');
    assert.match(pending.json.shared_with[0], /no active connection.*connected_orgs/);
    const strangerShare = await share([{ org_id: stranger.id }]);
    assert.equal(strangerShare.status, 400);
    assert.doesNotMatch(strangerShare.json.shared_with[0], /Stranger/, 'names no org it is not connected to');
    const malformed = await share([{ permission: null }]);
    assert.equal(malformed.status, 400);
    assert.ok(malformed.json.shared_with);
    assert.equal((await server.request('POST', apiPaths.connectedOrgsAccept(BASIC), { token: basic, body: { org_to_id: SUNRISE } })).status, 200);
    const disabled = await server.request('PATCH', apiPaths.connectedOrg(SUNRISE, sunriseSide), { token: sunrise, body: { is_active: false } });
    assert.equal(disabled.status, 200);
    assert.equal((await share([{ org_id: BASIC }])).status, 400, 'a disabled side pauses sharing');
    await server.request('PATCH', apiPaths.connectedOrg(SUNRISE, sunriseSide), { token: sunrise, body: { is_active: true } });
  });

  test('PUT shared_with shares the project; the record carries shared_with as [{org_id, permission, is_shared}]', async () => {
    const before = await detailAs(sunrise, SUNRISE);
    const shared = await server.request('PUT', apiPaths.project(SUNRISE, projectId), { token: sunrise, body: { title: before.json.title, shared_with: [{ org_id: BASIC }] } });
    assert.equal(shared.status, 200, shared.text);
    assert.deepEqual(shared.json.shared_with, [{ org_id: BASIC, permission: null, is_shared: true }]);
    assert.deepEqual((await detailAs(sunrise, SUNRISE)).json.shared_with, [{ org_id: BASIC, permission: null, is_shared: true }]);
  });

  test("the partner sees the shared project in its own endpoints, under its own org path, with the owner's org_id", async () => {
    assert.ok((await listIds(basic, BASIC)).includes(projectId), 'listed by default');
    const detail = await detailAs(basic, BASIC);
    assert.equal(detail.status, 200, detail.text);
    assert.equal(detail.json.org_id, SUNRISE, 'org_id stays the owner: the desktop marks it a partner project');
    assert.equal(detail.json.org_name, 'Sunrise Solar');
    assert.deepEqual(detail.json.shared_with, [{ org_id: BASIC, permission: null, is_shared: true }]);
    assert.equal((await detailAs(stranger.admin, stranger.id)).status, 404, 'an org it is not shared with finds nothing');
    assert.ok(!(await listIds(stranger.admin, stranger.id)).includes(projectId));
  });

  test('a shared project is read-only for the partner: every write is 403 with a message', async () => {
    for (const [method, body] of [['PATCH', { notes: 'partner edit' }], ['PUT', { title: 'partner title' }], ['DELETE', undefined]] as const) {
      const response = await server.request(method, apiPaths.project(BASIC, projectId), { token: basic, body });
      assert.equal(response.status, 403, `${method}: ${response.text}`);
      assert.match(response.json.detail, /shared with your organisation by Sunrise Solar and is read-only here/);
    }
    assert.notEqual((await detailAs(sunrise, SUNRISE)).json.notes, 'partner edit');
  });

  test("the partner's users see shared projects only where they see every project of their own org", async () => {
    assert.ok(!(await listIds(basicMember, BASIC)).includes(projectId));
    assert.equal((await detailAs(basicMember, BASIC)).status, 404);
  });

  test('fieldset=list filters: owner_org_id (owning org) and visible_to (shared with that org)', async () => {
    assert.deepEqual(await listIds(basic, BASIC, `&owner_org_id=${SUNRISE}`), [projectId]);
    assert.ok(!(await listIds(basic, BASIC, `&owner_org_id=${BASIC}`)).includes(projectId));
    assert.deepEqual(await listIds(basic, BASIC, `&visible_to=${BASIC}`), [projectId], "the partner's shared-in projects");
    assert.deepEqual(await listIds(sunrise, SUNRISE, `&visible_to=${BASIC}`), [projectId], "the owner's projects shared with the partner");
    assert.deepEqual(await listIds(sunrise, SUNRISE, `&visible_to=${stranger.id}`), []);
  });

  test('a partner permissions role narrows what the partner sees: contacts, documents, design, notes; project view 0 hides it', async () => {
    const role = async (permissions: object) => {
      const response = await server.request('POST', apiPaths.permissionsRoles(SUNRISE), {
        token: sunrise,
        body: { role_type: 1, title: 'Partner view', permissions: JSON.stringify({ project: permissions }) },
      });
      assert.equal(response.status, 201, response.text);
      return response.json.url as string;
    };
    const view = { view: 1, create: 0, edit: 0, delete: 0 };
    const narrow = await role({ project: view, info_contact_info_basic: view });
    assert.equal((await share([{ org_id: BASIC, permission: narrow }])).status, 200);
    const owner = (await detailAs(sunrise, SUNRISE)).json;
    const seen = (await detailAs(basic, BASIC)).json;
    assert.deepEqual(seen.shared_with, [{ org_id: BASIC, permission: narrow, is_shared: true }]);
    assert.ok(owner.private_files_data.length > 0);
    assert.deepEqual(seen.private_files_data, [], 'no info_documents');
    assert.deepEqual(seen.events_data, [], 'no manage_notes_activities_actions');
    assert.equal(seen.design, null, 'no design');
    assert.equal(seen.contacts_data.length, owner.contacts_data.length, 'info_contact_info_basic: the contacts, by name');
    for (const contact of seen.contacts_data) assert.deepEqual(Object.keys(contact).sort(), ['family_name', 'first_name', 'id', 'url']);

    const hidden = await role({ project: { view: 0, create: 0, edit: 0, delete: 0 } });
    assert.equal((await share([{ org_id: BASIC, permission: hidden }])).status, 200);
    assert.equal((await detailAs(basic, BASIC)).status, 404);
    assert.ok(!(await listIds(basic, BASIC)).includes(projectId));
    // The connection's `permission` is the default when the entry names none.
    await server.request('PATCH', apiPaths.connectedOrg(SUNRISE, sunriseSide), { token: sunrise, body: { permission: narrow } });
    assert.equal((await share([{ org_id: BASIC }])).status, 200);
    assert.deepEqual((await detailAs(basic, BASIC)).json.private_files_data, []);
    await server.request('PATCH', apiPaths.connectedOrg(SUNRISE, sunriseSide), { token: sunrise, body: { permission: null } });
    assert.ok((await detailAs(basic, BASIC)).json.events_data.length > 0, 'no role in force: nothing narrowed');
  });

  test('permissions_role takes role_type, title and a JSON string of project areas with 0/1 values; anything else is 400', async () => {
    const attempts: Array<[object, string]> = [
      [{ role_type: 1, title: 'x', permissions: '{not json' }, 'permissions'],
      [{ role_type: 1, title: 'x', permissions: JSON.stringify({ project: { roof: { view: 1 } } }) }, 'permissions'],
      [{ role_type: 1, title: 'x', permissions: JSON.stringify({ project: { design: { view: 2 } } }) }, 'permissions'],
      [{ role_type: 1, title: 'x', permissions: JSON.stringify({ project: { design: { print: 1 } } }) }, 'permissions'],
      [{ role_type: 1, title: 'x', permissions: JSON.stringify({ contacts: {} }) }, 'permissions'],
      [{ role_type: 7, title: 'x', permissions: JSON.stringify({ project: {} }) }, 'role_type'],
      [{ role_type: 1, permissions: JSON.stringify({ project: {} }) }, 'title'],
    ];
    for (const [body, field] of attempts) {
      const response = await server.request('POST', apiPaths.permissionsRoles(SUNRISE), { token: sunrise, body });
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.ok(response.json[field], `${JSON.stringify(body)} -> ${response.text}`);
    }
    const subArea = await server.request('POST', apiPaths.permissionsRoles(SUNRISE), {
      token: sunrise,
      body: { role_type: 1, title: 'Design only', permissions: JSON.stringify({ project: { design_panels: { view: 1, create: 0, edit: 0, delete: 0 } } }) },
    });
    assert.equal(subArea.status, 201, 'design_* sub-areas are areas');
    const custom = await server.request('POST', apiPaths.permissionsRoles(SUNRISE), { token: sunrise, body: { role_type: 0, title: 'Custom', permissions: JSON.stringify({ project: {} }) } });
    assert.equal(custom.status, 201);
    const refused = await share([{ org_id: BASIC, permission: custom.json.url }]);
    assert.equal(refused.status, 400, 'an ordinary custom role is not a Teams role');
    const listed = (await server.request('GET', apiPaths.permissionsRoles(SUNRISE), { token: sunrise })).json as Array<{ title: string }>;
    assert.ok(listed.some((row) => row.title === 'Design only'));
    assert.equal((await server.request('POST', apiPaths.permissionsRoles(SUNRISE), { token: await server.tokenFor(DEMO_USERS.sunriseMember), body: { role_type: 1, title: 'm', permissions: '{"project":{}}' } })).status, 403);
  });

  test('a shared project changed by its owner goes to the owner org\'s webhooks only', async () => {
    const { db } = server.engine.context;
    const basicHook = await server.request('POST', apiPaths.webhooks(BASIC), { token: basic, body: { endpoint: 'https://hooks.example.invalid/basic', enabled: true, debug: false } });
    assert.equal(basicHook.status, 201, basicHook.text);
    const sunriseHook = await server.request('POST', apiPaths.webhooks(SUNRISE), { token: sunrise, body: { endpoint: 'https://hooks.example.invalid/sunrise', enabled: true, debug: false } });
    assert.equal((await server.request('PATCH', apiPaths.project(SUNRISE, projectId), { token: sunrise, body: { notes: 'owner edit for hooks' } })).status, 200);
    const deliveries = async (webhookId: number) => (await db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', webhookId).execute()).length;
    assert.ok((await deliveries(sunriseHook.json.id)) > 0, "the owner's webhook hears it");
    assert.equal(await deliveries(basicHook.json.id), 0, "the partner's does not");
    await db.updateTable('webhooks').set({ enabled: 0 }).execute();
  });

  test("the partner's change feed hears of the shared project appearing, changing and disappearing", async () => {
    const start = await headOf(basic, BASIC);
    assert.equal((await share([{ org_id: BASIC, is_shared: false }])).status, 200);
    await waitForFeed(basic, BASIC, start, 'delete');
    const shown = await headOf(basic, BASIC);
    assert.equal((await share([{ org_id: BASIC }])).status, 200);
    await waitForFeed(basic, BASIC, shown, 'update');
    const edited = await headOf(basic, BASIC);
    assert.equal((await server.request('PATCH', apiPaths.project(SUNRISE, projectId), { token: sunrise, body: { notes: 'owner edit' } })).status, 200);
    await waitForFeed(basic, BASIC, edited, 'update');
    assert.equal((await detailAs(basic, BASIC)).json.notes, 'owner edit');
  });

  test('is_shared false hides the project again; disabling the connection pauses sharing both ways', async () => {
    assert.equal((await share([{ org_id: BASIC, is_shared: false }])).status, 200);
    assert.deepEqual((await detailAs(sunrise, SUNRISE)).json.shared_with, [{ org_id: BASIC, permission: null, is_shared: false }]);
    assert.equal((await detailAs(basic, BASIC)).status, 404);
    assert.equal((await share([{ org_id: BASIC }])).status, 200);
    assert.equal((await detailAs(basic, BASIC)).status, 200);
    const [basicSide] = (await server.request('GET', apiPaths.connectedOrgs(BASIC), { token: basic })).json;
    const start = await headOf(basic, BASIC);
    await server.request('PATCH', apiPaths.connectedOrg(BASIC, basicSide.id), { token: basic, body: { is_active: false } });
    assert.equal((await detailAs(basic, BASIC)).status, 404, "the partner's own side disabled: paused");
    await waitForFeed(basic, BASIC, start, 'delete');
    await server.request('PATCH', apiPaths.connectedOrg(BASIC, basicSide.id), { token: basic, body: { is_active: true } });
    assert.equal((await detailAs(basic, BASIC)).status, 200, 'enabled again: shown again');
  });

  test('bulk entity sharing stores share_with_ids/unshare_with_ids for the documented entity types, validated', async () => {
    const path = apiPaths.bulkShare(SUNRISE, 'pricing_schemes');
    const shared = await server.request('PUT', path, { token: sunrise, body: { share_with_ids: [BASIC], resource: 'pricing_schemes', ids: [11, 12] } });
    assert.equal(shared.status, 200, shared.text);
    assert.deepEqual(shared.json.shared_with, { 11: [BASIC], 12: [BASIC] });
    const unshared = await server.request('PUT', path, { token: sunrise, body: { unshare_with_ids: [BASIC], resource: 'pricing_schemes', ids: [12] } });
    assert.deepEqual(unshared.json.shared_with, { 12: [] });
    const bad = [
      [path, { share_with_ids: [BASIC], resource: 'costings', ids: [1] }, 'resource'],
      [path, { share_with_ids: [stranger.id], resource: 'pricing_schemes', ids: [1] }, 'share_with_ids'],
      [path, { share_with_ids: [BASIC], resource: 'pricing_schemes', ids: [] }, 'ids'],
      [path, { resource: 'pricing_schemes', ids: [1] }, 'non_field_errors'],
    ] as const;
    for (const [url, body, field] of bad) {
      const response = await server.request('PUT', url, { token: sunrise, body });
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.ok(response.json[field], response.text);
    }
    assert.equal((await server.request('PUT', apiPaths.bulkShare(SUNRISE, 'spaceships'), { token: sunrise, body: { share_with_ids: [BASIC], resource: 'spaceships', ids: [1] } })).status, 404);
    const member = await server.tokenFor(DEMO_USERS.sunriseMember);
    assert.equal((await server.request('PUT', path, { token: member, body: { share_with_ids: [BASIC], resource: 'pricing_schemes', ids: [1] } })).status, 403);
  });

  test("bulk sharing of actions shows in the workflow stage actions' share_with_orgs; an action of no workflow of the org is 400", async () => {
    const [workflow] = (await server.request('GET', `${apiPaths.workflows(SUNRISE)}?is_default=true`, { token: sunrise })).json;
    workflow.workflow_stages[0].actions.push({ id: `newAction-${workflow.workflow_stages[0].actions.length}`, title: 'Shared checklist' });
    const put = await server.request('PUT', apiPaths.workflow(SUNRISE, workflow.id), { token: sunrise, body: { title: workflow.title, workflow_stages: workflow.workflow_stages } });
    assert.equal(put.status, 200, put.text);
    const action = put.json.workflow_stages[0].actions.find((candidate: { title: string }) => candidate.title === 'Shared checklist');
    assert.deepEqual(action.share_with_orgs, []);
    const path = apiPaths.bulkShare(SUNRISE, 'actions');
    const shared = await server.request('PUT', path, { token: sunrise, body: { share_with_ids: [BASIC], resource: 'actions', ids: [action.id] } });
    assert.equal(shared.status, 200, shared.text);
    const after = (await server.request('GET', apiPaths.workflow(SUNRISE, workflow.id), { token: sunrise })).json;
    const sharedAction = after.workflow_stages[0].actions.find((candidate: { id: number }) => candidate.id === action.id);
    assert.deepEqual(sharedAction.share_with_orgs, [`${server.baseUrl}${apiPaths.org(BASIC)}`]);
    const foreign = await server.request('PUT', path, { token: sunrise, body: { share_with_ids: [BASIC], resource: 'actions', ids: [999_999] } });
    assert.equal(foreign.status, 400, foreign.text);
    assert.ok(foreign.json.ids, foreign.text);
  });

  test('deleting the connection hides the project and removes every sharing setting', async () => {
    const start = await headOf(basic, BASIC);
    assert.equal((await server.request('DELETE', apiPaths.connectedOrg(SUNRISE, sunriseSide), { token: sunrise })).status, 204);
    assert.equal((await detailAs(basic, BASIC)).status, 404);
    assert.ok(!(await listIds(basic, BASIC)).includes(projectId));
    assert.deepEqual((await detailAs(sunrise, SUNRISE)).json.shared_with, [], "the owner's shared_with is empty");
    const { db } = server.engine.context;
    assert.deepEqual(await db.selectFrom('entity_shares').selectAll().where('org_id', '=', SUNRISE).execute(), []);
    await waitForFeed(basic, BASIC, start, 'delete');
  });
});
