// Speed caps on file transfers (issue 32): what the user sets in Settings, and which
// cap applies at a given time of day. Field staff share a phone's link with calls and
// maps, so uploads and downloads can each be capped, optionally only during set hours,
// and a metered connection holds background file contents (records still sync).

export type TransferDirection = 'upload' | 'download';

/** Minutes since local midnight, "HH:MM" as the user types it. */
export interface CapHours {
  from: string;
  to: string;
}

export interface TransferCaps {
  /** KB/s (1,000 bytes), or null: no cap. */
  uploadKBps: number | null;
  downloadKBps: number | null;
  /** The caps hold only between these local times (wrapping midnight when `to` is earlier); null: all day. */
  hours: CapHours | null;
  /** File contents wait unless a person opens or drops them; records still sync. */
  metered: boolean;
}

export const NO_TRANSFER_CAPS: TransferCaps = { uploadKBps: null, downloadKBps: null, hours: null, metered: false };

/** The smallest cap a user may set: below it a single request's headers would take seconds. */
export const MIN_CAP_KBPS = 8;
export const MAX_CAP_KBPS = 1_000_000;

const CLOCK_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** "HH:MM" -> minutes since midnight; null for anything else. */
export function minutesOfClockTime(text: string): number | null {
  const match = CLOCK_TIME.exec(text);
  return match ? Number(match[1]) * 60 + Number(match[2]) : null;
}

/** Whether `minuteOfDay` falls in the hours (from inclusive, to exclusive; wrapping midnight). Equal ends mean all day. */
export function isWithinHours(hours: CapHours | null, minuteOfDay: number): boolean {
  if (hours === null) return true;
  const from = minutesOfClockTime(hours.from);
  const to = minutesOfClockTime(hours.to);
  if (from === null || to === null || from === to) return true;
  return from < to ? minuteOfDay >= from && minuteOfDay < to : minuteOfDay >= from || minuteOfDay < to;
}

/** The cap in bytes a second for `direction` at `minuteOfDay` (local), or null when none applies. */
export function capBytesPerSecond(caps: TransferCaps, direction: TransferDirection, minuteOfDay: number): number | null {
  const kbps = direction === 'upload' ? caps.uploadKBps : caps.downloadKBps;
  if (kbps === null || !isWithinHours(caps.hours, minuteOfDay)) return null;
  return kbps * 1000;
}

/** What is wrong with caps a user typed, in a sentence; null when they are fine. */
export function transferCapsProblem(caps: TransferCaps): string | null {
  for (const [name, kbps] of [
    ['upload', caps.uploadKBps],
    ['download', caps.downloadKBps],
  ] as const) {
    if (kbps === null) continue;
    if (!Number.isInteger(kbps) || kbps < MIN_CAP_KBPS || kbps > MAX_CAP_KBPS) {
      return `The ${name} cap must be a whole number of KB/s from ${MIN_CAP_KBPS} to ${MAX_CAP_KBPS.toLocaleString('en')}, or off.`;
    }
  }
  if (caps.hours !== null) {
    if (minutesOfClockTime(caps.hours.from) === null || minutesOfClockTime(caps.hours.to) === null) return 'Type the hours as 24-hour times, such as 08:00 and 18:00.';
    if (caps.hours.from === caps.hours.to) return 'The caps\u2019 hours start and end at the same time: choose different times, or apply the caps all day.';
  }
  return null;
}
