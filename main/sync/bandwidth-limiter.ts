// Paces file transfers to the user's speed caps (shared/transfer-caps.ts), per
// direction, with user work first.
//
// Each direction is a generic cell rate scheduler: it keeps the time at which the
// bytes granted so far would have gone at exactly the cap (`paidUntil`), and grants a
// piece once that time is no more than BURST_MS ahead of now. Pieces are at most
// PIECE_MS of the cap, so over any window of T seconds at most cap x (T + BURST_MS +
// PIECE_MS) bytes go: within 10 % of the cap over any 10 s, as the issue asks.
//
// Waiting pieces are granted user first, then in arrival order: a file a person opens
// takes the link from background prefetch within one piece. On a metered connection
// background pieces do not wait: they fail at once with MeteredWaitError, so the
// caller leaves the transfer for later and the sync loop stays free.
import type { Clock } from '../engine/clock.ts';
import type { RequestClass } from './quota-pacer.ts';
import { type TransferCaps, type TransferDirection, NO_TRANSFER_CAPS, capBytesPerSecond } from '../../shared/transfer-caps.ts';

/** How far ahead of the cap the granted bytes may run (a short burst after a pause). */
const BURST_MS = 250;
/** The longest a single piece may take at the cap. */
const PIECE_MS = 250;
/** Never slice finer than this (a piece's own overhead would dominate). */
const MIN_PIECE_BYTES = 1024;

/** A background transfer that may not go on a metered connection. */
export class MeteredWaitError extends Error {
  constructor(readonly direction: TransferDirection) {
    super(`background ${direction}s wait while the connection is metered`);
  }
}

interface Waiter {
  bytes: number;
  requestClass: RequestClass;
  grant: () => void;
  refuse: (error: Error) => void;
}

export interface BandwidthLimiterOptions {
  /** Waits; tests pass one that moves a ManualClock. */
  sleep?: (ms: number) => Promise<void>;
}

class DirectionPacer {
  private paidUntil = 0;
  private readonly waiting: Waiter[] = [];
  private pumping = false;

  constructor(
    private readonly direction: TransferDirection,
    private readonly clock: Clock,
    private readonly caps: () => TransferCaps,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  cap(): number | null {
    const now = this.clock.now();
    return capBytesPerSecond(this.caps(), this.direction, now.getHours() * 60 + now.getMinutes());
  }

  take(bytes: number, requestClass: RequestClass, signal?: AbortSignal): Promise<void> {
    if (requestClass === 'background' && this.caps().metered) return Promise.reject(new MeteredWaitError(this.direction));
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    // Uncapped with nobody waiting: no queue, no turn to wait for.
    if (this.waiting.length === 0 && !this.pumping && this.cap() === null) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        requestClass,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        refuse: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        waiter.refuse(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
      void this.pump();
    });
  }

  /** The next piece to grant: the first user waiter, else the first one. */
  private next(): Waiter | undefined {
    return this.waiting.find((waiter) => waiter.requestClass === 'user') ?? this.waiting[0];
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (;;) {
        // Let whoever was just granted ask for its next piece before choosing, so a person's
        // transfer is in the queue when background's next piece would be granted.
        await new Promise<void>((resolve) => setImmediate(resolve));
        const waiter = this.next();
        if (!waiter) return;
        // A background waiter that became metered while it waited leaves now.
        if (waiter.requestClass === 'background' && this.caps().metered) {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          waiter.refuse(new MeteredWaitError(this.direction));
          continue;
        }
        const cap = this.cap();
        const now = this.clock.now().getTime();
        if (cap === null) {
          this.paidUntil = now;
        } else {
          const wait = this.paidUntil - BURST_MS - now;
          if (wait > 0) {
            // Someone may arrive (a user piece) or leave meanwhile: choose again after the wait.
            await this.sleep(wait);
            continue;
          }
          this.paidUntil = Math.max(this.paidUntil, now) + (waiter.bytes / cap) * 1000;
        }
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        waiter.grant();
      }
    } finally {
      this.pumping = false;
    }
  }
}

export class BandwidthLimiter {
  private readonly pacers: Record<TransferDirection, DirectionPacer>;

  constructor(
    clock: Clock,
    private readonly caps: () => TransferCaps = () => NO_TRANSFER_CAPS,
    options: BandwidthLimiterOptions = {},
  ) {
    const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    this.pacers = {
      upload: new DirectionPacer('upload', clock, caps, sleep),
      download: new DirectionPacer('download', clock, caps, sleep),
    };
  }

  /** Throws MeteredWaitError when `requestClass` work in `direction` must wait for an unmetered connection: check before a transfer starts. */
  assertMayStart(direction: TransferDirection, requestClass: RequestClass): void {
    if (requestClass === 'background' && this.caps().metered) throw new MeteredWaitError(direction);
  }

  /** The cap on `direction` now, in bytes a second, or null when none holds now. */
  capBytesPerSecond(direction: TransferDirection): number | null {
    return this.pacers[direction].cap();
  }

  /** The largest piece to ask for at once: PIECE_MS of the cap now, or the whole chunk when uncapped. */
  pieceBytes(direction: TransferDirection): number {
    const cap = this.pacers[direction].cap();
    return cap === null ? Infinity : Math.max(MIN_PIECE_BYTES, Math.floor((cap * PIECE_MS) / 1000));
  }

  /** Resolves when `bytes` may go; throws MeteredWaitError for background work on a metered connection. */
  take(direction: TransferDirection, bytes: number, requestClass: RequestClass, signal?: AbortSignal): Promise<void> {
    return this.pacers[direction].take(bytes, requestClass, signal);
  }

  /** `source` re-sliced into pieces the caps allow, each yielded only once it may go. */
  async *paced(source: AsyncIterable<Buffer | Uint8Array> | Iterable<Buffer | Uint8Array>, direction: TransferDirection, requestClass: RequestClass, signal?: AbortSignal): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      for (let offset = 0; offset < buffer.length; ) {
        const size = Math.min(buffer.length - offset, this.pieceBytes(direction));
        await this.take(direction, size, requestClass, signal);
        yield buffer.subarray(offset, offset + size);
        offset += size;
      }
    }
  }
}
