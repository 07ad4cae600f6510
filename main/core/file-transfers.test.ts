// uploadRefused: what a user reads when the server refuses a file, for each
// refusal the Files tab can meet (413, 429, 403) and any other answer. The 413
// path is also driven end to end (main/app-core.test.ts, e2e/files-manage.spec.ts);
// 429 and 403 are hard to provoke from a local admin, so their sentences are
// checked here on the answers the engine gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uploadRefused } from './file-transfers.ts';

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, body, headers });

test('too large: the server limit in its words, and what to do', () => {
  const error = uploadRefused('site.jpg', 'Could not start', answer(413, { detail: 'The file is too large. This server accepts files of at most 2 MiB (2097152 bytes).' }));
  assert.equal(error.status, 413);
  assert.equal(
    error.message,
    'site.jpg was not uploaded: it is too large for this server. This server accepts files of at most 2 MiB (2097152 bytes). Make it smaller (export a photo at a lower resolution, compress or split a PDF) and add it again.',
  );
});

test('over the quota: when to try again, from Retry-After', () => {
  const body = { detail: 'Request was throttled. Expected available in 42 seconds.' };
  assert.equal(
    uploadRefused('bill.pdf', 'x', answer(429, body, { 'retry-after': '42' })).message,
    'bill.pdf was not uploaded: the upload quota is used up for now. Nothing was attached; add the file again in 42 seconds.',
  );
  assert.match(uploadRefused('bill.pdf', 'x', answer(429, body, { 'retry-after': '7200' })).message, /again in 120 minutes\.$/);
  assert.match(uploadRefused('bill.pdf', 'x', answer(429, body)).message, /add the file again later\.$/);
});

test('no permission: who to ask', () => {
  const error = uploadRefused('contract.pdf', 'x', answer(403, { detail: 'You do not have permission to perform this action.' }));
  assert.equal(
    error.message,
    'contract.pdf was not uploaded: your account may not add files here (You do not have permission to perform this action). Ask an admin of your org for access to private files, then add it again.',
  );
});

test('anything else: what failed and the API words', () => {
  assert.equal(uploadRefused('x.txt', 'Could not start uploading x.txt', answer(400, { project: ['Invalid pk "999999" - object does not exist.'] })).message, 'Could not start uploading x.txt: project: Invalid pk "999999" - object does not exist.');
});
