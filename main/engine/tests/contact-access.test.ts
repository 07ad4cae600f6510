// Contacts follow project visibility (issue 19, finding 7; docs/access.md): a member
// without the org-wide projects permission lists, searches, reads and changes only
// the contacts of projects they can access and the contacts they created. Members
// with that permission (the viewer here; the admin) see and change all of them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { MAX_PAGE_SIZE } from '../http/list-query.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

type User = 'admin' | 'member' | 'viewer';
const EMAILS: Record<User, string> = { admin: DEMO_USERS.sunriseAdmin, member: DEMO_USERS.sunriseMember, viewer: DEMO_USERS.sunriseViewer };

// Projects of Sunrise Solar: the member holds a role on 1 (and every eighth from it), not on 2.
const VISIBLE_TO_MEMBER = 1;
const HIDDEN_FROM_MEMBER = 2;

type Kind = 'onVisibleProject' | 'onHiddenProject' | 'adminUnattached' | 'memberOwn' | 'memberOwnOnHiddenProject' | 'memberMadeInProjectThenDetached';
/** GET, PATCH and DELETE of a contact: 200 when the user may see it, 403 when it exists but is hidden from them. */
const EXPECTED: Record<Kind, Record<User, 200 | 403>> = {
  onVisibleProject: { admin: 200, member: 200, viewer: 200 },
  onHiddenProject: { admin: 200, member: 403, viewer: 200 },
  adminUnattached: { admin: 200, member: 403, viewer: 200 },
  memberOwn: { admin: 200, member: 200, viewer: 200 },
  memberOwnOnHiddenProject: { admin: 200, member: 200, viewer: 200 },
  memberMadeInProjectThenDetached: { admin: 200, member: 200, viewer: 200 },
};
const USERS = Object.keys(EMAILS) as User[];
const KINDS = Object.keys(EXPECTED) as Kind[];

describe('contact access follows project visibility', () => {
  let server: TestServer;
  const tokens = {} as Record<User, string>;
  let made = 0;

  /** A fresh contact of the kind, made through the API the way a user would; its words are unique, for searches. */
  async function makeContact(kind: Kind): Promise<{ id: number; word: string }> {
    const word = `${kind}x${++made}`;
    const body = { first_name: word, family_name: 'Fixture', passport_number: `P-${word}`, licence_number: `L-${word}` };
    const attachTo = async (projectId: number, user: User = 'admin') => {
      const patched = await server.request('PATCH', apiPaths.project(1, projectId), { token: tokens[user], body: { contacts_new: [body] } });
      assert.equal(patched.status, 200, patched.text);
      return (patched.json.contacts_data as Array<{ id: number; first_name: string }>).find((contact) => contact.first_name === word)!.id;
    };
    const create = async (user: User) => {
      const created = await server.request('POST', '/api/orgs/1/contacts/', { token: tokens[user], body });
      assert.equal(created.status, 201, created.text);
      return created.json.id as number;
    };
    switch (kind) {
      case 'onVisibleProject':
        return { id: await attachTo(VISIBLE_TO_MEMBER), word };
      case 'onHiddenProject':
        return { id: await attachTo(HIDDEN_FROM_MEMBER), word };
      case 'adminUnattached':
        return { id: await create('admin'), word };
      case 'memberOwn':
        return { id: await create('member'), word };
      case 'memberOwnOnHiddenProject': {
        const id = await create('member');
        const project = (await server.request('GET', apiPaths.project(1, HIDDEN_FROM_MEMBER), { token: tokens.admin })).json;
        const patched = await server.request('PATCH', apiPaths.project(1, HIDDEN_FROM_MEMBER), {
          token: tokens.admin,
          body: { contacts: [...project.contacts, `${server.baseUrl}${apiPaths.contact(1, id)}`] },
        });
        assert.equal(patched.status, 200, patched.text);
        return { id, word };
      }
      case 'memberMadeInProjectThenDetached': {
        // Made through the project's contacts_new, then taken off the project by the admin: still the member's own.
        const id = await attachTo(VISIBLE_TO_MEMBER, 'member');
        const project = (await server.request('GET', apiPaths.project(1, VISIBLE_TO_MEMBER), { token: tokens.admin })).json;
        const remaining = (project.contacts as string[]).filter((url) => !url.endsWith(`/contacts/${id}/`));
        const detached = await server.request('PATCH', apiPaths.project(1, VISIBLE_TO_MEMBER), { token: tokens.admin, body: { contacts: remaining } });
        assert.equal(detached.status, 200, detached.text);
        return { id, word };
      }
    }
  }

  async function listAll(user: User, query = ''): Promise<number[]> {
    const ids: number[] = [];
    for (let page = 1; page <= 20; page++) {
      const response = await server.request('GET', `${apiPaths.contacts(1)}?limit=${MAX_PAGE_SIZE}&page=${page}${query}`, { token: tokens[user] });
      assert.equal(response.status, 200, response.text);
      ids.push(...response.json.map((contact: { id: number }) => contact.id));
      if (response.json.length < MAX_PAGE_SIZE) return ids.sort((a, b) => a - b);
    }
    throw new Error('more contacts than 20 pages');
  }

  before(async () => {
    server = await startTestServer();
    for (const user of USERS) tokens[user] = await server.tokenFor(EMAILS[user]);
  });
  after(() => server.close());

  test('the list holds exactly the contacts of the projects a member can open and their own; org-wide users get every contact', async () => {
    const own = await makeContact('memberOwn');
    const hidden = await makeContact('onHiddenProject');
    // What the member may open, read from their own project list: the contacts shown there are the ones they may see.
    const projects = await server.request('GET', `${apiPaths.projects(1)}?limit=${MAX_PAGE_SIZE}`, { token: tokens.member });
    assert.equal(projects.status, 200);
    const onTheirProjects = (projects.json as Array<{ contacts_data: Array<{ id: number }> }>).flatMap((project) => project.contacts_data.map((contact) => contact.id));
    const expected = [...new Set([...onTheirProjects, own.id])].sort((a, b) => a - b);
    assert.deepEqual(await listAll('member'), expected);

    const everyContact = await listAll('admin');
    assert.ok(everyContact.length > expected.length, 'the org has contacts the member may not see');
    assert.ok(everyContact.includes(hidden.id));
    assert.deepEqual(await listAll('viewer'), everyContact, 'the org-wide projects permission sees every contact');
  });

  test('search finds hidden contacts only for users who may see them', async () => {
    const fixtures = {} as Record<Kind, { id: number; word: string }>;
    // One at a time: several of them rewrite the same project's contacts.
    for (const kind of KINDS) fixtures[kind] = await makeContact(kind);
    for (const kind of KINDS) {
      for (const user of USERS) {
        const found = await listAll(user, `&search=${fixtures[kind].word}`);
        assert.deepEqual(found, EXPECTED[kind][user] === 200 ? [fixtures[kind].id] : [], `${user} searching ${kind}`);
      }
    }
  });

  test('detail, PATCH and DELETE answer 403 for a contact hidden from the user and leave it untouched', async () => {
    for (const kind of KINDS) {
      for (const user of USERS) {
        const { id } = await makeContact(kind);
        const url = apiPaths.contact(1, id);
        const label = `${user} on ${kind}`;
        const fetched = await server.request('GET', url, { token: tokens[user] });
        assert.equal(fetched.status, EXPECTED[kind][user], `GET ${label}`);
        if (fetched.status === 403) assert.doesNotMatch(fetched.text, /P-|L-/, `GET ${label} leaks nothing`);

        const patched = await server.request('PATCH', url, { token: tokens[user], body: { passport_number: 'CHANGED' } });
        assert.equal(patched.status, EXPECTED[kind][user], `PATCH ${label}`);
        const afterPatch = (await server.request('GET', url, { token: tokens.admin })).json;
        assert.equal(afterPatch.passport_number === 'CHANGED', EXPECTED[kind][user] === 200, `PATCH ${label} changed it only when allowed`);

        const deleted = await server.request('DELETE', url, { token: tokens[user] });
        assert.equal(deleted.status, EXPECTED[kind][user] === 200 ? 204 : 403, `DELETE ${label}`);
        const afterDelete = await server.request('GET', url, { token: tokens.admin });
        assert.equal(afterDelete.status, EXPECTED[kind][user] === 200 ? 404 : 200, `DELETE ${label} removed it only when allowed`);
      }
    }
    // Hidden is 403; a contact that does not exist in the org stays 404 for everyone.
    for (const user of USERS) assert.equal((await server.request('GET', '/api/orgs/1/contacts/999999/', { token: tokens[user] })).status, 404, user);
  });

  test('a member cannot reach a hidden contact by attaching it to a project they can open', async () => {
    const hidden = await makeContact('onHiddenProject');
    const before = (await server.request('GET', apiPaths.project(1, VISIBLE_TO_MEMBER), { token: tokens.member })).json;
    const hiddenUrl = `${server.baseUrl}${apiPaths.contact(1, hidden.id)}`;
    const attached = await server.request('PATCH', apiPaths.project(1, VISIBLE_TO_MEMBER), { token: tokens.member, body: { contacts: [...before.contacts, hiddenUrl] } });
    assert.equal(attached.status, 400, attached.text.slice(0, 300));
    assert.deepEqual(attached.json, { contacts: ['Invalid hyperlink - Object does not exist.'] });
    const after = (await server.request('GET', apiPaths.project(1, VISIBLE_TO_MEMBER), { token: tokens.member })).json;
    assert.deepEqual(after.contacts, before.contacts, 'the project kept its contacts');
    assert.doesNotMatch(JSON.stringify(after), new RegExp(hidden.word));

    // The admin may attach any contact of the org, as before.
    const byAdmin = await server.request('PATCH', apiPaths.project(1, VISIBLE_TO_MEMBER), { token: tokens.admin, body: { contacts: [...before.contacts, hiddenUrl] } });
    assert.equal(byAdmin.status, 200, byAdmin.text);
  });
});
