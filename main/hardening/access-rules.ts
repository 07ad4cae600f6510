// The access matrix the access hardening test (access.hardening.ts) checks: for
// every route of the OpenAPI document, the status each role of the org gets (and
// what the request needs to be made: body, query, fresh records, the org's state);
// for the routes outside an org, what each signed-in user gets; and the public
// routes, the same for everyone.
import type { RecordMaker, OrgRecords } from './fixtures.ts';
import type { DemoUser, HardeningServer } from './hardening-server.ts';

export type Role = 'admin' | 'member' | 'viewer';
export const ORG_NAMES: Record<number, string> = { 1: 'Sunrise Solar', 2: 'Basic Solar', 3: 'Lapsed Solar' };

/** A demo user, or a caller with no (usable) token. */
export interface Principal {
  name: string;
  authorization?: string;
  user?: DemoUser;
  home: 1 | 2 | 3 | null;
  role?: Role;
}

export interface Home {
  org: 1 | 2;
  records: OrgRecords;
  maker: RecordMaker;
  /** The other org a connection request from this org goes to. */
  other: 1 | 2;
}

/** What a route needs beyond its path, and what each role of the org should get. */
export interface RouteRule {
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

/** The same status for every role of the org. */
export const all = (status: number): Record<Role, number> => ({ admin: status, member: status, viewer: status });
/** The member holds no role on the org's fixture project. */
const projectRule = (status: number): Record<Role, number> => ({ admin: status, member: 403, viewer: status });
const adminOnly = (status: number): Record<Role, number> => ({ admin: status, member: 403, viewer: 403 });
/** Private files are for Pro users; the viewer is not Pro. The fixture file is the admin's, on no project. */
const proOnly = (status: number): Record<Role, number> => ({ admin: status, member: status, viewer: 403 });
let tagCount = 0;

export const ORG_ROUTES: Record<string, RouteRule> = {
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
export const USER_ROUTES: Record<string, { expect: (principal: Principal) => number; body?: unknown; query?: (homes: Record<1 | 2, Home>) => string }> = {
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
export const PUBLIC_ROUTES: Record<string, { expect: number; body?: unknown }> = {
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
