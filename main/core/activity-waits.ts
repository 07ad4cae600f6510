// What an activity entry says while it waits or once the server refused it, and when a
// transfer's entry moves: the recorder's wording (main/core/activity-recorder.ts), in one place.
import type { SyncState } from '../../shared/bridge.ts';
import type { ActivityNote } from './activity-log.ts';
import type { WaitReason } from '../../shared/activity.ts';
import { utcTimeOfDay } from '../../shared/words.ts';
import { bucketInWords } from '../../shared/throttle-rates.ts';
import type { AllowanceWait } from '../sync/quota-pacer.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import { rowsOfRecord } from '../sync/outbox.ts';
import { projectsFileCreateWaitsFor } from '../sync/models/private-file.ts';
import { describeChangeFailure } from '../sync/remote-errors.ts';

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

/**
 * A file's upload that waits for a project made here which the server refused for good
 * (parked): one of the projects sync holds its create for (private-file.ts
 * projectsFileCreateWaitsFor). Its words name the project; null when it waits for no such project.
 */
export async function refusedProjectWait(db: Kysely<Database>, fileId: number): Promise<WaitWords | null> {
  const file = await db.selectFrom('private_files').select('project_id').where('id', '=', fileId).executeTakeFirst();
  if (!file) return null;
  for (const projectId of await projectsFileCreateWaitsFor(db, fileId, file.project_id)) {
    if (!(await rowsOfRecord(db, 'project', projectId)).some((row) => row.status === 'parked')) continue;
    const project = await db.selectFrom('projects').select(['title', 'identifier']).where('id', '=', projectId).executeTakeFirst();
    const name = project?.title || project?.identifier || 'made on this computer';
    return {
      waitReason: 'refused_project',
      detail: `Waiting for its project "${name}", which the server refused: that project's entry says why. Once the project goes, this file follows.`,
    };
  }
  return null;
}

/**
 * What a change the server refused for good says in its entry: the server's reason,
 * read as the Sync screen reads it ("The server refused it (Title: This field may not
 * be blank)"), never the raw answer, and what to do.
 */
export function refusalOf(lastError: string | null): string {
  const why = lastError ? describeChangeFailure(lastError) : 'the server refused it';
  return `${why.charAt(0).toUpperCase()}${why.slice(1)}. Press Retry now to send it again, or edit it first.`;
}
