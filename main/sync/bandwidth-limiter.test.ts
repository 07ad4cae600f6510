// The speed caps' scheduling on an injected clock (ManualClock: the only fake, so a
// minute of transfers takes no minute here; the limiter's sleeps move it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../engine/clock.ts';
import { BandwidthLimiter, MeteredWaitError } from './bandwidth-limiter.ts';
import { type TransferCaps, NO_TRANSFER_CAPS, capBytesPerSecond, isWithinHours, transferCapsProblem } from '../../shared/transfer-caps.ts';

const KB = 1000;
/** 9:00 local time: the limiter reads the hours in the machine's own time zone. */
const nineInTheMorning = () => new ManualClock(new Date(2026, 5, 1, 9, 0, 0));

function limiterWith(clock: ManualClock, caps: Partial<TransferCaps>) {
  const current: TransferCaps = { ...NO_TRANSFER_CAPS, ...caps };
  const limiter = new BandwidthLimiter(clock, () => current, { sleep: async (ms) => clock.advance(ms) });
  return { limiter, caps: current };
}

/** An endless source of 64 KB chunks, as a socket hands them over. */
async function* chunks(): AsyncGenerator<Buffer> {
  for (;;) yield Buffer.alloc(64 * KB);
}

/** Reads `source` until the clock passes `untilMs`, noting when each piece went. */
async function drain(clock: ManualClock, source: AsyncIterable<Buffer>, untilMs: number, log: Array<{ at: number; bytes: number }>) {
  for await (const piece of source) {
    log.push({ at: clock.now().getTime(), bytes: piece.length });
    if (clock.now().getTime() >= untilMs) return;
  }
}

test('a 100 KB/s download cap holds within 10 % over every 10 s of a minute of transfers', async () => {
  const clock = nineInTheMorning();
  const { limiter } = limiterWith(clock, { downloadKBps: 100 });
  const start = clock.now().getTime();
  const log: Array<{ at: number; bytes: number }> = [];
  // Two background downloads at once share the one cap.
  await Promise.all([
    drain(clock, limiter.paced(chunks(), 'download', 'background'), start + 60_000, log),
    drain(clock, limiter.paced(chunks(), 'download', 'background'), start + 60_000, log),
  ]);
  const total = log.reduce((sum, entry) => sum + entry.bytes, 0);
  const average = total / 60;
  assert.ok(Math.abs(average - 100 * KB) <= 10 * KB, `averaged ${average} B/s over the minute`);
  for (let from = start; from + 10_000 <= start + 60_000; from += 250) {
    const inWindow = log.filter((entry) => entry.at >= from && entry.at < from + 10_000).reduce((sum, entry) => sum + entry.bytes, 0);
    assert.ok(inWindow <= 1.1 * 100 * KB * 10, `${inWindow} bytes in the 10 s from ${from - start} ms`);
  }
});

test('a file a person opens goes before background prefetch, within a piece, and takes the link until it is done', async () => {
  const clock = nineInTheMorning();
  const { limiter } = limiterWith(clock, { downloadKBps: 100 });
  const start = clock.now().getTime();
  const background: Array<{ at: number; bytes: number }> = [];
  let openedAt = 0;
  let firstUserPieceAt = 0;
  let userDoneAt = 0;
  let userWork: Promise<void> | null = null;
  const openFile = async () => {
    openedAt = clock.now().getTime();
    // 300 KB that the person waits for.
    for await (const piece of limiter.paced([Buffer.alloc(300 * KB)], 'download', 'user')) {
      if (!firstUserPieceAt) firstUserPieceAt = clock.now().getTime();
      void piece;
    }
    userDoneAt = clock.now().getTime();
  };
  for await (const piece of limiter.paced(chunks(), 'download', 'background')) {
    background.push({ at: clock.now().getTime(), bytes: piece.length });
    if (!userWork && clock.now().getTime() >= start + 20_000) userWork = openFile();
    if (clock.now().getTime() >= start + 30_000) break;
  }
  await userWork;
  assert.ok(firstUserPieceAt - openedAt <= 2000, `the opened file started ${firstUserPieceAt - openedAt} ms after it was asked for`);
  // 300 KB at 100 KB/s is 3 s; background got nothing in between.
  assert.ok(userDoneAt - openedAt <= 3_600, `the opened file took ${userDoneAt - openedAt} ms`);
  const backgroundMeanwhile = background.filter((entry) => entry.at > firstUserPieceAt && entry.at < userDoneAt);
  assert.deepEqual(backgroundMeanwhile, [], 'no background piece went while the person waited');
});

test('outside the set hours, and with no cap, transfers are not held', async () => {
  const clock = new ManualClock(new Date(2026, 5, 1, 19, 30, 0));
  const { limiter } = limiterWith(clock, { uploadKBps: 50, downloadKBps: 50, hours: { from: '08:00', to: '18:00' } });
  const before = clock.now().getTime();
  for await (const piece of limiter.paced([Buffer.alloc(5_000 * KB)], 'upload', 'background')) void piece;
  assert.equal(clock.now().getTime(), before, '5 MB at 19:30 went at once');
  // Back inside the hours (next morning at 10:00) the cap holds again.
  clock.advance((14 * 60 + 30) * 60_000);
  const inside = clock.now().getTime();
  for await (const piece of limiter.paced([Buffer.alloc(500 * KB)], 'upload', 'background')) void piece;
  assert.ok(clock.now().getTime() - inside >= 9_000, `500 KB at 50 KB/s took ${clock.now().getTime() - inside} ms`);
});

test('on a metered connection background transfers wait with a reason, and a person\u2019s open still goes', async () => {
  const clock = nineInTheMorning();
  const { limiter, caps } = limiterWith(clock, { metered: true });
  await assert.rejects(limiter.take('download', 1000, 'background'), MeteredWaitError);
  await limiter.take('download', 1000, 'user');
  // Turning metered on holds a background piece that was already waiting for the cap.
  caps.metered = false;
  caps.downloadKBps = 8;
  await limiter.take('download', 8 * KB, 'background');
  const waiting = limiter.take('download', 8 * KB, 'background');
  caps.metered = true;
  await assert.rejects(waiting, MeteredWaitError);
});

test('an aborted transfer leaves the queue, and the next one goes', async () => {
  const clock = nineInTheMorning();
  const { limiter } = limiterWith(clock, { uploadKBps: 8 });
  await limiter.take('upload', 8 * KB, 'background');
  const controller = new AbortController();
  const aborted = limiter.take('upload', 8 * KB, 'background', controller.signal);
  controller.abort(new Error('the agent is closing'));
  await assert.rejects(aborted, /the agent is closing/);
  await limiter.take('upload', 8 * KB, 'user');
});

test('the caps\u2019 hours wrap midnight, and bad caps are refused with a sentence', () => {
  assert.equal(isWithinHours({ from: '22:00', to: '06:00' }, 23 * 60), true);
  assert.equal(isWithinHours({ from: '22:00', to: '06:00' }, 5 * 60 + 59), true);
  assert.equal(isWithinHours({ from: '22:00', to: '06:00' }, 12 * 60), false);
  assert.equal(capBytesPerSecond({ ...NO_TRANSFER_CAPS, uploadKBps: 64 }, 'upload', 0), 64_000);
  assert.equal(capBytesPerSecond({ ...NO_TRANSFER_CAPS, uploadKBps: 64 }, 'download', 0), null);
  assert.match(transferCapsProblem({ ...NO_TRANSFER_CAPS, uploadKBps: 2 }) ?? '', /upload cap must be a whole number of KB\/s from 8/);
  assert.match(transferCapsProblem({ ...NO_TRANSFER_CAPS, hours: { from: '8am', to: '18:00' } }) ?? '', /24-hour times/);
  assert.match(transferCapsProblem({ ...NO_TRANSFER_CAPS, hours: { from: '08:00', to: '08:00' } }) ?? '', /same time/);
  assert.equal(transferCapsProblem({ ...NO_TRANSFER_CAPS, downloadKBps: 100, hours: { from: '08:00', to: '18:00' } }), null);
});
