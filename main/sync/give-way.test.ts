// The pull's give-way (give-way.ts), with real timers. Each check waits on an order
// of events, not on a duration the machine's speed decides: the times that would
// otherwise race (the longest wait) are set far apart for the test.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { ForegroundActivity } from './give-way.ts';

/** Whether `promise` has settled after the event loop has turned a few times. */
async function hasSettled(promise: Promise<unknown>, turns = 20): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await sleep(turns);
  return settled;
}

describe('the pull gives way to the local API', () => {
  test('with no request being served, the pull goes on', async () => {
    const foreground = new ForegroundActivity({ maxWaitMs: 60_000 });
    assert.equal(await hasSettled(foreground.giveWay()), true);
  });

  test('while a request is being served the pull waits, and goes on once it is answered', async () => {
    const foreground = new ForegroundActivity({ maxWaitMs: 60_000, servingAtMostMs: 60_000 });
    const request = {};
    foreground.started(request);
    const waiting = foreground.giveWay();
    assert.equal(await hasSettled(waiting, 50), false, 'went on while a request was being served');
    foreground.finished(request);
    await waiting;
  });

  test('an aborted or answered request is forgotten; another one still holds the pull', async () => {
    const foreground = new ForegroundActivity({ maxWaitMs: 60_000, servingAtMostMs: 60_000 });
    const first = {};
    const second = {};
    foreground.started(first);
    foreground.started(second);
    const waiting = foreground.giveWay();
    foreground.finished(first);
    assert.equal(await hasSettled(waiting, 50), false, 'went on while the second request was still being served');
    foreground.finished(second);
    await waiting;
  });

  test('right after a request, the pull waits for the quiet time before going on', async () => {
    const foreground = new ForegroundActivity({ quietMs: 80, maxWaitMs: 60_000 });
    const request = {};
    foreground.started(request);
    foreground.finished(request);
    const started = performance.now();
    await foreground.giveWay();
    assert.ok(performance.now() - started >= 79, 'went on within the quiet time after a request');
  });

  test('a request that never ends holds the pull back for the longest wait only', async () => {
    const foreground = new ForegroundActivity({ maxWaitMs: 60, servingAtMostMs: 60_000 });
    foreground.started({});
    const started = performance.now();
    await foreground.giveWay();
    assert.ok(performance.now() - started >= 59, 'gave up waiting before the longest wait');
  });

  test('a request that goes on being served releases the pull once it has been served its longest', async () => {
    const foreground = new ForegroundActivity({ maxWaitMs: 60_000, servingAtMostMs: 40 });
    foreground.started({});
    const started = performance.now();
    await foreground.giveWay();
    assert.ok(performance.now() - started >= 39, 'went on while the request still counted');
  });

  test('a request served for longer than a screen read (a download) no longer counts', async () => {
    const foreground = new ForegroundActivity({ maxWaitMs: 60_000, servingAtMostMs: 30 });
    foreground.started({});
    await sleep(40);
    assert.equal(foreground.isServing(), false);
    await foreground.giveWay();
  });
});
