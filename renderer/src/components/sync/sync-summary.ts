// The Sync screen's state, derived in one place (issue 28, item 8): the pushed state
// (`sync.state`, the newest) over the status the screen read when it opened, so the
// pill, the sentence and the facts never disagree ("Syncing…" beside "Not reachable"
// and "—" right after a sign-in). One sentence says where sync stands and what the
// user can do; the facts follow from the same values.
import type { SyncState } from '../../../../shared/bridge.ts';
import { type SyncStatusJson, syncStateOfStatus } from '../../../../shared/sync-api.ts';
import type { SyncBudgetJson } from '../../../../shared/schemas/sync.ts';
import { bucketInWords } from '../../../../shared/throttle-rates.ts';
import { formatDateTime } from '../../format.ts';
import { countOf } from '../../../../shared/words.ts';

/** The facts every part of the screen shows, from one source: the shape the agent pushes. */
export type SyncFacts = SyncState;

/** The pushed state when there is one (it is the newest), else the status read from the agent. */
export function syncFactsOf(live: SyncState | null, status: SyncStatusJson | null, heldDeletes: number): SyncFacts | null {
  if (live && live.state !== 'local_only') return { ...live };
  return status ? syncStateOfStatus(status, heldDeletes) : null;
}

/** Whether the remote answers, in words that agree with the state: a first sync still running is "Connecting…", not "Not reachable". */
export function remoteWords(facts: SyncFacts): string {
  if (facts.state === 'offline') return 'Not reachable';
  if (facts.remoteReachable || facts.state === 'synced') return 'Reachable';
  if (facts.state === 'syncing') return 'Connecting…';
  return 'Not reachable';
}

/** When sync last finished, in words; a first sync still running says so rather than "—". */
export function lastSyncedWords(facts: SyncFacts): string {
  if (facts.lastSyncedAt) return formatDateTime(facts.lastSyncedAt);
  return facts.state === 'syncing' ? 'First sync running' : 'Not yet';
}

/**
 * One sentence: where sync stands, and what the user can do about it. `onlyHere` counts
 * the records made before signing in that were not sent (the local-work offer): "Up to
 * date with the remote" alone would read as if they were there too.
 */
export function syncSentence(facts: SyncFacts, onlyHere = 0): string {
  const waiting = facts.pending > 0 ? countOf(facts.pending, 'change waits', 'changes wait') : 'Nothing waits';
  const main = {
    synced: facts.pending === 0 ? 'Up to date with the remote.' : `Connected: ${countOf(facts.pending, 'change goes', 'changes go')} with the next sync.`,
    syncing: facts.lastSyncedAt ? (facts.pending > 0 ? `Sending ${countOf(facts.pending, 'change', 'changes')} to the remote…` : 'Checking the remote for changes…') : 'Bringing this computer in step with the remote for the first time…',
    offline: `The remote cannot be reached. ${waiting} on this computer and ${facts.pending === 1 ? 'goes' : 'go'} once it answers; nothing to do unless this lasts (then check the network).`,
    paused: `Sync is paused. ${waiting} on this computer: choose Resume sync to send ${facts.pending === 1 ? 'it' : 'them'}.`,
    needs_sign_in: 'The remote no longer accepts this computer’s sign-in: sign in again below to go on syncing.',
    needs_attention: facts.conflicts > 0 ? '' : `Sync needs attention${facts.detail ? `: ${facts.detail.replace(/\.$/, '')}` : ''}.`,
    local_only: 'Nothing is synced: this computer is the only copy.',
  }[facts.state];
  const asks = [
    facts.conflicts > 0 ? `${countOf(facts.conflicts, 'field was', 'fields were')} changed on both sides: choose which value to keep below.` : '',
    facts.heldDeletes > 0 ? `${countOf(facts.heldDeletes, 'deleted file waits', 'deleted files wait')} for you below.` : '',
    onlyHere > 0 ? `${countOf(onlyHere, 'record made before you signed in is', 'records made before you signed in are')} only on this computer: review and send ${onlyHere === 1 ? 'it' : 'them'} below.` : '',
  ];
  return [main, ...asks].filter(Boolean).join(' ');
}

/** Background work waiting for quota, in one sentence ("Background checks paused until 14:10 to stay within today's allowance of private files"); null when none waits. */
export function quotaSentence(budget: SyncBudgetJson): string | null {
  if (budget.waiting.length === 0) return null;
  const first = [...budget.waiting].sort((a, b) => a.may_go_at.localeCompare(b.may_go_at))[0]!;
  const until = new Date(first.may_go_at);
  const time = Number.isNaN(until.getTime()) ? first.may_go_at : until.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
  return `Background checks paused until ${time} to stay within today’s allowance of ${bucketInWords(first.bucket)}; what you do yourself still goes at once.`;
}
