// Proposal data, GET /api/user_logins/?project_ids=... (facts section 12, hosted docs:
// Proposal Data; API Access FAQs; Throttle Limits), one test per documented behaviour,
// on a real engine over HTTP. Sunrise Solar (org 1) has Raw Data API Access, Basic
// Solar (org 2) API Access, Lapsed Solar (org 3) a trial that ended. Nothing is faked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo-seed.ts';
import { createUser } from '../auth/accounts.ts';
import { setPlan } from '../orgs/org-service.ts';
import { generateDesign } from '../seed/project-design.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { decodeDesign, encodeDesign } from '../../../shared/design-codec.ts';
import type { ProjectDesign } from '../../../shared/design-types.ts';
import { DEFAULT_THROTTLE_RATES } from '../../../shared/throttle-rates.ts';
import { proposalDataResponseSchema, type ProposalOrgJson } from '../../../shared/schemas/proposal-data.ts';

// The member holds a role on project 1 of Sunrise Solar, not on project 2 (demo data).
const VISIBLE_TO_MEMBER = 1;
const HIDDEN_FROM_MEMBER = 2;

async function firstProjectOf(server: TestServer, orgId: number): Promise<number> {
  const row = await server.engine.context.db.selectFrom('projects').select('id').where('org_id', '=', orgId).orderBy('id').executeTakeFirstOrThrow();
  return row.id;
}

describe('proposal data: GET /api/user_logins/', () => {
  let server: TestServer;
  let admin: string;
  let customer: string;
  let customerUserId: number;
  /** A project of Sunrise Solar with the customer's email as a contact. */
  let customerProject: number;

  before(async () => {
    server = await startTestServer();
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    // A customer: a user with a login who is a member of no org, and a contact (by email) on one project.
    const user = await createUser(server.engine.context.db, server.engine.context.clock, { email: 'customer@proposal.example', password: DEMO_PASSWORD });
    customerUserId = user.id;
    customer = await server.tokenFor('customer@proposal.example');
    customerProject = 5;
    const attached = await server.request('PATCH', apiPaths.project(1, customerProject), {
      token: admin,
      body: { contacts_new: [{ first_name: 'Casey', family_name: 'Customer', email: 'Customer@Proposal.example' }] },
    });
    assert.equal(attached.status, 200, attached.text);
  });
  after(() => server.close());

  const get = (token: string | undefined, query: string) => server.request('GET', `${apiPaths.userLogins()}?${query}`, { token });

  test('a Pro member who may see the project gets an array of org objects, each with its projects and their proposal data', async () => {
    const response = await get(admin, `project_ids=${VISIBLE_TO_MEMBER}`);
    assert.equal(response.status, 200, response.text);
    const orgs = proposalDataResponseSchema.parse(response.json);
    assert.equal(orgs.length, 1);
    const org = orgs[0]!;
    assert.equal(org.id, 1);
    assert.equal(org.name, 'Sunrise Solar');
    assert.equal(org.url, `${server.baseUrl}${apiPaths.org(1)}`);
    assert.equal(org.country_iso2, 'AU');
    assert.match(org.user, /\/api\/global_users\/\d+\/$/);
    assert.equal(org.logo_public_url, null);
    const project = org.projects[0]!;
    assert.equal(project.id, VISIBLE_TO_MEMBER);
    assert.equal(project.url, `${server.baseUrl}${apiPaths.project(1, VISIBLE_TO_MEMBER)}`);
    for (const field of ['identifier', 'address', 'locality', 'state', 'zip', 'contacts', 'assigned_role', 'usage', 'system_sold', 'payment_option_sold',
      'testimonials', 'available_customer_actions', 'change_orders', 'custom_data', 'proposal_data']) {
      assert.ok(field in project, `project field ${field}`);
    }
    // The proposal payload is the design's: each system's price, output and payment options.
    const detail = await server.request('GET', apiPaths.project(1, VISIBLE_TO_MEMBER), { token: admin });
    const design = decodeDesign<ProjectDesign>(detail.json.design);
    const data = project.proposal_data as Exclude<typeof project.proposal_data, string>;
    const shown = design.systems.some((system) => system.is_sold) ? design.systems.filter((system) => system.is_sold) : design.systems;
    assert.deepEqual(data.systems.map((system) => system.uuid), shown.map((system) => system.uuid));
    const [first, designed] = [data.systems[0]!, shown[0]!];
    assert.equal(first.price_including_tax, designed.pricing.system_price_including_tax);
    assert.equal(first.output.annual_kwh, designed.output.annual_kwh);
    assert.deepEqual(first.payment_options.map((option) => option.title), designed.payment_options.map((option) => option.title));
    assert.deepEqual(first.payment_options[0]!.cash_flows, designed.payment_options[0]!.cash_flows);
  });

  test('several projects of several orgs: one org object each, in the order first named, its projects in the order named, a repeated id once', async () => {
    // The customer is also a contact on a Basic Solar project, and Basic Solar moves to Raw Data API Access for this test.
    const { db, clock } = server.engine.context;
    const basicProject = await firstProjectOf(server, 2);
    const basicAdmin = await server.tokenFor(DEMO_USERS.basicAdmin);
    const attached = await server.request('PATCH', apiPaths.project(2, basicProject), {
      token: basicAdmin,
      body: { contacts_new: [{ first_name: 'Casey', email: 'customer@proposal.example' }] },
    });
    assert.equal(attached.status, 200, attached.text);
    const before = await db.selectFrom('orgs').selectAll().where('id', '=', 2).executeTakeFirstOrThrow();
    await setPlan(db, clock, 2, { plan: 'raw_data_api_access' });
    try {
      const response = await get(customer, `project_ids=${basicProject},${customerProject},${basicProject}`);
      assert.equal(response.status, 200, response.text);
      const orgs = response.json as ProposalOrgJson[];
      assert.deepEqual(orgs.map((org) => [org.id, org.projects.map((project) => project.id)]), [[2, [basicProject]], [1, [customerProject]]]);
      assert.equal(orgs[0]!.country_iso2, 'US');
    } finally {
      await db.updateTable('orgs').set({ api_plan: before.api_plan, plan_starts_on: before.plan_starts_on, plan_ends_on: before.plan_ends_on }).where('id', '=', 2).execute();
    }
  });

  test('a customer contact on the project (a user whose login is the contact\'s email) gets its proposal data', async () => {
    const response = await get(customer, `project_ids=${customerProject}`);
    assert.equal(response.status, 200, response.text);
    const project = (response.json as ProposalOrgJson[])[0]!.projects[0]!;
    assert.equal(project.id, customerProject);
    assert.ok(project.contacts.some((contact) => contact.email === 'Customer@Proposal.example'));
    assert.equal(project.customer_proposal_data?.has_contacts_active_with_login, true);
    assert.equal((response.json as ProposalOrgJson[])[0]!.user, `${server.baseUrl}${apiPaths.globalUser(customerUserId)}`);
    // A contact on one project is no customer of another.
    assert.equal((await get(customer, `project_ids=${customerProject},1`)).status, 403);
  });

  test('a caller who cannot reach every project named gets 403, whichever one it is', async () => {
    const member = await server.tokenFor(DEMO_USERS.sunriseMember);
    const viewer = await server.tokenFor(DEMO_USERS.sunriseViewer);
    const basicAdmin = await server.tokenFor(DEMO_USERS.basicAdmin);
    assert.equal((await get(member, `project_ids=${VISIBLE_TO_MEMBER}`)).status, 200, 'the member reaches a project assigned to them');
    const hidden = await get(member, `project_ids=${VISIBLE_TO_MEMBER},${HIDDEN_FROM_MEMBER}`);
    assert.equal(hidden.status, 403);
    assert.match(hidden.json.detail, new RegExp(`project ${HIDDEN_FROM_MEMBER}\\b`));
    const notPro = await get(viewer, `project_ids=${VISIBLE_TO_MEMBER}`);
    assert.equal(notPro.status, 403, 'the viewer sees every project but is not Pro');
    assert.match(notPro.json.detail, /Pro/);
    const foreign = await get(basicAdmin, `project_ids=${VISIBLE_TO_MEMBER}`);
    assert.equal(foreign.status, 403);
    assert.doesNotMatch(foreign.text, /Sunrise/, 'the answer tells nothing of the other org');
  });

  test('projects of an org without Raw Data API Access get 402 with what to do', async () => {
    const basicAdmin = await server.tokenFor(DEMO_USERS.basicAdmin);
    const response = await get(basicAdmin, `project_ids=${await firstProjectOf(server, 2)}`);
    assert.equal(response.status, 402, response.text);
    assert.match(response.json.detail, /Raw Data API Access/);
    assert.match(response.json.detail, /API Access/);
  });

  test('projects of an org whose plan has ended get 403 saying so', async () => {
    const lapsedAdmin = await server.tokenFor(DEMO_USERS.lapsedAdmin);
    const response = await get(lapsedAdmin, `project_ids=${await firstProjectOf(server, 3)}`);
    assert.equal(response.status, 403, response.text);
    assert.match(response.json.detail, /ended on/);
  });

  test('unknown or malformed project_ids, and malformed options, get 400 naming the problem', async () => {
    const unknown = await get(admin, 'project_ids=1,999999');
    assert.equal(unknown.status, 400);
    assert.match(unknown.json.project_ids[0], /999999/);
    for (const query of ['', 'project_ids=', 'project_ids=1,abc', 'project_ids=-1', 'project_ids=1;2', 'project_ids=0']) {
      const response = await get(admin, query);
      assert.equal(response.status, 400, `${query}: ${response.text}`);
      assert.ok(Array.isArray(response.json.project_ids), `${query}: a project_ids error`);
    }
    for (const [name, value] of [['expo_enabled', 'maybe'], ['compress_data', 'yes please'], ['include_unsold', '2'], ['language', 'English!']]) {
      const response = await get(admin, `project_ids=1&${name}=${encodeURIComponent(value!)}`);
      assert.equal(response.status, 400, `${name}=${value}: ${response.text}`);
      assert.ok(name! in response.json, `${name}: its own error`);
    }
    assert.equal((await get(admin, 'project_ids=1&expo_enabled=true&include_unsold=false&language=en-AU')).status, 200);
  });

  test('without a valid token the answer is 401, before anything else', async () => {
    assert.equal((await get(undefined, 'project_ids=1')).status, 401);
    assert.equal((await get(undefined, 'project_ids=abc')).status, 401);
    assert.equal((await get('not-a-token', 'project_ids=1')).status, 401);
  });

  test('include_unsold: a sold project shows its sold system only, unless include_unsold=true', async () => {
    const design = generateDesign(77, { systems: 3 });
    design.systems.forEach((system, index) => (system.is_sold = index === 1));
    await server.engine.context.db.updateTable('projects').set({ design: encodeDesign(design) }).where('id', '=', 7).execute();
    const soldOnly = (await get(admin, 'project_ids=7')).json as ProposalOrgJson[];
    const systemsOf = (orgs: ProposalOrgJson[]) => (orgs[0]!.projects[0]!.proposal_data as { systems: Array<{ uuid: string }> }).systems.map((system) => system.uuid);
    assert.deepEqual(systemsOf(soldOnly), [design.systems[1]!.uuid]);
    const every = (await get(admin, 'project_ids=7&include_unsold=true')).json as ProposalOrgJson[];
    assert.deepEqual(systemsOf(every), design.systems.map((system) => system.uuid));
    design.systems.forEach((system) => (system.is_sold = false));
    await server.engine.context.db.updateTable('projects').set({ design: encodeDesign(design) }).where('id', '=', 7).execute();
    assert.equal(systemsOf((await get(admin, 'project_ids=7')).json).length, 3, 'before a sale the customer sees every system');
  });

  test('compress_data=true sends proposal_data as base64 of gzipped JSON, the same data', async () => {
    const plain = (await get(admin, 'project_ids=1')).json as ProposalOrgJson[];
    const compressed = (await get(admin, 'project_ids=1&compress_data=true')).json as ProposalOrgJson[];
    const packed = compressed[0]!.projects[0]!.proposal_data;
    assert.equal(typeof packed, 'string');
    assert.deepEqual(JSON.parse(gunzipSync(Buffer.from(packed as string, 'base64')).toString('utf8')), plain[0]!.projects[0]!.proposal_data);
  });

  test("language: the query's, else the project's language, else en", async () => {
    const languageOf = async (query: string) => ((await get(admin, query)).json as Array<{ projects: Array<{ proposal_data: { language: string } }> }>)[0]!.projects[0]!.proposal_data.language;
    assert.equal(await languageOf('project_ids=9'), 'en');
    assert.equal((await server.request('PATCH', apiPaths.project(1, 9), { token: admin, body: { language: 'de' } })).status, 200);
    assert.equal(await languageOf('project_ids=9'), 'de');
    assert.equal(await languageOf('project_ids=9&language=fr'), 'fr');
  });
});

describe('proposal data: throttles', () => {
  test('the documented quotas: 100 a minute per user, 10,000 a day per org', () => {
    assert.deepEqual({ ...DEFAULT_THROTTLE_RATES.proposal_data }, { user: '100/min', org: '10000/day' });
  });

  test('requests count per user and per org: over either, 429 with Retry-After', async () => {
    const server = await startTestServer({ throttleRates: { proposal_data: { user: '3/min', org: '5/day' } } });
    try {
      const admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const member = await server.tokenFor(DEMO_USERS.sunriseMember);
      const get = (token: string) => server.request('GET', apiPaths.userLogins([1]), { token });
      for (let i = 0; i < 3; i++) assert.equal((await get(admin)).status, 200);
      const overUser = await get(admin);
      assert.equal(overUser.status, 429);
      assert.ok(Number(overUser.headers.get('retry-after')) > 0);
      assert.match(overUser.json.detail, /throttled/);
      // Another user of the same org still has their own minute, until the org's day runs out.
      assert.equal((await get(member)).status, 200);
      assert.equal((await get(member)).status, 200);
      const overOrg = await get(member);
      assert.equal(overOrg.status, 429, 'the org has used its 5 of the day');
      assert.ok(Number(overOrg.headers.get('retry-after')) > 60, 'the day quota, not the minute');
    } finally {
      await server.close();
    }
  });
});
