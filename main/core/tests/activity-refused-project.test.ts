// A file made in a project that was made here and then refused by the server for good
// (parked): sync holds the file's create until the project has its remote id, so the
// file's upload waits. Its activity entry says for what, naming the project, instead of
// "Waiting its turn". A real agent and server on 127.0.0.1, with the fault proxy between
// them refusing the project's create (the only fake: the remote's refusal).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness } from '../../sync/testing/sync-harness.ts';
import { multipartBody, postMultipart } from '../../engine/testing/multipart-upload.ts';
import { waitFor } from '../../watch/testing/folder-testing.ts';
import { rowsOfRecord } from '../../sync/outbox.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';
import { type SyncStatusJson, syncStateOfStatus } from '../../../shared/sync-api.ts';
import { stateLineOf } from '../../../shared/activity.ts';
import { ActivityRecorder } from '../activity-recorder.ts';

let h: SyncHarness;
before(async () => {
  h = await startSyncHarness();
});
after(() => h.close());

test("a file waiting for its refused project says so, naming the project; the project's entry says the server's reason", async () => {
  h.proxy.addRule({ method: 'POST', path: /\/projects\/$/, action: { kind: 'status', status: 400, body: { title: ['Rejected by the remote for this test.'] } } });
  const made = await h.local('POST', apiPaths.projects(1), { title: 'Shed roof, made offline', address: '4 Refused Lane' });
  assert.equal(made.status, 201, made.text);
  const projectId = made.json.id as number;
  const body = multipartBody({ title: 'shed-sketch.pdf', project: String(projectId) }, { fileName: 'shed-sketch.pdf', contents: Buffer.from('%PDF-1.4\nthe shed\n%%EOF\n') });
  const uploaded = await postMultipart(`${h.agent.localApiUrl}${apiPaths.privateFiles(1)}`, h.agent.localToken, body);
  assert.equal(uploaded.status, 201);
  const fileId = uploaded.json.id as number;
  h.agent.sync.wake();
  await waitFor('the project refused for good', async () => (await rowsOfRecord(h.agent.context.db, 'project', projectId)).some((row) => row.status === 'parked'), 30_000);

  // The recorder over the agent's store, told of the file as the change feed tells it, then of sync's state.
  const recorder = new ActivityRecorder({ db: h.agent.context.db, clock: h.agent.context.clock, orgId: 1, mode: 'synced', onRecorded: () => {}, onError: (error) => assert.fail(error as Error) });
  await recorder.fromChanges([
    { model: 'project', id: projectId, op: 'create', orgId: 1, by: { kind: 'user', userId: 1 }, projectId },
    { model: 'private_file', id: fileId, op: 'create', orgId: 1, by: { kind: 'user', userId: 1 }, projectId },
  ]);
  const status = (await h.local('GET', syncPaths.status(1))).json as SyncStatusJson;
  await recorder.fromSyncState(syncStateOfStatus(status, 0));
  const upload = (await recorder.log.list({ kinds: ['upload'] })).entries.find((entry) => entry.fileId === fileId)!;
  assert.deepEqual([upload.state, upload.waitReason], ['waiting', 'refused_project']);
  assert.equal(stateLineOf(upload, String), 'Waiting for its project "Shed roof, made offline", which the server refused: that project\'s entry says why. Once the project goes, this file follows.');
  // The project's own entry says what the server said, readably, never the raw answer, and what to do.
  const edit = (await recorder.log.list({ kinds: ['edit'] })).entries.find((entry) => entry.recordId === projectId)!;
  assert.equal(edit.state, 'failed');
  assert.equal(stateLineOf(edit, String), 'Failed: The server refused it (Title: Rejected by the remote for this test). Press Retry now to send it again, or edit it first.');
  h.proxy.clearRules();
});
