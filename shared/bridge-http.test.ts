// The HTTP transport's pure parts: bytes through JSON, and Server-Sent Events
// arriving in arbitrary chunks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBridgeJson, encodeBridgeJson, formatServerSentEvent, parseServerSentEvents } from './bridge-http.ts';

test('a Uint8Array crosses JSON intact, and ordinary objects are left alone', () => {
  const bytes = new Uint8Array(70_000).map((_, index) => (index * 7) % 256);
  const decoded = decodeBridgeJson(encodeBridgeJson({ channel: 'files.upload', request: { bytes, fileName: 'x' } })) as { request: { bytes: Uint8Array; fileName: string } };
  assert.ok(decoded.request.bytes instanceof Uint8Array);
  assert.deepEqual(decoded.request.bytes, bytes);
  assert.equal(decoded.request.fileName, 'x');
  assert.deepEqual(decodeBridgeJson('{"$bytes": 3, "other": 1}'), { $bytes: 3, other: 1 });
});

test('events split across chunks are put back together; comments and partial events wait', () => {
  const stream = `: connected\n\n${formatServerSentEvent('sync.state', { state: 'synced' })}${formatServerSentEvent('records.changed', { kinds: ['projects'] })}`;
  const events: { event: string; data: string }[] = [];
  let buffer = '';
  for (let at = 0; at < stream.length; at += 7) {
    const parsed = parseServerSentEvents(buffer + stream.slice(at, at + 7));
    events.push(...parsed.events);
    buffer = parsed.rest;
  }
  assert.equal(buffer, '');
  assert.deepEqual(events.map((event) => [event.event, JSON.parse(event.data)]), [
    ['sync.state', { state: 'synced' }],
    ['records.changed', { kinds: ['projects'] }],
  ]);
});
