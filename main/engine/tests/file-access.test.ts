// service.md 5.2 and 5.3: who may see which private file, enforced on every route
// (list and its filters, detail, PATCH, DELETE) and on the download link. Every
// demo user against every kind of file, with the expected answer written out by hand.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { createFile, download } from '../testing/file-testing.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

type User = 'admin' | 'member' | 'viewer' | 'basicAdmin' | 'lapsedAdmin';
const EMAILS: Record<User, string> = {
  admin: DEMO_USERS.sunriseAdmin,
  member: DEMO_USERS.sunriseMember,
  viewer: DEMO_USERS.sunriseViewer,
  basicAdmin: DEMO_USERS.basicAdmin,
  lapsedAdmin: DEMO_USERS.lapsedAdmin,
};
/** The org each user belongs to: where their own lists are read. */
const HOME_ORG: Record<User, number> = { admin: 1, member: 1, viewer: 1, basicAdmin: 2, lapsedAdmin: 3 };

// Projects of Sunrise Solar: the member holds a role on 1 (and every eighth from it), not on 2.
const VISIBLE_TO_MEMBER = 1;
const HIDDEN_FROM_MEMBER = 2;

type Kind =
  | 'memberOwn'
  | 'memberOwnOnHiddenProject'
  | 'onVisibleProject'
  | 'onHiddenProject'
  | 'othersUnattached'
  | 'exportTagged'
  | 'viewerOwnOnHiddenProject'
  | 'otherOrg';

/**
 * Expected status of GET on the file's URL in its own org. The admin has every
 * permission; the member is Pro but sees only their projects and no Projects Export files;
 * the viewer is not Pro; the Basic admin and the lapsed admin are not members of
 * Sunrise Solar (and Lapsed Solar's plan has ended).
 */
const EXPECTED: Record<Kind, Record<User, 200 | 403>> = {
  memberOwn: { admin: 200, member: 200, viewer: 403, basicAdmin: 403, lapsedAdmin: 403 },
  memberOwnOnHiddenProject: { admin: 200, member: 200, viewer: 403, basicAdmin: 403, lapsedAdmin: 403 },
  onVisibleProject: { admin: 200, member: 200, viewer: 403, basicAdmin: 403, lapsedAdmin: 403 },
  onHiddenProject: { admin: 200, member: 403, viewer: 403, basicAdmin: 403, lapsedAdmin: 403 },
  othersUnattached: { admin: 200, member: 403, viewer: 403, basicAdmin: 403, lapsedAdmin: 403 },
  exportTagged: { admin: 200, member: 403, viewer: 403, basicAdmin: 403, lapsedAdmin: 403 },
  viewerOwnOnHiddenProject: { admin: 200, member: 403, viewer: 403, basicAdmin: 403, lapsedAdmin: 403 },
  otherOrg: { admin: 403, member: 403, viewer: 403, basicAdmin: 200, lapsedAdmin: 403 },
};
const USERS = Object.keys(EMAILS) as User[];
const KINDS = Object.keys(EXPECTED) as Kind[];

interface Fixture {
  id: number;
  orgId: number;
  path: string;
  contents: Buffer;
}

describe('private file access', () => {
  let server: TestServer;
  const tokens = {} as Record<User, string>;
  const userIds = {} as Record<User, number>;
  const fixtures = {} as Record<Kind, Fixture>;
  let exportTagId: number;

  /** Makes a fresh file of the kind, the way a user would (only the viewer's comes from the seed). */
  async function makeFile(kind: Kind, label: string = kind): Promise<Fixture> {
    const contents = Buffer.from(`${label} ${Math.random()}`);
    const as = (user: User, fields: Record<string, string> = {}, orgId = 1) => createFile(server, tokens[user], contents, `${label}.txt`, fields, orgId);
    let file: { id: number };
    switch (kind) {
      case 'memberOwn':
        file = await as('member');
        break;
      case 'memberOwnOnHiddenProject': {
        file = await as('member');
        const moved = await server.request('PATCH', apiPaths.privateFile(1, file.id), { token: tokens.admin, body: { project: HIDDEN_FROM_MEMBER } });
        assert.equal(moved.status, 200);
        break;
      }
      case 'onVisibleProject':
        file = await as('admin', { project: String(VISIBLE_TO_MEMBER) });
        break;
      case 'onHiddenProject':
        file = await as('admin', { project: String(HIDDEN_FROM_MEMBER) });
        break;
      case 'othersUnattached':
        file = await as('admin');
        break;
      case 'exportTagged':
        file = await as('admin', { project: String(VISIBLE_TO_MEMBER), file_tags: String(exportTagId) });
        break;
      case 'viewerOwnOnHiddenProject': {
        // The viewer may no longer use files (not Pro), but one they uploaded earlier is in the seed.
        const seeded = await server.request('GET', '/api/orgs/1/private_files/?search=Meter%20photo', { token: tokens.admin });
        return { id: seeded.json[0].id, orgId: 1, path: apiPaths.privateFile(1, seeded.json[0].id), contents: (await download(seeded.json[0].file_contents)).body };
      }
      case 'otherOrg':
        file = await as('basicAdmin', {}, 2);
        return { id: file.id, orgId: 2, path: apiPaths.privateFile(2, file.id), contents };
    }
    return { id: file.id, orgId: 1, path: apiPaths.privateFile(1, file.id), contents };
  }

  before(async () => {
    server = await startTestServer();
    for (const user of USERS) {
      tokens[user] = await server.tokenFor(EMAILS[user]);
      userIds[user] = (await server.engine.context.db.selectFrom('users').select('id').where('email', '=', EMAILS[user]).executeTakeFirstOrThrow()).id;
    }
    const tags = await server.request('GET', '/api/orgs/1/file_tags/?limit=1000', { token: tokens.admin });
    exportTagId = tags.json.find((tag: { title: string }) => tag.title === 'Projects Export').id;
    for (const kind of KINDS) fixtures[kind] = await makeFile(kind);
  });
  after(() => server.close());

  test('detail: every user against every kind of file', async () => {
    for (const kind of KINDS) {
      for (const user of USERS) {
        const response = await server.request('GET', fixtures[kind].path, { token: tokens[user] });
        assert.equal(response.status, EXPECTED[kind][user], `${user} GET ${kind}: ${response.text}`);
        if (response.status === 403) assert.equal(typeof response.json.detail, 'string');
      }
    }
  });

  test("a file of another org is 404 through one's own org, never visible", async () => {
    const otherOrgFile = fixtures.otherOrg.id;
    assert.equal((await server.request('GET', apiPaths.privateFile(1, otherOrgFile), { token: tokens.admin })).status, 404);
    assert.equal((await server.request('GET', apiPaths.privateFile(1, otherOrgFile), { token: tokens.member })).status, 404);
    assert.equal((await server.request('GET', apiPaths.privateFile(2, fixtures.memberOwn.id), { token: tokens.basicAdmin })).status, 404);
    assert.equal((await server.request('GET', '/api/orgs/1/private_files/99999999/', { token: tokens.admin })).status, 404);
  });

  test('list: each user sees exactly the files the rules allow, in their own org', async () => {
    for (const user of USERS) {
      const response = await server.request('GET', `${apiPaths.privateFiles(HOME_ORG[user])}?limit=1000`, { token: tokens[user] });
      if (user === 'viewer' || user === 'lapsedAdmin') {
        assert.equal(response.status, 403, `${user} lists`);
        continue;
      }
      assert.equal(response.status, 200);
      const listed = new Set(response.json.map((file: { id: number }) => file.id));
      for (const kind of KINDS) {
        const inHomeOrg: boolean = fixtures[kind].orgId === HOME_ORG[user];
        assert.equal(listed.has(fixtures[kind].id), inHomeOrg && EXPECTED[kind][user] === 200, `${user} lists ${kind}`);
      }
    }
  });

  test('list filters never widen access: the member filtering by a hidden project, by Projects Export, by another user', async () => {
    const list = async (query: string) =>
      ((await server.request('GET', `${apiPaths.privateFiles(1)}?limit=1000&${query}`, { token: tokens.member })).json as Array<{ id: number }>).map((file) => file.id);
    assert.deepEqual(await list(`project=${HIDDEN_FROM_MEMBER}`), [fixtures.memberOwnOnHiddenProject.id], 'only their own file there');
    assert.deepEqual(await list(`file_tags=${encodeURIComponent('Projects Export')}`), []);
    const byAdmin = await list(`user_id=${userIds.admin}`);
    assert.ok(byAdmin.includes(fixtures.onVisibleProject.id));
    assert.ok(!byAdmin.includes(fixtures.othersUnattached.id) && !byAdmin.includes(fixtures.onHiddenProject.id));
    assert.ok(!(await list(`search=${encodeURIComponent('othersUnattached')}`)).includes(fixtures.othersUnattached.id));
  });

  test('PATCH: allowed where GET is, refused (and nothing changes) elsewhere', async () => {
    for (const kind of KINDS) {
      for (const user of USERS) {
        const response = await server.request('PATCH', fixtures[kind].path, { token: tokens[user], body: { title: `${kind} by ${user}` } });
        assert.equal(response.status, EXPECTED[kind][user], `${user} PATCH ${kind}`);
        const owner = fixtures[kind].orgId === 1 ? tokens.admin : tokens.basicAdmin;
        const title = (await server.request('GET', fixtures[kind].path, { token: owner })).json.title;
        assert.equal(title === `${kind} by ${user}`, EXPECTED[kind][user] === 200, `${user} PATCH ${kind} changed the title: ${title}`);
      }
    }
  });

  test('download link: each user who may see a file downloads it with the link made for them', async () => {
    for (const kind of KINDS) {
      for (const user of USERS) {
        if (EXPECTED[kind][user] !== 200) continue;
        const detail = await server.request('GET', fixtures[kind].path, { token: tokens[user] });
        assert.equal(new URL(detail.json.file_contents).searchParams.get('user'), String(userIds[user]), 'signed for the asking user');
        const response = await download(detail.json.file_contents);
        assert.equal(response.status, 200, `${user} downloads ${kind}`);
        assert.deepEqual(response.body, fixtures[kind].contents);
      }
    }
  });

  test('download link: access is checked again when it is used', async () => {
    const file = await makeFile('onVisibleProject', 'revoked');
    const memberLink = (await server.request('GET', file.path, { token: tokens.member })).json.file_contents as string;
    const adminLink = (await server.request('GET', file.path, { token: tokens.admin })).json.file_contents as string;
    assert.equal((await download(memberLink)).status, 200);

    await server.request('PATCH', file.path, { token: tokens.admin, body: { file_tags: [exportTagId] } });
    assert.equal((await download(memberLink)).status, 403, 'tagged Projects Export: the member may no longer see it');
    assert.equal((await download(adminLink)).status, 200);
    await server.request('PATCH', file.path, { token: tokens.admin, body: { file_tags: [] } });
    assert.equal((await download(memberLink)).status, 200);

    await server.request('PATCH', file.path, { token: tokens.admin, body: { project: HIDDEN_FROM_MEMBER } });
    assert.equal((await download(memberLink)).status, 403, 'moved to a project the member cannot see');
    await server.request('PATCH', file.path, { token: tokens.admin, body: { project: VISIBLE_TO_MEMBER } });

    const db = server.engine.context.db;
    const memberUser = await db.selectFrom('users').select('id').where('email', '=', DEMO_USERS.sunriseMember).executeTakeFirstOrThrow();
    await db.updateTable('roles').set({ is_pro: 0 }).where('user_id', '=', memberUser.id).execute();
    try {
      assert.equal((await download(memberLink)).status, 403, 'no longer a Pro user');
    } finally {
      await db.updateTable('roles').set({ is_pro: 1 }).where('user_id', '=', memberUser.id).execute();
    }
    assert.equal((await download(memberLink)).status, 200);
  });

  test('create: only Pro members of an org with a plan in force', async () => {
    const attempt = async (user: User, orgId: number) => {
      const form = new FormData();
      form.append('file_contents', new Blob([Buffer.from('x')]), 'x.txt');
      return (await fetch(`${server.baseUrl}${apiPaths.privateFiles(orgId)}`, { method: 'POST', headers: { authorization: `Bearer ${tokens[user]}` }, body: form })).status;
    };
    assert.equal(await attempt('viewer', 1), 403, 'not Pro');
    assert.equal(await attempt('basicAdmin', 1), 403, 'not a member');
    assert.equal(await attempt('lapsedAdmin', 3), 403, 'plan ended');
    assert.equal(await attempt('member', 1), 201);
    const noToken = await fetch(`${server.baseUrl}${apiPaths.privateFiles(1)}`);
    assert.equal(noToken.status, 401);
  });

  test('DELETE: refused where GET is, and each allowed user deletes a file of each kind they may see', async () => {
    for (const kind of KINDS) {
      for (const user of USERS) {
        if (EXPECTED[kind][user] === 200) continue;
        const response = await server.request('DELETE', fixtures[kind].path, { token: tokens[user] });
        assert.equal(response.status, 403, `${user} DELETE ${kind}`);
      }
    }
    for (const kind of KINDS) {
      const owner = fixtures[kind].orgId === 1 ? tokens.admin : tokens.basicAdmin;
      assert.equal((await server.request('GET', fixtures[kind].path, { token: owner })).status, 200, `${kind} survived the refused deletes`);
    }
    for (const kind of KINDS.filter((candidate) => candidate !== 'viewerOwnOnHiddenProject')) {
      for (const user of USERS) {
        if (EXPECTED[kind][user] !== 200) continue;
        const fresh = await makeFile(kind, `${kind}-for-${user}`);
        const response = await server.request('DELETE', fresh.path, { token: tokens[user] });
        assert.equal(response.status, 204, `${user} DELETE ${kind}`);
        assert.equal((await server.request('GET', fresh.path, { token: tokens[user] })).status, 404);
      }
    }
  });
});
