// Timers a test fires by hand (the watcher's waiting, see worker-loop.ts): nothing
// runs until the test moves time on with `advance`.
import type { Timers } from '../worker-loop.ts';

export class ManualTimers implements Timers {
  private now = 0;
  private pending: Array<{ at: number; run: () => void; background: boolean }> = [];

  after(ms: number, run: () => void, background = false): () => void {
    const timer = { at: this.now + ms, run, background };
    this.pending.push(timer);
    return () => {
      this.pending = this.pending.filter((other) => other !== timer);
    };
  }

  /** Waits still set, and how long until each fires. */
  get waiting(): Array<{ inMs: number; background: boolean }> {
    return this.pending.map((timer) => ({ inMs: timer.at - this.now, background: timer.background }));
  }

  /** Moves time on by `ms` and runs, in order, every timer due by then. */
  advance(ms: number): void {
    this.now += ms;
    const due = this.pending.filter((timer) => timer.at <= this.now).sort((a, b) => a.at - b.at);
    this.pending = this.pending.filter((timer) => timer.at > this.now);
    for (const timer of due) timer.run();
  }
}
