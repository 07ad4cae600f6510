// The worker loop on its own, on ManualTimers: it works while there is work, sleeps
// until the next due time when there is none, is woken at once by wake(), pauses after
// a failed step, and stops. Nothing waits on real time; the test only lets the event
// loop turn (setImmediate) so the loop's promises settle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkerLoop } from './worker-loop.ts';
import { ManualTimers } from './testing/manual-timers.ts';

/** Lets the loop run until it waits on something (bounded). */
async function turns(count = 20): Promise<void> {
  for (let index = 0; index < count; index++) await new Promise((resolve) => setImmediate(resolve));
}

test('works while there is work, then sleeps until the next due time on its timers; wake() cuts the sleep short', async () => {
  const timers = new ManualTimers();
  let work = 3;
  let steps = 0;
  const loop = new WorkerLoop(
    {
      step: async () => {
        steps++;
        if (work === 0) return false;
        work--;
        return true;
      },
      nextDueInMs: () => 5000,
      failed: () => assert.fail('no step fails here'),
    },
    timers,
  );
  loop.start();
  await turns();
  assert.equal(work, 0, 'all the work was done');
  assert.equal(steps, 4, 'three steps that worked, one that found nothing');
  assert.deepEqual(timers.waiting, [{ inMs: 5000, background: false }], 'asleep until the next due time');

  timers.advance(4999);
  await turns();
  assert.equal(steps, 4, 'still asleep');
  timers.advance(1);
  await turns();
  assert.equal(steps, 5, 'woke when due');

  work = 1;
  loop.wake();
  await turns();
  assert.equal(steps, 7, 'woken at once: the work and one more look');
  assert.equal(timers.waiting.length, 1, 'the earlier sleep was cancelled, one is set');

  await loop.stop();
  assert.equal(loop.closed, true);
});

test('a wake while a step runs is not lost; a failed step is said and followed by a pause, not a spin', async () => {
  const timers = new ManualTimers();
  const failures: string[] = [];
  let steps = 0;
  let fail = true;
  const loop = new WorkerLoop(
    {
      step: async () => {
        steps++;
        if (steps === 1) loop.wake(); // something arrived while working
        if (steps === 3 && fail) {
          fail = false;
          throw new Error('disk hiccup');
        }
        return false;
      },
      nextDueInMs: () => 60_000,
      failed: (error) => failures.push(error.message),
    },
    timers,
  );
  loop.start();
  await turns();
  assert.equal(steps, 2, 'the wake during the first step gave a second look at once');
  loop.wake();
  await turns();
  assert.equal(steps, 3);
  assert.deepEqual(failures, ['disk hiccup']);
  assert.equal(loop.busy, true, 'pausing after the failure');
  assert.deepEqual(timers.waiting, [{ inMs: 1000, background: false }]);
  timers.advance(1000);
  await turns();
  assert.equal(steps, 4, 'went on after the pause');
  await loop.stop();
});
