// Time comes from one injectable clock, so tests can move it (token expiry, plan
// trials, throttle windows) without sleeping.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock a test moves by hand. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | string = '2026-06-01T09:00:00.000Z') {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(milliseconds: number): void {
    this.current += milliseconds;
  }
}

export const nowIso = (clock: Clock): string => clock.now().toISOString();
export const todayIso = (clock: Clock): string => nowIso(clock).slice(0, 10);
