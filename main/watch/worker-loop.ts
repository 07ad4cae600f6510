// The folder watcher's one worker loop, and the one place it waits: every step
// that changes the store or the folders runs here, one at a time, so no two race;
// between steps the loop sleeps until the next thing is due or someone wakes it.
// Waiting goes through `Timers`, so a test can drive it without real time passing.

/** Waiting, as the watcher does it: a callback after some milliseconds, cancellable. */
export interface Timers {
  /** Runs `run` after `ms`; `background` waits do not keep the process alive. Returns a cancel. */
  after(ms: number, run: () => void, background?: boolean): () => void;
}

export const systemTimers: Timers = {
  after(ms, run, background = false) {
    const timer = setTimeout(run, ms);
    if (background) timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface LoopWork {
  /** One step of work; false when there was nothing to do. */
  step(): Promise<boolean>;
  /** How long the loop may sleep when idle: until the next thing is due. */
  nextDueInMs(): number;
  /** A step threw: said, then the loop pauses a moment (an error that repeats must not spin). */
  failed(error: Error): void;
}

/** After a failed step the loop waits this long before the next. */
const ERROR_PAUSE_MS = 1000;
/** The shortest sleep: a due time in the past does not make the loop spin. */
const MIN_IDLE_MS = 10;

export class WorkerLoop {
  private stopped = false;
  private stepping = false;
  private done: Promise<void> = Promise.resolve();
  private cancelWakeTimer: () => void = () => {};
  private wakeResolve: (() => void) | null = null;
  private wokenWhileBusy = false;

  constructor(
    private readonly work: LoopWork,
    private readonly timers: Timers,
  ) {}

  get closed(): boolean {
    return this.stopped;
  }

  /** True while a step runs. */
  get busy(): boolean {
    return this.stepping;
  }

  start(): void {
    this.done = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.done;
  }

  /** Something is to do: the loop runs its next step now, or right after the one it is in. */
  wake(): void {
    this.cancelWakeTimer();
    const resolve = this.wakeResolve;
    this.wakeResolve = null;
    // Woken while working: the next idle returns at once instead of missing it.
    if (resolve) resolve();
    else this.wokenWhileBusy = true;
  }

  /** Waits `ms` on the loop's timers (a pause, not an idle: wake() does not cut it short). */
  pause(ms: number): Promise<void> {
    return new Promise((resolve) => this.timers.after(ms, resolve));
  }

  private idle(ms: number): Promise<void> {
    if (this.wokenWhileBusy) {
      this.wokenWhileBusy = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.wakeResolve = resolve;
      this.cancelWakeTimer = this.timers.after(Math.max(MIN_IDLE_MS, ms), () => this.wake());
    });
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let worked = false;
      this.stepping = true;
      try {
        worked = await this.work.step();
      } catch (error) {
        this.work.failed(error as Error);
        await this.pause(ERROR_PAUSE_MS);
        continue;
      } finally {
        this.stepping = false;
      }
      if (!worked && !this.stopped) await this.idle(this.work.nextDueInMs());
      else if (worked) await new Promise((resolve) => setImmediate(resolve)); // let I/O callbacks (chokidar) in
    }
  }
}
