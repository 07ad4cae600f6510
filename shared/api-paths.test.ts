// The URL shapes of shared/api-paths.ts: builders, and parsers that read their paths back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiPaths, parseFileTagReference, parseOrgApiPath, parseOrgReference, parseRoofTypeReference, parseUserReference, syncPaths } from './api-paths.ts';

test('references parse from absolute URLs, relative paths and bare ids, and nothing else', () => {
  assert.deepEqual(parseOrgReference('https://api.example.com/api/orgs/1/projects/42/', 'projects'), { orgId: 1, id: 42 });
  assert.deepEqual(parseOrgReference('/api/orgs/7/projects/3', 'projects'), { orgId: 7, id: 3 });
  assert.deepEqual(parseOrgReference('15', 'projects'), { orgId: null, id: 15 });
  assert.deepEqual(parseOrgReference(15, 'projects'), { orgId: null, id: 15 });
  assert.equal(parseOrgReference('/api/orgs/7/contacts/3/', 'projects'), null);
  assert.equal(parseOrgReference('/api/orgs/7/projects/3/../../contacts/1/', 'projects'), null);
  assert.equal(parseOrgReference('http://[bad', 'projects'), null);
  assert.equal(parseOrgReference(-1, 'projects'), null);
  assert.equal(parseOrgReference({ id: 1 }, 'projects'), null);
  assert.equal(parseRoofTypeReference('http://x/api/roof_types/3/'), 3);
  assert.equal(parseRoofTypeReference('roof'), null);
});

test('every builder makes a path its parser reads back', () => {
  assert.equal(apiPaths.project(1, 42), '/api/orgs/1/projects/42/');
  assert.equal(apiPaths.orgRecord(1, 'projects', 42), apiPaths.project(1, 42));
  assert.equal(apiPaths.orgRecords(3, 'webhooks'), apiPaths.webhooks(3));
  assert.equal(apiPaths.fileUploadPart(1, 'abc', 2), '/api/orgs/1/private_files/uploads/abc/parts/2/');
  assert.equal(apiPaths.fileUploadComplete(1, 'abc'), '/api/orgs/1/private_files/uploads/abc/complete/');
  assert.equal(syncPaths.resolveConflict(2, 5), '/api/orgs/2/sync/conflicts/5/resolve/');
  assert.equal(syncPaths.restorePending(2, 5), '/api/orgs/2/sync/pending/5/restore/');
  assert.equal(apiPaths.systemDetails(1, 42), '/api/orgs/1/projects/42/systems/details/');
  assert.equal(apiPaths.systemImage(1, 42, 'u-1'), '/api/orgs/1/projects/42/systems/u-1/image/');
  assert.equal(apiPaths.fetchToken(), '/api/fetch_token/');
  assert.equal(apiPaths.fetchToken(3), '/api/fetch_token/?org_id=3');
  const records = [
    [apiPaths.project(1, 42), 'projects'],
    [apiPaths.contact(1, 43), 'contacts'],
    [apiPaths.role(1, 44), 'roles'],
    [apiPaths.event(1, 45), 'events'],
    [apiPaths.webhook(1, 46), 'webhooks'],
    [apiPaths.privateFile(1, 47), 'private_files'],
    [apiPaths.orgRecord(1, 'file_tags', 48), 'file_tags'],
  ] as const;
  for (const [path, kind] of records) {
    assert.equal(parseOrgReference(`https://remote.example${path}`, kind)?.id, Number(path.split('/').at(-2)), path);
  }
  assert.equal(parseUserReference(`https://remote.example${apiPaths.user(9)}`), 9);
  assert.equal(parseUserReference('/auth/users/9'), 9);
  assert.equal(parseUserReference(apiPaths.project(1, 9)), null);
  assert.equal(parseUserReference(9), null);
  assert.equal(parseRoofTypeReference(apiPaths.roofType(6)), 6);
});

test('org API paths split into collection, record id and the rest', () => {
  assert.deepEqual(parseOrgApiPath('/api/orgs/1/projects/42/'), { orgId: 1, collection: 'projects', id: 42, rest: '' });
  assert.deepEqual(parseOrgApiPath('/api/orgs/1/projects'), { orgId: 1, collection: 'projects', id: null, rest: '' });
  assert.deepEqual(parseOrgApiPath(apiPaths.fileUploadPart(1, 'abc', 2)), { orgId: 1, collection: 'private_files', id: null, rest: 'uploads/abc/parts/2/' });
  assert.deepEqual(parseOrgApiPath(syncPaths.confirmPending(1, 7)), { orgId: 1, collection: 'sync', id: null, rest: 'pending/7/confirm/' });
  assert.equal(parseOrgApiPath('/api/orgs/1/'), null);
  assert.equal(parseOrgApiPath('/api/roof_types/3/'), null);
  assert.equal(parseOrgReference('/api/orgs/1/projects/1234567890123456/', 'projects'), null, 'ids stay safe integers');
  assert.equal(parseOrgReference('/api/orgs/1/projects/42/history/', 'projects'), null, 'a path below a record is not a reference to it');
});

test('file tag references: /api/file_tags/<id>/, a bare id, or the org-scoped form of older clients in the same org', () => {
  assert.equal(parseFileTagReference(apiPaths.fileTag(45)), 45);
  assert.equal(parseFileTagReference(`https://remote.example${apiPaths.fileTag(1001)}`), 1001);
  assert.equal(parseFileTagReference('35'), 35);
  assert.equal(parseFileTagReference(35), 35);
  assert.equal(parseFileTagReference(apiPaths.orgRecord(1, 'file_tags', 7), 1), 7);
  assert.equal(parseFileTagReference(apiPaths.orgRecord(2, 'file_tags', 7), 1), null);
  assert.equal(parseFileTagReference('/api/file_tags/0/'), null);
  assert.equal(parseFileTagReference('/api/file_tags/x/'), null);
  assert.equal(parseFileTagReference('Site - Photo'), null);
});
