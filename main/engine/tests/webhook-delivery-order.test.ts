// Issue 18, docs/webhooks.md "Delivery": each webhook's deliveries reach its
// endpoint once each and in order, also when they are posted a window at a time,
// when some fail and are retried, and while other webhooks are delivered in
// parallel; a slow endpoint holds up only its own webhook. Real receivers on
// 127.0.0.1; small windows and fast retries so the windows and retries happen often.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { startWebhookReceiver, type ReceivedCall, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

const DELIVERY = {
  retry: { firstDelayMs: 20, maxDelayMs: 100, giveUpAfterMs: 60_000, jitter: 0.2 },
  pollIntervalMs: 50,
  pipelineWindow: 4,
  concurrency: 3,
  // Longer than any wait here on a busy machine: a held answer must not time out and be retried.
  timeoutMs: 120_000,
};

/**
 * What order means at the endpoint (docs/webhooks.md "Order"): each change is
 * accepted (2xx) exactly once; first attempts arrive in queue order; and when the
 * endpoint refuses a delivery, the only newer ones it can see before taking that
 * delivery are those already sent behind it in the same window (at most window - 1),
 * all before its first retry: a retry goes alone.
 */
function assertInOrderOnce(calls: readonly ReceivedCall[], accepted: ReadonlySet<number>, expectedChanges: number, label: string, window = DELIVERY.pipelineWindow): void {
  const ids = calls.map((call) => call.body.event_id as number);
  const acceptedIds = ids.filter((_id, index) => accepted.has(index));
  assert.equal(new Set(acceptedIds).size, acceptedIds.length, `${label}: a change was accepted twice (${ids.join(', ')})`);
  assert.equal(acceptedIds.length, expectedChanges, `${label}: every change accepted once`);
  const firstAttempts = ids.filter((id, index) => ids.indexOf(id) === index);
  assert.deepEqual(firstAttempts, [...firstAttempts].sort((a, b) => a - b), `${label}: first attempts in queue order (${ids.join(', ')})`);
  for (const [index, id] of ids.entries()) {
    if (accepted.has(index) || ids.indexOf(id) !== index) continue; // a refused first attempt
    const acceptedAt = ids.findIndex((other, at) => other === id && accepted.has(at));
    const retryAt = ids.findIndex((other, at) => other === id && at > index);
    const overtaking = ids.slice(index + 1, acceptedAt).filter((other) => other > id);
    assert.ok(new Set(overtaking).size <= window - 1, `${label}: ${overtaking.length} newer deliveries overtook refused event ${id} (${ids.join(', ')})`);
    assert.ok(ids.slice(retryAt + 1, acceptedAt).every((other) => other <= id), `${label}: a newer delivery arrived after a retry of event ${id} (${ids.join(', ')})`);
  }
}

describe('webhook delivery order and parallelism', () => {
  let server: TestServer;
  let token: string;
  const receivers: WebhookReceiver[] = [];
  const createWebhook = async (endpoint: string) => {
    const response = await server.request('POST', apiPaths.webhooks(1), {
      token,
      body: { endpoint, enabled: true, debug: false, trigger_fields: ['project.notes'], payload_fields: ['project.notes'] },
    });
    assert.equal(response.status, 201, response.text);
  };
  const patchNotes = async (projectId: number, notes: string) => {
    const response = await server.request('PATCH', apiPaths.project(1, projectId), { token, body: { notes } });
    assert.equal(response.status, 200, response.text);
  };
  const pendingDeliveries = async () =>
    Number((await server.engine.context.db.selectFrom('webhook_deliveries').select((builder) => builder.fn.countAll().as('count')).where('status', '=', 'pending').executeTakeFirstOrThrow()).count);

  before(async () => {
    server = await startTestServer({ webhookDelivery: DELIVERY });
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());
  afterEach(async () => {
    await server.engine.context.db.updateTable('webhooks').set({ enabled: 0 }).execute();
    for (const receiver of receivers.splice(0)) await receiver.close();
  });

  test('failures and retries inside windows: every change accepted once, first attempts in order, retries alone', async () => {
    const CHANGES = 30;
    const accepted = new Set<number>();
    const firstAttemptFails = new Set<number>();
    // The first attempt of every 4th change fails (500), some of them twice: each
    // window is cut short and its rest posted after the retry.
    const receiver = await startWebhookReceiver((call, index) => {
      const id = call.body.event_id as number;
      const attempts = receiver.calls.slice(0, index + 1).filter((earlier) => earlier.body.event_id === id).length;
      const failsFirst = id % 4 === 0;
      const failsTwice = id % 8 === 0;
      if (failsFirst && (attempts === 1 || (failsTwice && attempts === 2))) {
        firstAttemptFails.add(id);
        return 500;
      }
      accepted.add(index);
      return 200;
    });
    receivers.push(receiver);
    await createWebhook(receiver.url);
    for (let index = 0; index < CHANGES; index++) await patchNotes(22, `ordered ${index}`);
    await receiver.waitForCalls(CHANGES, 30_000);
    // Bounded: the retries come within 100 ms each on the real clock.
    for (let round = 0; round < 600 && (await pendingDeliveries()) > 0; round++) await new Promise((resolve) => setTimeout(resolve, 50));
    await server.engine.context.webhookWorker!.idle();
    assert.equal(await pendingDeliveries(), 0, 'every delivery made');
    assert.ok(firstAttemptFails.size >= 5, `some deliveries failed and were retried (${firstAttemptFails.size})`);
    assertInOrderOnce(receiver.calls, accepted, CHANGES, 'one webhook');
    assert.deepEqual(
      receiver.calls.filter((_call, index) => accepted.has(index)).map((call) => call.body.fields.notes).sort(),
      Array.from({ length: CHANGES }, (_unused, index) => `ordered ${index}`).sort(),
    );
  });

  test('an endpoint that does not answer holds up no other webhook, and gets everything in order once it does', async () => {
    const CHANGES = 12;
    let answer: () => void = () => {};
    const answered = new Promise<number>((resolve) => (answer = () => resolve(200)));
    const slow = await startWebhookReceiver(() => answered);
    const fast = await startWebhookReceiver();
    receivers.push(slow, fast);
    await createWebhook(slow.url);
    await createWebhook(fast.url);
    for (let index = 0; index < CHANGES; index++) await patchNotes(23, `parallel ${index}`);
    await fast.waitForCalls(CHANGES);
    await slow.waitForCalls(1);
    answer();
    const slowCalls = await slow.waitForCalls(CHANGES);
    await server.engine.context.webhookWorker!.idle();
    const all = new Set(slowCalls.map((_call, index) => index));
    assertInOrderOnce(slow.calls, all, CHANGES, 'the slow endpoint');
    assertInOrderOnce(fast.calls, new Set(fast.calls.map((_call, index) => index)), CHANGES, 'the fast endpoint');
  });

  test('more webhooks than the worker runs at once, changes made concurrently: each webhook gets each change once, in commit order', async () => {
    const WEBHOOKS = 5; // more than DELIVERY.concurrency
    const CHANGES = 16;
    const hooks: WebhookReceiver[] = [];
    for (let index = 0; index < WEBHOOKS; index++) {
      const receiver = await startWebhookReceiver();
      hooks.push(receiver);
      receivers.push(receiver);
      await createWebhook(receiver.url);
    }
    // Concurrent PATCHes of four projects: commit order, not request order, is the order.
    await Promise.all(Array.from({ length: CHANGES }, (_unused, index) => patchNotes(24 + (index % 4), `concurrent ${index}`)));
    for (const receiver of hooks) await receiver.waitForCalls(CHANGES);
    await server.engine.context.webhookWorker!.idle();
    const expected = hooks[0]!.calls.map((call) => call.body.event_id as number);
    assert.deepEqual(expected, [...expected].sort((a, b) => a - b), 'ascending event ids');
    for (const [index, receiver] of hooks.entries()) {
      assertInOrderOnce(receiver.calls, new Set(receiver.calls.map((_call, call) => call)), CHANGES, `webhook ${index}`);
      // Nothing refused: arrival order is queue order, exactly.
      assert.deepEqual(receiver.calls.map((call) => call.body.event_id), expected, `webhook ${index} got the same changes in the same order`);
    }
    const attempts = await server.engine.context.db.selectFrom('webhook_deliveries').select(['status', 'attempts', 'claimed_by']).where('change_id', 'in', expected).execute();
    assert.equal(attempts.length, WEBHOOKS * CHANGES);
    assert.ok(attempts.every((row) => row.status === 'delivered' && row.attempts === 1 && row.claimed_by === null), 'each delivered on its first attempt, no claim left');
  });
});
