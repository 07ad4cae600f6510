// How the views read a project's `shared_with` (hosted-docs-facts.md section 11):
// entries name the org by id or by URL, `is_shared: false` hides one again, and
// sharing or unsharing one partner sends the others back unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPartnerProject, orgNamesOf, sharedOrgIds, withShare } from '../src/project/sharing.ts';

test('a project is shown as shared with the orgs of its entries, named by id or URL, minus those unshared', () => {
  const sharedWith = [
    { org_id: 2, permission: null, is_shared: true },
    { org_id: 'http://127.0.0.1:9/api/orgs/5/', permission: null },
    { org_id: 7, permission: null, is_shared: false },
    { org_id: 'not an org' },
  ];
  assert.deepEqual(sharedOrgIds(sharedWith), [2, 5]);
  assert.deepEqual(sharedOrgIds(null), []);
  assert.equal(orgNamesOf([2, 5, 9], new Map([[2, 'Basic Solar'], [5, 'Sol Partners']])), 'Basic Solar, Sol Partners and organisation 9');
});

test("a project whose org is not the signed-in org is a partner's", () => {
  assert.equal(isPartnerProject({ org_id: 1 }, 2), true);
  assert.equal(isPartnerProject({ org_id: 2 }, 2), false);
  assert.equal(isPartnerProject({ org_id: 2 }, null), false);
});

test('sharing with one partner keeps the other entries; stopping sends is_shared false and keeps its permission', () => {
  const role = '/api/orgs/1/permissions_role/3/';
  const start = [{ org_id: 5, permission: role, is_shared: true }];
  assert.deepEqual(withShare(start, 2, { isShared: true, permission: null }), [
    { org_id: 5, permission: role, is_shared: true },
    { org_id: 2, permission: null, is_shared: true },
  ]);
  assert.deepEqual(withShare(start, 5, { isShared: false }), [{ org_id: 5, permission: role, is_shared: false }]);
});
