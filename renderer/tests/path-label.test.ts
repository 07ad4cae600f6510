// Webhook field paths in people's words (issue 28, item 4): the chip's label and the
// screen reader's "Remove …" read these, not the raw path.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pathLabel } from '../src/webhooks/path-label.ts';

test('a path reads as its field, parents singular, with no snake_case left', () => {
  assert.equal(pathLabel('project.systems.price_including_tax'), 'System price including tax');
  assert.equal(pathLabel('project.site_notes'), 'Site notes');
  assert.equal(pathLabel('project.lat'), 'Latitude');
  assert.equal(pathLabel('contact.*'), 'Every contact field');
  assert.equal(pathLabel('project.contacts_data.email'), 'Contact email');
  assert.equal(pathLabel('project.assigned_role_data.family_name'), 'Assigned role family name');
  assert.equal(pathLabel('quoteactivitylog.*'), 'Every quoteactivitylog field');
  for (const path of ['project.contacts_data', 'event.event_type_id', 'project.systems.kw_stc']) assert.doesNotMatch(pathLabel(path), /_/);
});
