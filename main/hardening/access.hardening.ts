// Access: every route of the OpenAPI document against every demo user (admin,
// member and viewer of Sunrise Solar, the admin of Basic Solar, the admin of
// Lapsed Solar whose trial ended), no token, a bad token and malformed headers;
// in the user's own org, in a foreign org, in an org that does not exist, and
// with another org's record ids. Each answer must be the expected status, and no
// answer may carry another org's data (names, project titles and addresses,
// contact and user emails, file titles, webhook endpoints). Then the signed
// download link, tampered with in each of its parts.
import { withLastCharacterChanged } from '../engine/testing/tamper.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fillPath, listOperations, operationName, type ApiOperation } from './api-routes.ts';
import { sendChecked } from './checks.ts';
import { RecordMaker, multipartBytes, pathValues, type OrgRecords } from './fixtures.ts';
import { NO_QUOTAS, jsonRequest, startHardeningServer, type DemoUser, type HardeningServer, type RawRequest, type RawResponse } from './hardening-server.ts';
import { StoreInspector } from './store-inspector.ts';
import { newTally, reportTally } from './summary.ts';
import { apiPaths } from '../../shared/api-paths.ts';

const tally = newTally('access');

type Role = 'admin' | 'member' | 'viewer';
const ORG_NAMES: Record<number, string> = { 1: 'Sunrise Solar', 2: 'Basic Solar', 3: 'Lapsed Solar' };

/** A demo user, or a caller with no (usable) token. */
interface Principal {
  name: string;
  authorization?: string;
  user?: DemoUser;
  home: 1 | 2 | 3 | null;
  role?: Role;
}

interface Home {
  org: 1 | 2;
  records: OrgRecords;
  maker: RecordMaker;
  /** The other org a connection request from this org goes to. */
  other: 1 | 2;
}

/** What a route needs beyond its path, and what each role of the org should get. */
interface RouteRule {
  expect: Record<Role, number>;
  body?: (home: Home) => unknown;
  multipart?: boolean;
  rawBody?: Buffer;
  query?: string;
  /** Records the request uses up (deleted, completed): made fresh for it. */
  fresh?: (home: Home) => Promise<Record<string, string>>;
  /** Put the org in the state the request needs (run as the org's admin). */
  prepare?: (home: Home, server: HardeningServer) => Promise<void>;
}

const all = (status: number): Record<Role, number> => ({ admin: status, member: status, viewer: status });
/** The member holds no role on the org's fixture project. */
const projectRule = (status: number): Record<Role, number> => ({ admin: status, member: 403, viewer: status });
const adminOnly = (status: number): Record<Role, number> => ({ admin: status, member: 403, viewer: 403 });
/** Private files are for Pro users; the viewer is not Pro. The fixture file is the admin's, on no project. */
const proOnly = (status: number): Record<Role, number> => ({ admin: status, member: status, viewer: 403 });
let tagCount = 0;

const ORG_ROUTES: Record<string, RouteRule> = {
  'GET /api/orgs/{org_id}/': { expect: all(200) },
  // Workflows (docs/http-api.md "Workflows"): every role reads them; only admins write.
  'GET /api/orgs/{org_id}/workflows/': { expect: all(200), query: 'is_default=false&is_archived=false' },
  'POST /api/orgs/{org_id}/workflows/': { expect: adminOnly(201), body: () => ({ title: 'Access matrix workflow', description: 'access matrix' }) },
  'GET /api/orgs/{org_id}/workflows/{id}/': { expect: all(200) },
  // New stages only: the fixture workflow's old ones (no project at them) are removed.
  'PUT /api/orgs/{org_id}/workflows/{id}/': {
    expect: adminOnly(200),
    body: () => ({ title: 'Access matrix workflow', workflow_stages: [{ title: 'Access', milestone: 0, actions: [{ id: 'newAction-0', title: 'Call' }] }] }),
  },
  'DELETE /api/orgs/{org_id}/workflows/{id}/': { expect: adminOnly(204), fresh: async (home) => ({ id: await home.maker.make('workflow') }) },
  // hosted docs: Orgs. Only admins rename the org; the name is put back as it was (the matrix checks names).
  'PUT /api/orgs/{org_id}/': { expect: adminOnly(200), body: (home) => ({ name: ORG_NAMES[home.org] }) },
  'GET /api/orgs/{org_id}/projects/': { expect: all(200) },
  'POST /api/orgs/{org_id}/projects/': { expect: all(201), body: () => ({ title: 'Access matrix project' }) },
  'GET /api/orgs/{org_id}/projects/{id}/': { expect: projectRule(200) },
  'PATCH /api/orgs/{org_id}/projects/{id}/': { expect: projectRule(200), body: () => ({ notes: 'access matrix' }) },
  'PUT /api/orgs/{org_id}/projects/{id}/': { expect: projectRule(200), body: () => ({ notes: 'access matrix put' }) },
  'DELETE /api/orgs/{org_id}/projects/{id}/': { expect: projectRule(204), fresh: async (home) => ({ id: await home.maker.make('project') }) },
  // SolarDesk extension (issue 25, item 5): whoever may edit the project revokes its share links.
  'POST /api/orgs/{org_id}/projects/{id}/share_link/revoke/': { expect: projectRule(200) },
  'GET /api/orgs/{org_id}/contacts/': { expect: all(200) },
  'POST /api/orgs/{org_id}/contacts/': { expect: all(201), body: () => ({ first_name: 'Access' }) },
  // Contacts follow project visibility (docs/access.md): the fixture contact is the admin's, on no project.
  'GET /api/orgs/{org_id}/contacts/{id}/': { expect: projectRule(200) },
  'PATCH /api/orgs/{org_id}/contacts/{id}/': { expect: projectRule(200), body: () => ({ phone: '+61 400 000 000' }) },
  // hosted-docs-facts.md 6: PUT is the documented update; the same rule as PATCH.
  'PUT /api/orgs/{org_id}/contacts/{id}/': { expect: projectRule(200), body: () => ({ phone: '+61 400 000 001' }) },
  'DELETE /api/orgs/{org_id}/contacts/{id}/': { expect: projectRule(204), fresh: async (home) => ({ id: await home.maker.make('contact') }) },
  'GET /api/orgs/{org_id}/roles/': { expect: all(200) },
  'GET /api/orgs/{org_id}/roles/{id}/': { expect: all(200) },
  // The target is the admin's own role: only the admin (or that person) may change it.
  'PATCH /api/orgs/{org_id}/roles/{id}/': { expect: adminOnly(200), body: () => ({ job_title: 'Access matrix' }) },
  'GET /api/orgs/{org_id}/projects/{id}/systems/details/': { expect: projectRule(200) },
  'GET /api/orgs/{org_id}/projects/{id}/systems/{uuid}/image/': { expect: projectRule(200), query: 'width=64&height=48' },
  // Generated documents (issue 29): whoever sees the project makes one; keeping it (action=save)
  // makes a private file, which is for Pro users (the viewer is not). Made once per org: 201.
  'POST /api/orgs/{org_id}/projects/{id}/generate_document/{document_type}/': { expect: { admin: 201, member: 403, viewer: 403 }, query: 'action=save' },
  'POST /api/orgs/{org_id}/projects/{id}/generate_document_pdf/{document_type}/': { expect: projectRule(200) },
  // Which saved documents are stale: whoever sees the project asks (a viewer sees no files: an empty list).
  'GET /api/orgs/{org_id}/projects/{id}/generated_documents/': { expect: projectRule(200) },
  // Org document templates (issue 29, SolarDesk extension): every role reads them, admins write.
  'GET /api/orgs/{org_id}/document_templates/': { expect: all(200) },
  'POST /api/orgs/{org_id}/document_templates/': { expect: adminOnly(201), body: () => ({ document_type: 'global_bom', title: 'Access matrix bill of materials' }) },
  'GET /api/orgs/{org_id}/document_templates/{id}/': { expect: all(200) },
  'PATCH /api/orgs/{org_id}/document_templates/{id}/': { expect: adminOnly(200), body: () => ({ intro_text: 'Dear {customer_name},' }) },
  'DELETE /api/orgs/{org_id}/document_templates/{id}/': { expect: adminOnly(204), fresh: async (home) => ({ id: await home.maker.make('documentTemplate') }) },
  // The systems resource: every role lists (each sees its projects' systems); the fixture system's project is hidden from the member.
  'GET /api/orgs/{org_id}/systems/': { expect: all(200), query: 'fieldset=list' },
  'GET /api/orgs/{org_id}/systems/{id}/': { expect: projectRule(200), query: 'fieldset=list' },
  // Connected orgs (facts section 4): everyone reads, admins set up and change. No connection is ever
  // accepted here, so no project is ever shared across the two orgs (the leak checks stay meaningful).
  'GET /api/orgs/{org_id}/connected_orgs/': { expect: all(200) },
  'POST /api/orgs/{org_id}/connected_orgs/': {
    expect: adminOnly(201),
    body: (home) => ({ org_name: ORG_NAMES[home.other] }),
    // Any request between the two orgs is withdrawn first, so a new one may be made.
    prepare: (home) => home.maker.withdrawConnection(ORG_NAMES[home.other]!),
  },
  'GET /api/orgs/{org_id}/connected_orgs/pending/': { expect: all(200) },
  // Lapsed Solar never asked anyone: the admin passes the access check and gets the 400 that says so.
  'POST /api/orgs/{org_id}/connected_orgs/accept_connection/': { expect: adminOnly(400), body: () => ({ org_to_id: 3 }) },
  'GET /api/orgs/{org_id}/connected_orgs/{id}/': { expect: all(200) },
  'PATCH /api/orgs/{org_id}/connected_orgs/{id}/': { expect: adminOnly(200), body: () => ({ is_active: true }) },
  'DELETE /api/orgs/{org_id}/connected_orgs/{id}/': { expect: adminOnly(204), fresh: async (home) => ({ id: await home.maker.askPartner(ORG_NAMES[home.other]!) }) },
  'GET /api/orgs/{org_id}/permissions_role/': { expect: all(200) },
  'POST /api/orgs/{org_id}/permissions_role/': {
    expect: adminOnly(201),
    body: () => ({ role_type: 1, title: 'Access matrix partners', permissions: JSON.stringify({ project: { project: { view: 1, create: 0, edit: 0, delete: 0 } } }) }),
  },
  'GET /api/orgs/{org_id}/permissions_role/{id}/': { expect: all(200) },
  // Unsharing needs no connection (sharing does, and the fixtures have none): the admin's is a 200.
  'PUT /api/orgs/{org_id}/bulk/{entity_type}/': { expect: adminOnly(200), body: (home) => ({ unshare_with_ids: [home.other], resource: 'pricing_schemes', ids: [1] }) },
  'GET /api/orgs/{org_id}/events/': { expect: all(200) },
  'POST /api/orgs/{org_id}/events/': { expect: projectRule(201), body: (home) => ({ title: 'Access matrix note', project: home.records.project }) },
  'GET /api/orgs/{org_id}/events/{id}/': { expect: projectRule(200) },
  // The schedule (issue 27): an event is changed by whoever may see its project; the fixture event is on the fixture project.
  'PATCH /api/orgs/{org_id}/events/{id}/': { expect: projectRule(200), body: () => ({ is_complete: true }) },
  'PUT /api/orgs/{org_id}/events/{id}/': { expect: projectRule(200), body: () => ({ title: 'Access matrix visit', start: '2027-01-04T09:00:00Z' }) },
  'DELETE /api/orgs/{org_id}/events/{id}/': { expect: projectRule(204), fresh: async (home) => ({ id: await home.maker.make('event', home.records.project) }) },
  // The event as .ics (issue 27): the event's own access; the fixture event has a start.
  'GET /api/orgs/{org_id}/events/{id}/ics/': { expect: projectRule(200) },
  // Each person manages their own schedule feed in the org: every role may.
  'GET /api/orgs/{org_id}/calendar_feed/': { expect: all(200) },
  'POST /api/orgs/{org_id}/calendar_feed/': { expect: all(201) },
  'DELETE /api/orgs/{org_id}/calendar_feed/': { expect: all(204) },
  'GET /api/orgs/{org_id}/webhooks/': { expect: adminOnly(200) },
  'POST /api/orgs/{org_id}/webhooks/': { expect: adminOnly(201), body: () => ({ endpoint: 'https://hooks.example.invalid/access', enabled: false, debug: false }) },
  'GET /api/orgs/{org_id}/webhooks/{id}/': { expect: adminOnly(200) },
  'PATCH /api/orgs/{org_id}/webhooks/{id}/': { expect: adminOnly(200), body: () => ({ enabled: false }) },
  'DELETE /api/orgs/{org_id}/webhooks/{id}/': { expect: adminOnly(204), fresh: async (home) => ({ id: await home.maker.make('webhook') }) },
  'GET /api/orgs/{org_id}/webhook_process_logs/': { expect: adminOnly(200) },
  // hosted docs: Webhooks Logs, Webhooks Queue: admin-only like every webhook route.
  'GET /api/orgs/{org_id}/webhook_process_logs/{id}/': { expect: adminOnly(200) },
  'GET /api/orgs/{org_id}/webhook_queue_models/': { expect: adminOnly(200) },
  'GET /api/orgs/{org_id}/webhook_queue_models/{id}/': { expect: adminOnly(200) },
  // SolarDesk's webhook set-up extension: admin-only like every webhook route.
  'POST /api/orgs/{org_id}/webhooks/{id}/test/': { expect: adminOnly(200) },
  'GET /api/orgs/{org_id}/webhook_process_logs/{id}/payload/': { expect: adminOnly(200) },
  'POST /api/orgs/{org_id}/webhook_process_logs/{id}/redeliver/': { expect: adminOnly(202) },
  // The change feed (docs/http-api.md "Change feed"): every role of the org reads it; each
  // sees only changes to records it may see (checked in the matrix below). The list from
  // cursor 0, so the answer holds changes; the stream is read up to its headers, then closed.
  'GET /api/orgs/{org_id}/changes/': { expect: all(200), query: 'after=0&limit=1000' },
  'GET /api/orgs/{org_id}/changes/stream/': { expect: all(200) },
  'GET /api/orgs/{org_id}/private_files/': { expect: proOnly(200) },
  'POST /api/orgs/{org_id}/private_files/': { expect: proOnly(201), multipart: true },
  'GET /api/orgs/{org_id}/private_files/{id}/': { expect: adminOnly(200) },
  'PATCH /api/orgs/{org_id}/private_files/{id}/': { expect: adminOnly(200), body: () => ({ title: 'Access matrix file' }) },
  'DELETE /api/orgs/{org_id}/private_files/{id}/': { expect: adminOnly(204), fresh: async (home) => ({ id: await home.maker.make('file') }) },
  // SolarDesk's contents and versions extension: access as for PATCH of the file.
  'PUT /api/orgs/{org_id}/private_files/{id}/contents/': { expect: adminOnly(200), multipart: true },
  'GET /api/orgs/{org_id}/private_files/{id}/versions/': { expect: adminOnly(200) },
  'GET /api/orgs/{org_id}/private_files/{id}/versions/{version_id}/contents/': { expect: adminOnly(200) },
  'POST /api/orgs/{org_id}/private_files/{id}/versions/{version_id}/restore/': { expect: adminOnly(200) },
  'GET /api/orgs/{org_id}/file_tags/': { expect: proOnly(200) },
  'POST /api/orgs/{org_id}/file_tags/': { expect: proOnly(201), body: () => ({ title: `Access tag ${++tagCount}` }) },
  'POST /api/orgs/{org_id}/private_files/uploads/': { expect: proOnly(201), body: () => ({ filename: 'access.bin' }) },
  // Uploads belong to the user who started them: the admin's is the member's 403.
  'GET /api/orgs/{org_id}/private_files/uploads/{upload_id}/': { expect: adminOnly(200) },
  'DELETE /api/orgs/{org_id}/private_files/uploads/{upload_id}/': { expect: adminOnly(204), fresh: async (home) => ({ upload_id: await home.maker.make('openUpload') }) },
  'POST /api/orgs/{org_id}/private_files/uploads/{upload_id}/complete/': { expect: adminOnly(201), fresh: async (home) => ({ upload_id: await home.maker.make('openUpload') }) },
  'PUT /api/orgs/{org_id}/private_files/uploads/{upload_id}/parts/{part}/': {
    expect: adminOnly(200),
    rawBody: Buffer.from('part two'),
    fresh: async (home) => ({ upload_id: await home.maker.make('openUpload'), part: '2' }),
  },
};

/** Routes outside the org scope that need a token: what each signed-in user gets. */
const USER_ROUTES: Record<string, { expect: (principal: Principal) => number; body?: unknown; query?: (homes: Record<1 | 2, Home>) => string }> = {
  'GET /api/fetch_token/': { expect: () => 200 },
  // The target is the Sunrise admin: only they (or an admin of one of their orgs) may change them.
  'PATCH /auth/users/{user_id}/': { expect: (principal) => (principal.user === 'sunriseAdmin' ? 200 : 403), body: { is_machine_user: false } },
  // Reading a user (facts section 15): the same rule, by either URL.
  'GET /auth/users/{user_id}/': { expect: (principal) => (principal.user === 'sunriseAdmin' ? 200 : 403) },
  'GET /api/global_users/{user_id}/': { expect: (principal) => (principal.user === 'sunriseAdmin' ? 200 : 403) },
  // Proposal data of Sunrise's fixture project (facts section 12): only a Pro who may see it. The member holds
  // no role on it, the viewer is not Pro, the other orgs' admins are not members (and no one is its customer contact).
  'GET /api/user_logins/': { expect: (principal) => (principal.user === 'sunriseAdmin' ? 200 : 403), query: (homes) => `project_ids=${homes[1].records.project}` },
};

/** Public routes: the same answer for everyone, whatever Authorization they send. */
const PUBLIC_ROUTES: Record<string, { expect: number; body?: unknown }> = {
  'POST /api-token-auth/': { expect: 400, body: { username: 'nobody@example.com', password: 'not the password' } },
  'GET /api/roof_types/': { expect: 200 },
  'GET /api/roof_types/{id}/': { expect: 200 },
  'GET /api/countries/{country}/': { expect: 200 },
  // A share link without its token (the engine tests show the page with it): 404 for everyone, nothing of the project.
  'GET /share/{id}/': { expect: 404 },
  'GET /shared/projects/{id}/': { expect: 404 },
  // The shared file tag catalogue (facts section 8): public like roof types; tag 1 is a catalogue tag.
  'GET /api/file_tags/': { expect: 200 },
  'GET /api/file_tags/{id}/': { expect: 200 },
  'GET /downloads/private_files/{id}/': { expect: 200 },
  // A schedule feed's secret URL (issue 27) with a secret that names no feed: 404 whatever the Authorization.
  'GET /api/calendar_feeds/{secret}/schedule.ics': { expect: 404 },
};

describe('access: every route, every demo user, no token, a bad token and a foreign org', () => {
  let server: HardeningServer;
  let operations: ApiOperation[];
  const homes = {} as Record<1 | 2, Home>;
  let principals: Principal[];
  /** Per org: text only that org's records hold. */
  let markers: Map<number, string[]>;

  before(async () => {
    server = await startHardeningServer({ throttleRates: NO_QUOTAS });
    const basicProject = await server.request(jsonRequest('GET', '/api/orgs/2/projects/?ordering=id&limit=1', undefined, await server.tokenFor('basicAdmin')));
    for (const [org, admin, project, other] of [[1, 'sunriseAdmin', 2, 2], [2, 'basicAdmin', basicProject.json[0].id as number, 1]] as const) {
      const maker = new RecordMaker(server, admin, org);
      homes[org] = { org, maker, other, records: await maker.makeAll(project) };
    }
    const token = (user: DemoUser) => server.tokenFor(user);
    principals = [
      { name: 'Sunrise admin', user: 'sunriseAdmin', home: 1, role: 'admin', authorization: `Bearer ${await token('sunriseAdmin')}` },
      { name: 'Sunrise member', user: 'sunriseMember', home: 1, role: 'member', authorization: `Bearer ${await token('sunriseMember')}` },
      { name: 'Sunrise viewer', user: 'sunriseViewer', home: 1, role: 'viewer', authorization: `Token ${await token('sunriseViewer')}` },
      { name: 'Basic admin', user: 'basicAdmin', home: 2, role: 'admin', authorization: `Bearer ${await token('basicAdmin')}` },
      { name: 'Lapsed admin', user: 'lapsedAdmin', home: 3, role: 'admin', authorization: `Bearer ${await token('lapsedAdmin')}` },
      { name: 'no token', home: null },
      { name: 'a bad token', home: null, authorization: 'Bearer 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH' },
      { name: '"Bearer undefined"', home: null, authorization: 'Bearer undefined' },
      { name: 'a malformed header', home: null, authorization: `Bearer ${await token('sunriseAdmin')} extra` },
      { name: 'another scheme', home: null, authorization: `Basic ${Buffer.from(`admin@sunrise.example:solardesk-demo`).toString('base64')}` },
    ];
    operations = await listOperations(server);
    markers = orgMarkers(server.dataDir);
  });

  after(async () => {
    const code = await server?.stop();
    if (server) fs.rmSync(path.dirname(server.dataDir), { recursive: true, force: true });
    assert.equal(code, 0);
  });

  /** Strings that belong to exactly one org: its name, projects, contacts, people, files and webhooks. */
  function orgMarkers(dataDir: string): Map<number, string[]> {
    const store = new StoreInspector(dataDir);
    try {
      const texts = new Map<number, string[]>();
      const add = (org: number, ...values: unknown[]) =>
        texts.set(org, [...(texts.get(org) ?? []), ...values.filter((value): value is string => typeof value === 'string' && value.trim().length >= 6)]);
      for (const row of store.all<{ id: number; name: string }>('select id, name from orgs')) add(row.id, row.name);
      for (const row of store.all<{ org_id: number; title: string; address: string }>('select org_id, title, address from projects')) add(row.org_id, row.title, row.address);
      for (const row of store.all<{ org_id: number; email: string }>('select org_id, email from contacts')) add(row.org_id, row.email);
      for (const row of store.all<{ org_id: number; email: string; name: string }>("select r.org_id, u.email, r.first_name || ' ' || r.family_name as name from roles r left join users u on u.id = r.user_id")) add(row.org_id, row.email, row.name);
      for (const row of store.all<{ org_id: number; title: string }>('select org_id, title from private_files')) add(row.org_id, row.title);
      for (const row of store.all<{ org_id: number; endpoint: string }>('select org_id, endpoint from webhooks')) add(row.org_id, row.endpoint);
      // A text that also appears in a record of another org, or in one of no org (a
      // workflow stage called "Proposal sent"), is nobody's secret: only distinctive text
      // counts. (User rows are the people of the orgs their roles are in.)
      const corpus = new Map<number | null, string>();
      for (const table of store.dataTables().filter((name) => name !== 'users')) {
        for (const row of store.all<Record<string, unknown>>(`select * from "${table}"`)) {
          const org = 'org_id' in row ? Number(row.org_id) : null;
          corpus.set(org, `${corpus.get(org) ?? ''}\n${JSON.stringify(row)}`);
        }
      }
      const elsewhere = (text: string, org: number) => [...corpus].some(([other, rows]) => other !== org && rows.includes(text));
      return new Map([...texts].map(([org, values]) => [org, [...new Set(values)].filter((value) => !elsewhere(value, org))]));
    } finally {
      store.close();
    }
  }

  /** No answer to a caller may hold a marker of an org other than theirs; org names may show in connection records. */
  function assertNoForeignData(response: RawResponse, principal: Principal, label: string, connectionRoute: boolean): void {
    for (const [org, values] of markers) {
      if (org === principal.home) continue;
      const leaked = values.find((value) => response.text.includes(value) && !(connectionRoute && value === ORG_NAMES[org]));
      assert.equal(leaked, undefined, `${label}: the answer holds ${JSON.stringify(leaked)} of org ${org}: ${response.text.slice(0, 300)}`);
    }
  }

  async function send(operation: ApiOperation, principal: Principal, values: Record<string, string>, rule?: RouteRule, home?: Home): Promise<RawResponse> {
    const headers: Record<string, string> = principal.authorization ? { authorization: principal.authorization } : {};
    let request: RawRequest = { method: operation.method, path: fillPath(operation.template, values), headers };
    if (rule?.query) request.path += `?${rule.query}`;
    const body = home && rule?.body ? rule.body(home) : undefined;
    if (body !== undefined) request = { ...request, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) };
    if (rule?.multipart) {
      const multipart = multipartBytes({ title: 'Access matrix upload' }, { fileName: 'access.txt', bytes: Buffer.from('access matrix\n') });
      request = { ...request, headers: { ...headers, 'content-type': multipart.contentType }, body: multipart.body };
    }
    if (rule?.rawBody) request = { ...request, headers: { ...headers, 'content-type': 'application/octet-stream' }, body: rule.rawBody };
    const response = await sendChecked(server, request);
    tally.inputs++;
    // A signed download link serves its file to whoever holds it, by design: its bytes are the file's, not a leak.
    if (!operation.template.startsWith('/downloads/')) {
      assertNoForeignData(response, principal, `${principal.name} ${operation.method} ${request.path}`, operation.template.includes('connected_orgs'));
    }
    return response;
  }

  /**
   * The change feed answers with record references, not text: the markers cannot see a
   * leak there, so the log itself is asked. Every change listed is one of the caller's
   * org, and the member (no role on the fixture project) gets none of that project's.
   * The stream must be an event stream.
   */
  function checkChangeFeed(name: string, response: RawResponse, principal: Principal, home: Home, label: string): void {
    if (name === 'GET /api/orgs/{org_id}/changes/stream/') {
      assert.ok(response.eventStream, `${label}: a text/event-stream, got ${String(response.headers['content-type'])}`);
      return;
    }
    if (name !== 'GET /api/orgs/{org_id}/changes/') return;
    const cursors = (response.json as { changes: Array<{ cursor: string }> }).changes.map((change) => Number(change.cursor));
    const store = new StoreInspector(server.dataDir);
    try {
      const rows = store.all<{ id: number; org_id: number; project_id: number | null }>(
        `select id, org_id, project_id from change_log where id in (${cursors.map(() => '?').join(',') || 'null'})`,
        ...cursors,
      );
      assert.equal(rows.length, cursors.length, `${label}: every cursor listed is a row of the change log`);
      const foreign = rows.filter((row) => row.org_id !== home.org);
      assert.deepEqual(foreign, [], `${label}: changes of another org`);
      const ofProject = rows.filter((row) => row.project_id === home.records.project);
      if (principal.role === 'member') assert.deepEqual(ofProject, [], `${label}: changes of a project the member may not see`);
      if (principal.role === 'admin') assert.ok(ofProject.length > 0, `${label}: the admin sees the changes of the fixture project`);
    } finally {
      store.close();
    }
  }

  function expectStatus(response: RawResponse, expected: number, label: string): void {
    assert.equal(response.status, expected, `${label}: expected ${expected}, got ${response.status} ${response.text.slice(0, 300)}`);
  }

  test('every route of the OpenAPI document has an access rule here', () => {
    const known = new Set([...Object.keys(ORG_ROUTES), ...Object.keys(USER_ROUTES), ...Object.keys(PUBLIC_ROUTES)]);
    const missing = operations.map(operationName).filter((name) => !known.has(name));
    assert.deepEqual(missing, [], 'a new route needs its expected answers in main/hardening/access.hardening.ts');
  });

  test('the matrix: each route, each caller, own org, foreign org, missing org, foreign record ids', async () => {
    let cells = 0;
    for (const operation of operations) {
      const name = operationName(operation);
      const rule = ORG_ROUTES[name];
      for (const principal of principals) {
        const label = `${principal.name} ${name}`;
        if (PUBLIC_ROUTES[name]) {
          const values = pathValues(operation, homes[1].records);
          const isDownload = operation.template.startsWith('/downloads/');
          const query = isDownload ? homes[1].records.fileLink.split('?')[1] : undefined;
          const body = PUBLIC_ROUTES[name].body;
          const response = await send(operation, principal, values, { expect: all(0), query, body: body === undefined ? undefined : () => body }, homes[1]);
          expectStatus(response, PUBLIC_ROUTES[name].expect, label);
          cells++;
          continue;
        }
        if (!principal.user) {
          // No usable token: 401 on every route that needs one, whatever the org or record.
          expectStatus(await send(operation, principal, pathValues(operation, homes[1].records)), 401, label);
          cells++;
          continue;
        }
        if (USER_ROUTES[name]) {
          const { body, query } = USER_ROUTES[name];
          const response = await send(
            operation,
            principal,
            pathValues(operation, homes[1].records),
            { expect: all(0), body: body === undefined ? undefined : () => body, query: query?.(homes) },
            homes[1],
          );
          expectStatus(response, USER_ROUTES[name].expect(principal), label);
          cells++;
          continue;
        }
        if (!rule) continue; // reported by the test above
        const ownOrg = principal.home === 3 ? null : homes[principal.home!];
        // Own org: the role's answer; Lapsed Solar's plan has ended, so its admin gets 403 everywhere.
        if (ownOrg) {
          if (rule.prepare && principal.role === 'admin') await rule.prepare(ownOrg, server);
          const fresh = rule.fresh && rule.expect[principal.role!] < 300 ? await rule.fresh(ownOrg) : {};
          const response = await send(operation, principal, { ...pathValues(operation, ownOrg.records), ...fresh }, rule, ownOrg);
          expectStatus(response, rule.expect[principal.role!], `${label} in its own org`);
          if (response.status === 200) checkChangeFeed(name, response, principal, ownOrg, label);
        } else {
          expectStatus(await send(operation, principal, { ...pathValues(operation, homes[1].records), org_id: '3' }, rule, homes[1]), 403, `${label} in its lapsed org`);
        }
        // A foreign org, with that org's real record ids; and an org that does not exist.
        const foreign = homes[principal.home === 1 ? 2 : 1];
        expectStatus(await send(operation, principal, pathValues(operation, foreign.records), rule, foreign), 403, `${label} in org ${foreign.org}`);
        expectStatus(await send(operation, principal, { ...pathValues(operation, foreign.records), org_id: '999' }, rule, foreign), 403, `${label} in org 999`);
        cells += 3;
        // The admin, in their own org, naming the other org's records: they do not exist here.
        // (`entity_type` of the bulk sharing route names a kind of entity, the same in every org, not a record.)
        const recordParams = operation.pathParams.filter((param) => param !== 'org_id' && param !== 'part' && param !== 'entity_type');
        if (ownOrg && principal.role === 'admin' && recordParams.length > 0) {
          const values = { ...pathValues(operation, foreign.records), org_id: String(ownOrg.org) };
          expectStatus(await send(operation, principal, values, rule, ownOrg), 404, `${label} with org ${foreign.org}'s record ids`);
          cells++;
        }
      }
    }
    tally.notes.push(`${operations.length} routes x ${principals.length} callers: ${cells} cells, every answer checked for other orgs' data`);
  });

  test("a project's events are out of reach of whoever cannot see the project: detail, list, changes, .ics and feed", async () => {
    // The member holds no role on Sunrise's fixture project; an event there names them as a team member all the same.
    const sunrise = homes[1];
    const [adminToken, memberToken, basicToken] = [await server.tokenFor('sunriseAdmin'), await server.tokenFor('sunriseMember'), await server.tokenFor('basicAdmin')];
    const call = async (method: string, urlPath: string, token: string | undefined, body?: unknown) => {
      tally.inputs++;
      return sendChecked(server, jsonRequest(method, urlPath, body, token));
    };
    const roles = (await call('GET', apiPaths.roles(1), adminToken)).json as Array<{ id: number; email: string }>;
    const memberRole = roles.find((role) => role.email === 'member@sunrise.example')!;
    const created = await call('POST', apiPaths.events(1), adminToken, {
      project: apiPaths.project(1, sunrise.records.project),
      title: 'Hidden from the member: roof inspection',
      start: '2027-01-05T09:00:00+10:00',
      team_members: [apiPaths.role(1, memberRole.id)],
    });
    expectStatus(created, 201, 'the admin books the member on the hidden project');
    const id = created.json.id as number;

    expectStatus(await call('GET', apiPaths.event(1, id), memberToken), 403, 'the member reads it');
    expectStatus(await call('GET', apiPaths.eventCalendarFile(1, id), memberToken), 403, 'the member downloads its .ics');
    expectStatus(await call('PATCH', apiPaths.event(1, id), memberToken, { is_complete: true }), 403, 'the member completes it');
    expectStatus(await call('PUT', apiPaths.event(1, id), memberToken, { title: 'Taken over' }), 403, 'the member replaces it');
    expectStatus(await call('DELETE', apiPaths.event(1, id), memberToken), 403, 'the member deletes it');
    const listed = (await call('GET', `${apiPaths.events(1)}?limit=1000&team_member=${memberRole.id}`, memberToken)).json as Array<{ id: number }>;
    assert.ok(!listed.some((event) => event.id === id), 'the member does not find it in the list, even filtered by their own role');
    const feedUrl = new URL((await call('POST', apiPaths.calendarFeedSettings(1), memberToken)).json.url as string);
    const feed = await call('GET', feedUrl.pathname, undefined);
    expectStatus(feed, 200, "the member's feed");
    assert.ok(!feed.text.includes('Hidden from the member'), "the member's feed leaves it out");

    // Another org's admin: it does not exist for them, in either org's path.
    expectStatus(await call('GET', apiPaths.eventCalendarFile(2, id), basicToken), 404, "Basic's admin downloads it by Basic's path");
    expectStatus(await call('GET', apiPaths.eventCalendarFile(1, id), basicToken), 403, "Basic's admin downloads it by Sunrise's path");

    // The admin sees it, so the refusals above were about access, not a broken event.
    expectStatus(await call('GET', apiPaths.eventCalendarFile(1, id), adminToken), 200, 'the admin downloads its .ics');
    expectStatus(await call('PATCH', apiPaths.event(1, id), memberToken, { title: 'Still hidden' }), 403, 'still refused after');
    expectStatus(await call('DELETE', apiPaths.calendarFeedSettings(1), memberToken), 204, 'the member revokes the feed');
    expectStatus(await call('GET', feedUrl.pathname, undefined), 404, 'the revoked feed');
  });

  test('fetch_token for a foreign org is 403', async () => {
    for (const [user, org] of [['sunriseAdmin', 2], ['basicAdmin', 1], ['sunriseMember', 3]] as const) {
      const response = await sendChecked(server, jsonRequest('GET', apiPaths.fetchToken(org), undefined, await server.tokenFor(user)));
      tally.inputs++;
      expectStatus(response, 403, `${user} fetch_token org ${org}`);
    }
  });

  test('signed download links tampered with in each part are refused', async () => {
    const sunrise = homes[1].records;
    const link = new URL(sunrise.fileLink, server.baseUrl);
    const params = Object.fromEntries(link.searchParams) as { user: string; expires: string; signature: string };
    const fileId = Number(/(\d+)\/$/.exec(link.pathname)![1]);
    const otherFile = Number(await homes[1].maker.make('file'));
    const linkTo = (id: number | string, query: Record<string, string>) => `/downloads/private_files/${id}/?${new URLSearchParams(query)}`;
    const download = async (urlPath: string) => {
      const response = await sendChecked(server, { method: 'GET', path: urlPath });
      tally.inputs++;
      return response;
    };
    const untouched = await download(linkTo(fileId, params));
    expectStatus(untouched, 200, 'the link as issued');

    const signature = params.signature;
    const flipped = withLastCharacterChanged(signature);
    const tampered: Array<[string, string]> = [
      ['id: another file of the org', linkTo(otherFile, params)],
      ["id: the other org's file", linkTo(homes[2].records.file, params)],
      ['id: no such file', linkTo(999_999, params)],
      ['user: another user', linkTo(fileId, { ...params, user: String(Number(params.user) + 1) })],
      ['user: 0', linkTo(fileId, { ...params, user: '0' })],
      ['user: a leading zero', linkTo(fileId, { ...params, user: `0${params.user}` })],
      ['expires: a second later', linkTo(fileId, { ...params, expires: String(Number(params.expires) + 1) })],
      ['expires: far future', linkTo(fileId, { ...params, expires: '99999999999' })],
      ['expires: a leading zero', linkTo(fileId, { ...params, expires: `0${params.expires}` })],
      ['signature: last character changed', linkTo(fileId, { ...params, signature: flipped })],
      ['signature: cut short', linkTo(fileId, { ...params, signature: signature.slice(0, -2) })],
      ['signature: a character added', linkTo(fileId, { ...params, signature: `${signature}A` })],
      ['signature: junk added', linkTo(fileId, { ...params, signature: `${signature}!` })],
      ['signature: junk inside', linkTo(fileId, { ...params, signature: `${signature.slice(0, 10)}.${signature.slice(10)}` })],
      ['signature: padding added', linkTo(fileId, { ...params, signature: `${signature}=` })],
      ['signature: standard base64', linkTo(fileId, { ...params, signature: `${signature.replace(/-/g, '+').replace(/_/g, '/')}+` })],
      ['signature: upper case', linkTo(fileId, { ...params, signature: signature.toUpperCase() })],
      ['signature: empty', linkTo(fileId, { ...params, signature: '' })],
      ['signature: missing', linkTo(fileId, { user: params.user, expires: params.expires })],
      ['user: missing', linkTo(fileId, { expires: params.expires, signature })],
      ['expires: missing', linkTo(fileId, { user: params.user, signature })],
      ["signature: the other org's link's", linkTo(fileId, { ...params, signature: new URL(homes[2].records.fileLink, server.baseUrl).searchParams.get('signature')! })],
    ];
    for (const [label, urlPath] of tampered) {
      const response = await download(urlPath);
      assert.ok([403, 404].includes(response.status), `${label}: ${response.status} ${response.text.slice(0, 200)}`);
    }
    // Parameters given twice are not a link the server made either.
    for (const name of ['user', 'expires', 'signature'] as const) {
      const response = await download(`${linkTo(fileId, params)}&${name}=${encodeURIComponent(params[name])}`);
      assert.ok([400, 403, 404].includes(response.status), `${name} twice: ${response.status}`);
    }
    tally.notes.push(`${tampered.length + 3} tampered download links refused`);
  });

  test('summary', (t) => reportTally(t, tally));
});
