// Thumbnails, previews and EXIF reading run here, off the main process's thread
// (issue 25): a 3 KB PDF of nested form XObjects kept pdf.js busy for minutes and a
// 1 KB PNG declaring 100 million pixels grew memory without end, with the bridge
// unanswered meanwhile. Each job runs in a worker thread under a time limit and a
// memory limit: past either, the worker is ended (a new one takes the next job) and
// the job fails with a MediaLimitError. Workers are kept while busy and end when
// idle, so the app holds none while no file is being looked at.
import { Worker } from 'node:worker_threads';
import type { MediaJob, MediaResult } from './media-jobs.ts';
import { NO_EXIF, type PhotoExif } from './photo-exif.ts';

export interface MediaLimits {
  /** Longest a job may run. */
  timeoutMs: number;
  /** The worker's JavaScript heap; the process's memory may grow by about as much again (native buffers) before the job is ended. */
  memoryMb: number;
}

export const MEDIA_LIMITS: MediaLimits = { timeoutMs: 10_000, memoryMb: 256 };

/** Bytes a decoded pixel takes (RGBA), and the share of the memory limit one decoded image may have. */
const BYTES_PER_PIXEL = 4;
const IMAGE_SHARE_OF_MEMORY = 0.5;

/** The most pixels an image decoded whole may declare under `limits` (a JPEG gets more: media-jobs.ts). */
export function pixelBudgetOf(limits: MediaLimits): number {
  return Math.floor((limits.memoryMb * 1024 * 1024 * IMAGE_SHARE_OF_MEMORY) / BYTES_PER_PIXEL);
}

export class MediaLimitError extends Error {
  constructor(
    message: string,
    readonly code: 'MEDIA_TIMEOUT' | 'MEDIA_MEMORY' | 'MEDIA_WORKER_EXIT',
  ) {
    super(message);
  }
}

/** Longest a worker may take to load what a job needs (pdf.js takes seconds) before the job's own limit starts. */
const LOAD_TIMEOUT_MS = 60_000;
/** How often the process's memory is looked at while a job runs. */
const MEMORY_CHECK_MS = 200;
/** A worker with nothing to do ends after this long. */
const IDLE_MS = 30_000;
const ENTRY = new URL('./media-worker-entry.js', import.meta.url);

interface Running {
  worker: Worker;
  busy: boolean;
  idleTimer?: NodeJS.Timeout;
}

export class MediaWorkers {
  private readonly idle: Running[] = [];
  private readonly waiting: Array<() => void> = [];
  private workers = 0;
  private nextId = 1;
  /** Jobs ended for going over a limit, by kind of limit (tests and diagnostics read them). */
  readonly ended = { timeout: 0, memory: 0, exit: 0 };

  constructor(
    readonly limits: MediaLimits = MEDIA_LIMITS,
    private readonly concurrency = 2,
  ) {}

  /** Runs `job` in a worker; rejects with MediaLimitError when it goes over a limit, or with the job's own error. */
  async run(job: MediaJob): Promise<MediaResult> {
    const running = await this.take();
    const id = this.nextId++;
    let rssAtStart = process.memoryUsage.rss();
    const { worker } = running;
    let finished = false;
    return new Promise<MediaResult>((resolve, reject) => {
      const end = (outcome: () => void, keepWorker: boolean) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        clearInterval(memoryCheck);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (keepWorker) this.give(running);
        else this.discard(running);
        outcome();
      };
      const limitReached = (error: MediaLimitError, kind: keyof MediaWorkers['ended']) => {
        this.ended[kind]++;
        end(() => reject(error), false);
      };
      const onMessage = (message: { id?: number; running?: boolean; result?: MediaResult; error?: { message: string; code?: string } }) => {
        if (message.id !== id) return;
        if (message.running) {
          rssAtStart = process.memoryUsage.rss();
          clearTimeout(timer);
          timer = setTimeout(() => limitReached(new MediaLimitError(`the file took longer than ${this.limits.timeoutMs / 1000} s to read`, 'MEDIA_TIMEOUT'), 'timeout'), this.limits.timeoutMs);
        } else if (message.error) {
          const error = Object.assign(new Error(message.error.message), { code: message.error.code });
          end(() => reject(error), true);
        } else end(() => resolve(message.result!), true);
      };
      const onError = (error: Error & { code?: string }) => {
        if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') limitReached(new MediaLimitError(`the file needs more than ${this.limits.memoryMb} MB to read`, 'MEDIA_MEMORY'), 'memory');
        else limitReached(new MediaLimitError(`the media worker failed: ${error.message}`, 'MEDIA_WORKER_EXIT'), 'exit');
      };
      const onExit = (code: number) => limitReached(new MediaLimitError(`the media worker stopped (exit code ${code})`, 'MEDIA_WORKER_EXIT'), 'exit');
      // Until the worker says the job runs (its libraries loaded), a longer wait; then the job's limit.
      let timer = setTimeout(() => limitReached(new MediaLimitError('the media worker did not start in time', 'MEDIA_TIMEOUT'), 'timeout'), LOAD_TIMEOUT_MS);
      // Native memory (libvips, canvases, array buffers) is outside the worker's heap limit: watch the process's.
      const memoryCheck = setInterval(() => {
        if (process.memoryUsage.rss() - rssAtStart > 2 * this.limits.memoryMb * 1024 * 1024) {
          limitReached(new MediaLimitError(`the file needs more than ${this.limits.memoryMb} MB to read`, 'MEDIA_MEMORY'), 'memory');
        }
      }, MEMORY_CHECK_MS);
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      worker.postMessage({ id, job });
    });
  }

  /** Ends every worker (the app is closing). */
  async close(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((running) => this.discard(running)));
  }

  private async take(): Promise<Running> {
    for (;;) {
      const idle = this.idle.pop();
      if (idle) {
        clearTimeout(idle.idleTimer);
        idle.busy = true;
        return idle;
      }
      if (this.workers < this.concurrency) {
        this.workers++;
        try {
          return { worker: await this.start(), busy: true };
        } catch (error) {
          this.workers--;
          this.waiting.shift()?.();
          throw error;
        }
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private start(): Promise<Worker> {
    const worker = new Worker(ENTRY, {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb, maxYoungGenerationSizeMb: 32 },
      // tsx is registered by the entry itself; Electron's own flags are not for a worker.
      execArgv: [],
      stdout: false,
      stderr: false,
    });
    worker.unref();
    return new Promise((resolve, reject) => {
      const onReady = (message: { ready?: boolean }) => {
        if (!message.ready) return;
        worker.off('message', onReady);
        worker.off('error', onFailed);
        resolve(worker);
      };
      const onFailed = (error: Error) => {
        worker.off('message', onReady);
        reject(error);
      };
      worker.on('message', onReady);
      worker.once('error', onFailed);
    });
  }

  private give(running: Running): void {
    running.busy = false;
    running.idleTimer = setTimeout(() => {
      const at = this.idle.indexOf(running);
      if (at >= 0) this.idle.splice(at, 1);
      void this.discard(running);
    }, IDLE_MS).unref();
    this.idle.push(running);
    this.waiting.shift()?.();
  }

  private async discard(running: Running): Promise<void> {
    clearTimeout(running.idleTimer);
    this.workers--;
    this.waiting.shift()?.();
    await running.worker.terminate().catch(() => {});
  }
}

let shared: MediaWorkers | undefined;

/** The process's media workers: thumbnails and EXIF share them (and their limits). */
export function sharedMediaWorkers(): MediaWorkers {
  return (shared ??= new MediaWorkers());
}

/** A photo's EXIF, read in a media worker; a file that goes over a limit reads as having none. */
export async function readPhotoExifOffThread(bytes: Uint8Array, workers = sharedMediaWorkers()): Promise<PhotoExif> {
  try {
    const result = await workers.run({ kind: 'exif', bytes });
    return result.kind === 'exif' ? result.exif : NO_EXIF;
  } catch {
    return NO_EXIF;
  }
}
