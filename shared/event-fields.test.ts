import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_FIELD_LABELS, EVENT_SYNC_FIELDS, eventFieldLabel } from './event-fields.ts';

test('every event field sync carries has a label in people\'s words, each its own', () => {
  for (const field of EVENT_SYNC_FIELDS) {
    const label = eventFieldLabel(field);
    assert.ok(label, `${field} has a label`);
    assert.doesNotMatch(label, /_/, `${field}'s label is words, not its API name`);
  }
  assert.equal(new Set(Object.values(EVENT_FIELD_LABELS)).size, EVENT_SYNC_FIELDS.length, 'no two fields read alike');
  assert.equal(eventFieldLabel('team_members'), 'Who goes');
  assert.equal(eventFieldLabel('toString'), null, 'a name that is no event field has none');
});
