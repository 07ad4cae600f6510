// A change's deliveries are written in the change's own transaction: a server
// killed with SIGKILL right after answering still delivers it after a restart.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { makeTempDir } from '../testing/test-server.ts';
import { startWebhookReceiver } from '../testing/webhook-receiver.ts';
import { signIn, startServerProcess, stopServerProcess } from '../testing/server-process.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

const dataDir = makeTempDir('solardesk-durability-');
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

test('SIGKILL right after answering a PATCH: the change is delivered after restart', async () => {
  let answerNow = false;
  const held: Array<(status: number) => void> = [];
  // Until the restart the endpoint never answers, so no delivery can complete before the kill.
  const receiver = await startWebhookReceiver(() => (answerNow ? 200 : new Promise<number>((resolve) => held.push(resolve))));
  const args = ['--data', dataDir, '--seed', 'demo', '--allow-private-webhook-endpoints'];
  try {
    const first = await startServerProcess(args);
    const token = await signIn(first.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${first.baseUrl}${apiPaths.webhooks(1)}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ endpoint: receiver.url, enabled: true, debug: false, trigger_fields: ['project.notes'], payload_fields: ['project.notes'] }),
    });
    assert.equal(created.status, 201);
    const patched = await fetch(`${first.baseUrl}${apiPaths.project(1, 20)}`, { method: 'PATCH', headers, body: JSON.stringify({ notes: 'survives SIGKILL' }) });
    assert.equal(patched.status, 200);
    first.child.kill('SIGKILL');
    await stopServerProcess(first, 'SIGKILL');

    const callsBeforeRestart = receiver.calls.length;
    answerNow = true;
    held.splice(0).forEach((resolve) => resolve(200));
    const second = await startServerProcess(args);
    try {
      const calls = await receiver.waitForCalls(callsBeforeRestart + 1);
      const delivered = calls[calls.length - 1]!;
      assert.equal(delivered.body.model, 'Project');
      assert.equal(delivered.body.model_id, 20);
      assert.equal(delivered.body.event, 'UPDATE');
      assert.deepEqual(delivered.body.fields, { notes: 'survives SIGKILL' });
    } finally {
      assert.equal(await stopServerProcess(second), 0);
    }
  } finally {
    await receiver.close();
  }
});
