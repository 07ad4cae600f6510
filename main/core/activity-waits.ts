// What an activity entry says while it waits, and when a transfer's entry moves: the
// recorder's wording of waits (main/core/activity-recorder.ts), in one place.
import type { SyncState } from '../../shared/bridge.ts';
import type { ActivityNote } from './activity-log.ts';
import type { WaitReason } from '../../shared/activity.ts';
import { utcTimeOfDay } from '../../shared/words.ts';
import { bucketInWords } from '../../shared/throttle-rates.ts';
import type { AllowanceWait } from '../sync/quota-pacer.ts';

/** A wait for the allowance this long or longer is the day's background share used up (told as quota, and notified); a shorter one is pacing's turn. */
const ALLOWANCE_USED_UP_MS = 60 * 60_000;

/** Whether a transfer's progress reached another whole percent than the last one written for the file (kept in `written`). */
export function movedAWholePercent(written: Map<number, number>, fileId: number, done: number, total: number): boolean {
  const percent = total > 0 ? Math.floor((done / total) * 100) : 0;
  if (written.get(fileId) === percent) return false;
  written.set(fileId, percent);
  return true;
}

/** Why everything queued waits, from sync's state (null: nothing holds it). */
export function waitReasonOf(state: SyncState | null): WaitReason | null {
  if (!state) return null;
  if (state.state === 'offline') return 'offline';
  if (state.state === 'paused') return 'paused';
  return null;
}

type WaitWords = Pick<ActivityNote, 'waitReason' | 'detail'>;

/** A background download held by the budget (BudgetWaitError): its turn within the hour, or the day's share used up. */
export function backgroundDownloadWait(mayGoAt: number, now: number): WaitWords {
  const at = utcTimeOfDay(mayGoAt);
  return mayGoAt - now >= ALLOWANCE_USED_UP_MS
    ? { waitReason: 'quota', detail: `Waiting: the share of today's file allowance kept for background downloads is used up; it continues at ${at}. Opening the file fetches it now.` }
    : { waitReason: 'paced', detail: `Waiting its turn: background downloads spend only a small share of the organisation's file allowance; this one goes at ${at}.` };
}

/** A person's upload or edit waiting in line for the organisation's allowance (QuotaPacer.take's wait). */
export function personsAllowanceWait(wait: AllowanceWait, now: number): WaitWords {
  const at = utcTimeOfDay(wait.mayGoAt);
  const allowance = `the organisation's allowance of ${bucketInWords(wait.bucket)}`;
  return wait.mayGoAt - now >= ALLOWANCE_USED_UP_MS
    ? { waitReason: 'quota', detail: `Waiting: today's share of ${allowance} is used up; it goes at ${at}.` }
    : { waitReason: 'paced', detail: `Waiting its turn within ${allowance}; it goes at ${at}.` };
}
