// Issue 25, items 5-7: what a connected org keeps, or never gets, of a project
// shared with it. A share link follows what its viewer may see (and the owner can
// revoke it); a conditional GET sees a narrowing of the partner's permissions; the
// partner can download the files it is shown, and no others. A real engine over
// HTTP on 127.0.0.1; only the clock is manual, so the half-hour in which signed
// links may be answered with a 304 (http/conditional-get.ts) never turns mid-test.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-accounts.ts';
import { ManualClock } from '../clock.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

const SUNRISE = 1;
const BASIC = 2;
const VIEW = { view: 1, create: 0, edit: 0, delete: 0 };

describe('a connected org sees what its permissions allow, and keeps nothing more (issue 25, items 5-7)', () => {
  let server: TestServer;
  let sunrise: string;
  let basic: string;
  let projectId: number;
  let otherProjectId: number;
  let connectionId: number;
  const roles: Record<'everything' | 'viewOnly' | 'noDocuments', string> = { everything: '', viewOnly: '', noDocuments: '' };

  const detail = (token: string, org: number, headers: Record<string, string> = {}, id = projectId) => server.request('GET', apiPaths.project(org, id), { token, headers });
  const share = async (entries: unknown, id = projectId) => {
    const response = await server.request('PATCH', apiPaths.project(SUNRISE, id), { token: sunrise, body: { shared_with: entries } });
    assert.equal(response.status, 200, response.text);
    return response;
  };
  /** Opens a share or download link as someone with no account would: no Authorization header. */
  const open = async (link: string) => {
    const url = new URL(link);
    return server.request('GET', `${url.pathname}${url.search}`);
  };
  const download = open;
  const makeRole = async (title: string, permissions: object) => {
    const response = await server.request('POST', apiPaths.permissionsRoles(SUNRISE), {
      token: sunrise,
      body: { role_type: 1, title, permissions: JSON.stringify({ project: permissions }) },
    });
    assert.equal(response.status, 201, response.text);
    return response.json.url as string;
  };

  before(async () => {
    server = await startTestServer({ clock: new ManualClock('2026-06-01T09:00:00.000Z') });
    sunrise = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    basic = await server.tokenFor(DEMO_USERS.basicAdmin);
    // A demo project with systems (prices on the share page) and contacts; a file on it.
    const ids = ((await server.request('GET', `${apiPaths.projects(SUNRISE)}?fieldset=list&limit=1000`, { token: sunrise })).json as Array<{ id: number }>).map((row) => row.id);
    for (const id of ids) {
      const json = (await detail(sunrise, SUNRISE, {}, id)).json;
      if (projectId === undefined && json.systems.length > 0 && json.contacts_data.length > 0) projectId = id;
      else otherProjectId ??= id;
    }
    assert.ok(projectId && otherProjectId, 'a demo project with systems and contacts, and another');
    const files = (await server.request('GET', `${apiPaths.privateFiles(SUNRISE)}?limit=2`, { token: sunrise })).json as Array<{ url: string }>;
    assert.equal(files.length, 2);
    assert.equal((await server.request('PATCH', apiPaths.project(SUNRISE, projectId), { token: sunrise, body: { private_files: [files[0]!.url] } })).status, 200);
    assert.equal((await server.request('PATCH', apiPaths.project(SUNRISE, otherProjectId), { token: sunrise, body: { private_files: [files[1]!.url] } })).status, 200);
    connectionId = (await server.request('POST', apiPaths.connectedOrgs(SUNRISE), { token: sunrise, body: { org_name: 'Basic Solar' } })).json.id;
    assert.equal((await server.request('POST', apiPaths.connectedOrgsAccept(BASIC), { token: basic, body: { org_to_id: SUNRISE } })).status, 200);
    roles.everything = await makeRole('Everything', { project: VIEW, design: VIEW, info_documents: VIEW, info_contact_info_full: VIEW });
    roles.viewOnly = await makeRole('View only', { project: VIEW });
    roles.noDocuments = await makeRole('No contacts or files', { project: VIEW, design: VIEW });
  });
  after(() => server.close());

  describe('item 5: a share link follows what its viewer may see', () => {
    test('a partner whose role only views the project gets no share link', async () => {
      await share([{ org_id: BASIC, permission: roles.viewOnly }]);
      const seen = await detail(basic, BASIC);
      assert.equal(seen.status, 200, seen.text);
      assert.deepEqual(seen.json.systems, []);
      assert.equal(seen.json.share_link, '', 'no link to a page that shows the systems and prices');
    });

    test("a partner whose role includes the design gets a link of its own, which stops when sharing ends, a handed-on copy included", async () => {
      await share([{ org_id: BASIC, permission: roles.everything }]);
      const owner = (await detail(sunrise, SUNRISE)).json;
      const handedOn = (await detail(basic, BASIC)).json.share_link as string;
      assert.ok(handedOn, 'the design is granted: a link');
      assert.notEqual(handedOn, owner.share_link, "the partner's link is not the owner's");
      const page = await open(handedOn);
      assert.equal(page.status, 200, page.text);
      assert.match(page.text, /Price incl\. tax/);

      await share([]);
      assert.equal((await open(handedOn)).status, 404, 'sharing ended: the link the partner handed on is dead');
      assert.equal((await open(owner.share_link)).status, 200, "the owner's own link is the owner's to revoke");
      await share([{ org_id: BASIC, permission: roles.everything }]);
      assert.equal((await open(handedOn)).status, 200, 'shared again with the design: the same link works again');
    });

    test('narrowing the role (or pausing the connection) stops the partner link at once', async () => {
      await share([{ org_id: BASIC, permission: roles.everything }]);
      const link = (await detail(basic, BASIC)).json.share_link as string;
      await share([{ org_id: BASIC, permission: roles.viewOnly }]);
      assert.equal((await open(link)).status, 404, 'the role no longer includes the design');
      await share([{ org_id: BASIC, is_shared: false, permission: roles.everything }]);
      assert.equal((await open(link)).status, 404, 'is_shared false');
      await share([{ org_id: BASIC, permission: roles.everything }]);
      assert.equal((await open(link)).status, 200);
      assert.equal((await server.request('PATCH', apiPaths.connectedOrg(SUNRISE, connectionId), { token: sunrise, body: { is_active: false } })).status, 200);
      assert.equal((await open(link)).status, 404, 'the connection disabled');
      assert.equal((await server.request('PATCH', apiPaths.connectedOrg(SUNRISE, connectionId), { token: sunrise, body: { is_active: true } })).status, 200);
      assert.equal((await open(link)).status, 200);
    });

    test("a partner link cannot be moved to another org or another project", async () => {
      await share([{ org_id: BASIC, permission: roles.everything }]);
      const link = new URL((await detail(basic, BASIC)).json.share_link as string);
      const token = link.searchParams.get('token')!;
      assert.match(token, new RegExp(`^${BASIC}\\.`));
      const movedOrg = `${link.pathname}?token=${encodeURIComponent(token.replace(/^\d+\./, `${SUNRISE}.`))}`;
      assert.equal((await server.request('GET', movedOrg)).status, 404);
      const movedProject = `${link.pathname.replace(String(projectId), String(otherProjectId))}${link.search}`;
      assert.equal((await server.request('GET', movedProject)).status, 404);
    });

    test("the owner revokes every link of the project at once; a partner cannot", async () => {
      await share([{ org_id: BASIC, permission: roles.everything }]);
      const before = (await detail(sunrise, SUNRISE)).json;
      const partnerLink = (await detail(basic, BASIC)).json.share_link as string;
      assert.equal((await open(before.share_link)).status, 200);

      const refused = await server.request('POST', apiPaths.projectShareLinkRevoke(BASIC, projectId), { token: basic });
      assert.equal(refused.status, 403, refused.text);
      assert.equal((await open(before.share_link)).status, 200, 'nothing revoked');

      const revoked = await server.request('POST', apiPaths.projectShareLinkRevoke(SUNRISE, projectId), { token: sunrise });
      assert.equal(revoked.status, 200, revoked.text);
      assert.notEqual(revoked.json.share_link, before.share_link, 'a new link');
      assert.notEqual(revoked.json.modified_date, before.modified_date, 'a change of the project: a new version');
      assert.equal((await open(before.share_link)).status, 404, "the owner's old link");
      assert.equal((await open(partnerLink)).status, 404, "the partner's old link");
      assert.equal((await open(revoked.json.share_link)).status, 200, 'the new link works');
      const partnerNow = (await detail(basic, BASIC)).json.share_link as string;
      assert.notEqual(partnerNow, partnerLink);
      assert.equal((await open(partnerNow)).status, 200, "the partner's new link works");
    });
  });

  describe('item 6: a conditional GET sees a narrowing of what the partner may see', () => {
    test('narrowing the share entry to a role without contacts and files: the old ETag answers 200 with them gone', async () => {
      await share([{ org_id: BASIC, permission: roles.everything }]);
      const wide = await detail(basic, BASIC);
      const etag = wide.headers.get('etag')!;
      assert.ok(wide.json.contacts_data.length > 0 && wide.json.private_files_data.length > 0, 'contacts and files are seen');
      assert.equal((await detail(basic, BASIC, { 'if-none-match': etag })).status, 304, 'unchanged: 304');

      await share([{ org_id: BASIC, permission: roles.noDocuments }]);
      const narrowed = await detail(basic, BASIC, { 'if-none-match': etag });
      assert.equal(narrowed.status, 200, 'the old ETag no longer stands for the answer');
      assert.deepEqual(narrowed.json.contacts_data, []);
      assert.deepEqual(narrowed.json.private_files_data, []);
      assert.notEqual(narrowed.headers.get('etag'), etag);
    });

    test("narrowing the connection's default role (no write to the project): the old ETag answers 200, and the partner's feed hears it", async () => {
      await server.request('PATCH', apiPaths.connectedOrg(SUNRISE, connectionId), { token: sunrise, body: { permission: roles.everything } });
      await share([{ org_id: BASIC }]);
      const wide = await detail(basic, BASIC);
      assert.ok(wide.json.private_files_data.length > 0);
      const etag = wide.headers.get('etag')!;
      const cursor = (await server.request('GET', apiPaths.changes(BASIC), { token: basic })).json.next_cursor as string;

      const owner = (await detail(sunrise, SUNRISE)).json.modified_date;
      assert.equal((await server.request('PATCH', apiPaths.connectedOrg(SUNRISE, connectionId), { token: sunrise, body: { permission: roles.noDocuments } })).status, 200);
      assert.equal((await detail(sunrise, SUNRISE)).json.modified_date, owner, 'the project itself did not change');
      const narrowed = await detail(basic, BASIC, { 'if-none-match': etag });
      assert.equal(narrowed.status, 200);
      assert.deepEqual(narrowed.json.private_files_data, []);
      assert.deepEqual(narrowed.json.contacts_data, []);
      // The partner's replica learns through its feed that the project changed for it (bounded wait: written just after the owner's write).
      let heard = false;
      for (let attempt = 0; attempt < 200 && !heard; attempt++) {
        const feed = (await server.request('GET', `${apiPaths.changes(BASIC)}?after=${cursor}&limit=1000`, { token: basic })).json;
        heard = feed.changes.some((change: { model: string; id: number }) => change.model === 'project' && change.id === projectId);
        if (!heard) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.ok(heard, "the partner's change feed lists the project");
      await server.request('PATCH', apiPaths.connectedOrg(SUNRISE, connectionId), { token: sunrise, body: { permission: null } });
    });

    test('ending the sharing: the old ETag gets no 304 (the project is gone for the partner)', async () => {
      await share([{ org_id: BASIC, permission: roles.everything }]);
      const etag = (await detail(basic, BASIC)).headers.get('etag')!;
      await share([]);
      assert.equal((await detail(basic, BASIC, { 'if-none-match': etag })).status, 404);
    });
  });

  describe('item 7: the partner downloads the files it is shown, and no others', () => {
    test('the links in private_files_data download the file; they die when the documents are no longer shared', async () => {
      await share([{ org_id: BASIC, permission: roles.everything }]);
      const seen = (await detail(basic, BASIC)).json;
      assert.ok(seen.private_files_data.length >= 1);
      const link = seen.private_files_data[0].file_contents as string;
      const ownerCopy = await server.request('GET', `${new URL(seen.private_files_data[0].url).pathname}`, { token: sunrise });
      const downloaded = await download(link);
      assert.equal(downloaded.status, 200, downloaded.text);
      assert.equal(downloaded.text, (await download(ownerCopy.json.file_contents)).text, 'the same contents the owner downloads');

      await share([{ org_id: BASIC, permission: roles.noDocuments }]);
      const refused = await download(link);
      assert.equal(refused.status, 403, 'the role no longer grants documents');
      assert.match(refused.json.detail, /no longer sees this file/);
      await share([]);
      assert.equal((await download(link)).status, 403, 'sharing ended');
    });

    test("a partner's link cannot be turned to another file, or to the owner's org", async () => {
      await share([{ org_id: BASIC, permission: roles.everything }]);
      const link = new URL((await detail(basic, BASIC)).json.private_files_data[0].file_contents as string);
      assert.equal(link.searchParams.get('org'), String(BASIC));
      const otherFile = (await detail(sunrise, SUNRISE, {}, otherProjectId)).json.private_files_data[0];
      const otherFileId = new URL(otherFile.url).pathname.split('/').filter(Boolean).pop()!;
      const fileId = link.pathname.split('/').filter(Boolean).pop()!;
      assert.equal((await server.request('GET', `${link.pathname.replace(`/${fileId}/`, `/${otherFileId}/`)}${link.search}`)).status, 403, 'another file: the signature fails');
      const asOwnerOrg = new URL(link);
      asOwnerOrg.searchParams.set('org', String(SUNRISE));
      assert.equal((await server.request('GET', `${asOwnerOrg.pathname}${asOwnerOrg.search}`)).status, 403, 'another org: the signature fails');
      asOwnerOrg.searchParams.delete('org');
      assert.equal((await server.request('GET', `${asOwnerOrg.pathname}${asOwnerOrg.search}`)).status, 403, 'no org: the signature fails');
      // The file on a project not shared with the partner has no link for it at all, and the partner's files list does not hold it.
      const files = (await server.request('GET', `${apiPaths.privateFiles(BASIC)}?limit=1000`, { token: basic })).json as Array<{ id: number }>;
      assert.ok(!files.some((file) => String(file.id) === otherFileId));
    });
  });
});
