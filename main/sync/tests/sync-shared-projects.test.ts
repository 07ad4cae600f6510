// Facts section 11 on the desktop (docs/sync.md "Shared projects"): the replica of
// a partner org pulls the projects a connected org shares with it, keeps them
// read-only (the local engine refuses an edit with a message, and nothing reaches
// the outbox), and drops them when they are unshared. Real server, real agents,
// the fault proxy passing everything through.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness, type SyncedAgent } from '../testing/sync-harness.ts';
import { DEMO_USERS } from '../../engine/seed/demo-accounts.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { countChangesStillMoving } from '../outbox.ts';

const SUNRISE = 1;
const BASIC = 2;
const PROJECT = 7;

/** Polls until `check` holds, or fails after `timeoutMs`. */
async function within(timeoutMs: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not so after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a partner desktop and the projects shared with its org', () => {
  let harness: SyncHarness;
  let basicDesk: SyncedAgent;

  before(async () => {
    harness = await startSyncHarness();
    basicDesk = await harness.addAgent(DEMO_USERS.basicAdmin);
    const basic = await harness.server.tokenFor(DEMO_USERS.basicAdmin);
    assert.equal((await harness.remote('POST', apiPaths.connectedOrgs(SUNRISE), { org_name: 'Basic Solar' })).status, 201);
    const accepted = await harness.server.request('POST', apiPaths.connectedOrgsAccept(BASIC), { token: basic, body: { org_to_id: SUNRISE } });
    assert.equal(accepted.status, 200, accepted.text);
  });
  after(() => harness.close());

  test('a project shared with the org is pulled into its replica, under its own org path, with the owner as org_id', async () => {
    const shared = await harness.remote('PATCH', apiPaths.project(SUNRISE, PROJECT), { shared_with: [{ org_id: BASIC }] });
    assert.equal(shared.status, 200, shared.text);
    await within(15_000, 'the shared project in the partner replica', async () => {
      basicDesk.agent.sync.wake();
      return (await basicDesk.local('GET', apiPaths.project(BASIC, PROJECT))).status === 200;
    });
    const local = (await basicDesk.local('GET', apiPaths.project(BASIC, PROJECT))).json;
    assert.equal(local.org_id, SUNRISE);
    assert.equal(local.org_name, 'Sunrise Solar');
    const listed = (await basicDesk.local('GET', `${apiPaths.projects(BASIC)}?limit=1000`)).json as Array<{ id: number }>;
    assert.ok(listed.some((row) => row.id === PROJECT), 'listed with the org\'s own projects');
  });

  test('the replica refuses local edits to it with a message, and the outbox holds nothing to push', async () => {
    for (const [method, body] of [['PATCH', { notes: 'edited on the partner desktop' }], ['DELETE', undefined]] as const) {
      const response = await basicDesk.local(method, apiPaths.project(BASIC, PROJECT), body);
      assert.equal(response.status, 403, response.text);
      assert.match(response.json.detail, /shared with your organisation by Sunrise Solar and is read-only here/);
    }
    assert.equal(await countChangesStillMoving(basicDesk.agent.context.db), 0);
    assert.notEqual((await harness.remote('GET', apiPaths.project(SUNRISE, PROJECT))).json.notes, 'edited on the partner desktop');
  });

  test("the owner's changes reach the partner replica", async () => {
    assert.equal((await harness.remote('PATCH', apiPaths.project(SUNRISE, PROJECT), { notes: 'owner changed it' })).status, 200);
    await within(15_000, 'the change in the partner replica', async () => {
      basicDesk.agent.sync.wake();
      return (await basicDesk.local('GET', apiPaths.project(BASIC, PROJECT))).json?.notes === 'owner changed it';
    });
  });

  test('unsharing removes it from the partner replica', async () => {
    assert.equal((await harness.remote('PATCH', apiPaths.project(SUNRISE, PROJECT), { shared_with: [{ org_id: BASIC, is_shared: false }] })).status, 200);
    await within(15_000, 'the project gone from the partner replica', async () => {
      basicDesk.agent.sync.wake();
      return (await basicDesk.local('GET', apiPaths.project(BASIC, PROJECT))).status === 404;
    });
    assert.equal((await harness.local('GET', apiPaths.project(SUNRISE, PROJECT))).status, 200, "the owner's replica keeps it");
  });
});
