// The limits on what the agent takes from a remote, on their own: answers read in
// pieces split anywhere, strings with escapes, nesting, links and Retry-After.
// The agent against a lying remote is main/sync/tests/sync-lying-transport.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedJsonText, OVERSIZED_TEXT, RemoteAnswerRefused, oversizedRecordReason, refusedLinkReason } from './remote-limits.ts';
import { readRetryAfterSeconds } from './remote-client.ts';

const SMALL = { answerChars: 200, stringChars: 10, depth: 4 };

/** The text through BoundedJsonText, fed in pieces of `size` characters. */
function collect(text: string, size: number, limits = SMALL): string {
  const collected = new BoundedJsonText(limits);
  for (let at = 0; at < text.length; at += size) collected.push(text.slice(at, at + size));
  return collected.text();
}

test('an answer under the limits comes through unchanged, however it is split', () => {
  const json = JSON.stringify({ id: 1, title: 'a "quoted" \\ one', list: [[1], { a: 'ünï' }] });
  for (const size of [1, 2, 3, 7, json.length]) assert.equal(collect(json, size, { ...SMALL, stringChars: 40 }), json, `pieces of ${size}`);
});

test('a string over the limit becomes the marker, however it is split; the rest stays', () => {
  const json = JSON.stringify({ id: 1, notes: `${'n'.repeat(30)}\\"end`, title: 'kept' });
  for (const size of [1, 4, 9, json.length]) {
    const parsed = JSON.parse(collect(json, size));
    assert.deepEqual(parsed, { id: 1, notes: OVERSIZED_TEXT, title: 'kept' }, `pieces of ${size}`);
  }
  // Exactly at the limit is kept.
  assert.equal(JSON.parse(collect(JSON.stringify({ a: 'x'.repeat(10) }), 3)).a, 'x'.repeat(10));
});

test('nesting deeper than the limit and a kept text over the limit are refused with a reason', () => {
  assert.throws(() => collect('[[[[[1]]]]]', 2), (error: Error) => error instanceof RemoteAnswerRefused && /nested more than 4 levels deep/.test(error.message));
  assert.equal(collect('[[[["[[[[[["]]]]', 2), '[[[["[[[[[["]]]]', 'brackets inside strings do not count');
  assert.throws(() => collect(`[${'1,'.repeat(150)}1]`, 16), (error: Error) => error instanceof RemoteAnswerRefused && /answer is over/.test(error.message));
});

test('a record is refused for the marker or for over 1 MB of text, design aside', () => {
  assert.equal(oversizedRecordReason({ id: 1, notes: 'short', design: 'd'.repeat(3_000_000) }), null);
  assert.match(oversizedRecordReason({ id: 1, contacts_data: [{ notes: OVERSIZED_TEXT }] })!, /a text field over 16 MB/);
  assert.match(oversizedRecordReason({ id: 1, notes: 'n'.repeat(600_000), title: 't'.repeat(600_000) })!, /text fields hold over 1 MB/);
});

test('links: http(s) on the remote origin or a named host only', () => {
  const remote = 'https://solar.example.com';
  assert.equal(refusedLinkReason('https://solar.example.com/files/1?sig=x', remote, []), null);
  assert.match(refusedLinkReason('file:///etc/passwd', remote, [])!, /a file: link, and only http\(s\) links are fetched/);
  assert.match(refusedLinkReason('http://solar.example.com/files/1', remote, [])!, /points to solar.example.com/, 'another scheme is another origin');
  assert.match(refusedLinkReason('https://solar.example.com:8443/x', remote, [])!, /neither the remote/);
  assert.equal(refusedLinkReason('https://cdn.example.net/x', remote, ['CDN.example.net']), null);
  assert.equal(refusedLinkReason('https://cdn.example.net:8443/x', remote, ['cdn.example.net:8443']), null);
  assert.match(refusedLinkReason('https://cdn.example.net:9000/x', remote, ['cdn.example.net:8443'])!, /neither the remote/);
  assert.match(refusedLinkReason('not a url', remote, [])!, /not a URL/);
});

test('Retry-After is read as seconds or a date, at least 1 s and at most an hour', () => {
  assert.equal(readRetryAfterSeconds('999999'), 3600);
  assert.equal(readRetryAfterSeconds('30'), 30);
  assert.equal(readRetryAfterSeconds(undefined), 1);
  assert.equal(readRetryAfterSeconds('soon'), 1);
  assert.equal(readRetryAfterSeconds('-5'), 1);
  const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
  assert.ok(Math.abs(readRetryAfterSeconds(inTwoMinutes) - 120) <= 2);
});
