// fieldsReadBy: which top-level fields of a record the enabled webhooks compare or
// send, so change capture knows which of a project's lists it must read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldsReadBy, type ParsedWebhook } from './webhook-capture.ts';
import { DEFAULT_PAYLOAD_FIELDS, DEFAULT_TRIGGER_FIELDS } from '../../../shared/webhook-fields.ts';

const webhook = (triggers: string[] | null, payload: string[] | null, id = 1): ParsedWebhook => ({ id, triggers, payload });
const sorted = (fields: ReadonlySet<string> | 'all') => (fields === 'all' ? 'all' : [...fields].sort());

test('the heads of a model’s trigger and payload paths, across webhooks', () => {
  const webhooks = [webhook(['project.notes', 'contact.*'], ['project.notes', 'project.contacts_data.email']), webhook(['project.systems.kw_stc'], ['project.id'], 2)];
  assert.deepEqual(sorted(fieldsReadBy(webhooks, 'project')), ['contacts_data', 'id', 'notes', 'systems']);
});

test('model.* in triggers or payload, or a model sent whole (absent from payload_fields), reads every field', () => {
  assert.equal(fieldsReadBy([webhook(['project.*'], ['project.id'])], 'project'), 'all');
  assert.equal(fieldsReadBy([webhook(['project.notes'], ['project.*'])], 'project'), 'all');
  assert.equal(fieldsReadBy([webhook(['project.notes'], ['contact.*'])], 'project'), 'all');
  assert.equal(fieldsReadBy([webhook(['project.notes'], null)], 'project'), 'all');
});

test('a model no webhook fires for reads nothing; a model webhooks cannot name reads nothing', () => {
  assert.deepEqual(sorted(fieldsReadBy([webhook(['contact.*'], null)], 'project')), []);
  assert.deepEqual(sorted(fieldsReadBy([webhook(null, null)], 'project')), []);
  assert.deepEqual(sorted(fieldsReadBy([webhook(['project.*'], null)], 'private_file')), []);
  assert.deepEqual(sorted(fieldsReadBy([], 'project')), []);
});

test('the default fields read the project’s events but not its files', () => {
  const fields = fieldsReadBy([webhook([...DEFAULT_TRIGGER_FIELDS], [...DEFAULT_PAYLOAD_FIELDS])], 'project');
  assert.notEqual(fields, 'all');
  assert.ok((fields as ReadonlySet<string>).has('events_data'));
  assert.ok(!(fields as ReadonlySet<string>).has('private_files') && !(fields as ReadonlySet<string>).has('private_files_data'));
});
