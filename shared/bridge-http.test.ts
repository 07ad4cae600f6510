// The HTTP transport's pure parts: bytes through JSON, and Server-Sent Events
// arriving in arbitrary chunks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServerSentEventReader, decodeBridgeJson, encodeBridgeJson, formatServerSentEvent } from './bridge-http.ts';

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
  const reader = createServerSentEventReader((event, data) => events.push({ event, data }));
  for (let at = 0; at < stream.length; at += 7) {
    reader.feed(stream.slice(at, at + 7));
    // An event is handed on only once its blank line has arrived.
    assert.equal(events.length, [...stream.slice(0, at + 7).matchAll(/\ndata: .*\n\n/g)].length);
  }
  assert.deepEqual(events.map((event) => [event.event, JSON.parse(event.data)]), [
    ['sync.state', { state: 'synced' }],
    ['records.changed', { kinds: ['projects'] }],
  ]);
});
