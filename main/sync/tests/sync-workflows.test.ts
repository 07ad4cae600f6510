// The replica reads workflows in the hosted shape (hosted-docs-facts.md 3):
// workflow_stages with order, is_archived and actions, as the remote lists them;
// what the remote removes (actions, stages, whole workflows) goes from the replica
// too. A real server and agent on 127.0.0.1; nothing faked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { WorkflowJson } from '../../../shared/schemas/workflow.ts';

const ORG = 1;

/** The workflows without their URLs (each side names its own host). */
const comparable = (workflows: WorkflowJson[]) =>
  workflows.map(({ url: _url, org: _org, ...workflow }) => ({
    ...workflow,
    workflow_stages: workflow.workflow_stages.map((stage) => ({ ...stage, actions: stage.actions.map(({ url: _actionUrl, ...action }) => action) })),
  }));

describe('sync of workflows', () => {
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness();
  });
  after(() => h.close());

  const both = async () => {
    const local = (await h.local('GET', `${apiPaths.workflows(ORG)}?limit=1000`)).json as WorkflowJson[];
    const remote = (await h.remote('GET', `${apiPaths.workflows(ORG)}?limit=1000`)).json as WorkflowJson[];
    return { local: comparable(local), remote: comparable(remote) };
  };

  test('a workflow made and changed on the remote reaches the replica with its stages, order, archived flags and actions', async () => {
    const created = (await h.remote('POST', apiPaths.workflows(ORG), { title: 'Commercial', description: 'Larger roofs' })).json as WorkflowJson;
    const stages = created.workflow_stages.map((stage, index) => ({
      id: stage.id,
      title: index === 0 ? 'First call' : stage.title,
      milestone: stage.milestone,
      is_archived: stage.title === 'On hold',
      actions: index === 0 ? [{ id: 'newAction-0', title: 'Phone the customer' }] : [],
    }));
    const replaced = await h.remote('PUT', apiPaths.workflow(ORG, created.id), { title: 'Commercial', workflow_stages: stages });
    assert.equal(replaced.status, 200, replaced.text);
    await h.synced();
    const { local, remote } = await both();
    assert.deepEqual(local, remote);
    const copy = local.find((workflow) => workflow.id === created.id)!;
    assert.equal(copy.workflow_stages[0]!.title, 'First call');
    assert.deepEqual(copy.workflow_stages[0]!.actions.map((action) => action.title), ['Phone the customer']);
    assert.ok(copy.workflow_stages.some((stage) => stage.is_archived));
  });

  test('stages and actions the remote removed, and a deleted workflow, leave the replica', async () => {
    const created = (await h.remote('POST', apiPaths.workflows(ORG), { title: 'Short-lived' })).json as WorkflowJson;
    const withAction = created.workflow_stages.map((stage, index) => ({ id: stage.id, title: stage.title, milestone: stage.milestone, actions: index === 0 ? [{ id: 'newAction-0', title: 'Soon gone' }] : [] }));
    const grown = (await h.remote('PUT', apiPaths.workflow(ORG, created.id), { title: 'Short-lived', workflow_stages: withAction })).json as WorkflowJson;
    await h.synced();
    assert.deepEqual((await both()).local, (await both()).remote);

    const shrunk = grown.workflow_stages.slice(1, 3).map((stage) => ({ id: stage.id, title: stage.title, milestone: stage.milestone }));
    assert.equal((await h.remote('PUT', apiPaths.workflow(ORG, created.id), { title: 'Short-lived', workflow_stages: shrunk })).status, 200);
    await h.synced();
    const afterShrink = await both();
    assert.deepEqual(afterShrink.local, afterShrink.remote);
    assert.equal(afterShrink.local.find((workflow) => workflow.id === created.id)!.workflow_stages.length, 2);

    assert.equal((await h.remote('DELETE', apiPaths.workflow(ORG, created.id))).status, 204);
    await h.synced();
    const afterDelete = await both();
    assert.deepEqual(afterDelete.local, afterDelete.remote);
    assert.ok(!afterDelete.local.some((workflow) => workflow.id === created.id));
  });
});
