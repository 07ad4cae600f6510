// Pure helpers of shared/: URL references, usage rules, the design codec.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync, gunzipSync } from 'node:zlib';
import { parseOrgReference, parseRoofTypeReference } from './api-paths.ts';
import { annualUsageOrGuess, describeUsageProblem } from './usage.ts';
import { decodeDesign, encodeDesign } from './design-codec.ts';

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

test('usage pairs are checked exactly and the annual figure derived', () => {
  assert.equal(describeUsageProblem({ usage_data_source: 'kwh_monthly', values: Array(12).fill(1) }), null);
  assert.match(describeUsageProblem({ usage_data_source: 'kwh_monthly', values: Array(12).fill(1.5) })!, /12 non-negative integers/);
  assert.match(describeUsageProblem({ usage_data_source: 'nope', values: 1 })!, /must be one of/);
  assert.match(describeUsageProblem(null)!, /Expected an object/);
  assert.equal(annualUsageOrGuess({ usage_data_source: 'kwh_quarterly', values: [1, 2, 3, 4] }, true), 10);
  assert.equal(annualUsageOrGuess(null, true) < annualUsageOrGuess(null, false), true);
});

test('the design codec is base64(gzip(JSON)) and interoperates with node zlib', () => {
  const design = { site: { name: 'Ünïcødé roof ☀' }, values: Array.from({ length: 50_000 }, (_, i) => i) };
  const encoded = encodeDesign(design);
  assert.match(encoded, /^H4sI/);
  assert.deepEqual(JSON.parse(gunzipSync(Buffer.from(encoded, 'base64')).toString('utf8')), design);
  const fromNode = gzipSync(Buffer.from(JSON.stringify(design))).toString('base64');
  assert.deepEqual(decodeDesign(fromNode), design);
  assert.throws(() => decodeDesign('not base64 gzip'));
});
