// The activity log (issue 32, docs/activity.md): one timeline of what happened and
// what waits, newest first. Its kinds, states, reasons to wait, actions and words
// live here once: the core records entries (main/core/activity-log.ts) and decides
// what to notify, the renderer shows them, and both read the same words.
import { countOf } from './words.ts';

export const ACTIVITY_KINDS = [
  'attached',
  'renamed',
  'replaced',
  'delete_held',
  'upload',
  'download',
  'edit',
  'remote_change',
  'conflict',
  'webhook_delivery',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** Each kind in people's words: `verb` heads an entry ("Attached from a folder"), `filter` names it in the kind filter. */
export const ACTIVITY_KIND_WORDS: Readonly<Record<ActivityKind, { verb: string; filter: string }>> = {
  attached: { verb: 'Attached from a folder', filter: 'Files attached' },
  renamed: { verb: 'Renamed in a folder', filter: 'Files renamed or moved' },
  replaced: { verb: 'Replaced in a folder', filter: 'Files replaced' },
  delete_held: { verb: 'Deleted in a folder, held for you', filter: 'Held deletes' },
  upload: { verb: 'Upload', filter: 'Uploads' },
  download: { verb: 'Download', filter: 'Downloads' },
  edit: { verb: 'Edited here', filter: 'Edits made here' },
  remote_change: { verb: 'Changed on the server', filter: 'Changes from the server' },
  conflict: { verb: 'Conflict', filter: 'Conflicts' },
  webhook_delivery: { verb: 'Webhook delivery', filter: 'Webhook deliveries' },
};

/** `running`: under way (progress shown); `waiting`: held, with its reason; `failed`: gave up, with why. */
export const ACTIVITY_STATES = ['done', 'running', 'waiting', 'failed'] as const;
export type ActivityState = (typeof ACTIVITY_STATES)[number];

export const WAIT_REASONS = ['offline', 'paused', 'metered', 'quota', 'paced', 'conflict', 'held_delete', 'refused_project'] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];

/** Why an entry waits, as a sentence that says what happens next or what to do. */
export const WAIT_REASON_WORDS: Readonly<Record<WaitReason, string>> = {
  offline: 'Waiting: this computer is offline. It goes as soon as the connection is back.',
  paused: 'Waiting: sync is paused. Resume it on the Sync screen.',
  metered: 'Waiting: metered connection. File contents wait until you open the file or turn the metered switch off in Settings.',
  quota: "Waiting: today's file allowance is used up; continues at 00:00 UTC.",
  paced: "Waiting its turn: background transfers spend only a small share of the organisation's daily file allowance.",
  conflict: 'Waiting: a conflict. Resolve it and the change goes.',
  held_delete: 'Waiting: a held delete. Undo it, or confirm it on the Sync screen.',
  refused_project: "Waiting for its project, which the server refused: that project's entry says why. Once the project goes, this follows.",
};

/** The record an entry names, so its actions can reach it. */
export type ActivityModel = 'project' | 'contact' | 'event' | 'webhook' | 'private_file';

export interface ActivityEntry {
  id: number;
  /** When it happened (an upload: when it started; `updatedAt` moves with its progress). */
  at: string;
  updatedAt: string;
  kind: ActivityKind;
  state: ActivityState;
  /** Set when `state` is `waiting`. */
  waitReason: WaitReason | null;
  projectId: number | null;
  /** The private file it is about, if any. */
  fileId: number | null;
  model: ActivityModel | null;
  recordId: number | null;
  /** What it is about, by name: a file's name, a project's title ("Smith roof"), a webhook's endpoint. */
  subject: string;
  /** The fields that changed, already in people's words (shared/field-labels.ts). */
  fields: string[];
  /** Bytes done and in all, while it runs. */
  progress: { done: number; total: number } | null;
  /** A sentence more: where it went, why it failed. */
  detail: string | null;
  /** The held delete (the Sync screen's pending change) or the conflict it stands for. */
  holdId: number | null;
  conflictId: number | null;
}

/** What a person can do from an entry (renderer/src/components/activity/). */
export type ActivityAction = 'undo_delete' | 'restore_version' | 'retry' | 'resolve_conflict' | 'show_in_folder' | 'open_project';

export const ACTIVITY_ACTION_WORDS: Readonly<Record<ActivityAction, string>> = {
  undo_delete: 'Undo the delete',
  restore_version: 'Restore the earlier version',
  retry: 'Retry now',
  resolve_conflict: 'Resolve the conflict',
  show_in_folder: 'Show in folder',
  open_project: 'Open the project',
};

/** The actions an entry offers, the one it is most likely wanted for first. */
export function actionsOf(entry: ActivityEntry): ActivityAction[] {
  const actions: ActivityAction[] = [];
  if (entry.kind === 'delete_held' && entry.state === 'waiting' && entry.holdId !== null) actions.push('undo_delete');
  if (entry.kind === 'conflict' && entry.state === 'waiting') actions.push('resolve_conflict');
  if (entry.kind === 'replaced' && entry.fileId !== null) actions.push('restore_version');
  // Retry sends the entry's own changes again: no help to a file waiting for a refused project (that project's entry has it).
  const retryHelps = entry.waitReason !== 'held_delete' && entry.waitReason !== 'conflict' && entry.waitReason !== 'refused_project';
  if (entry.state === 'failed' || (entry.state === 'waiting' && retryHelps)) actions.push('retry');
  if (entry.fileId !== null && entry.kind !== 'delete_held') actions.push('show_in_folder');
  if (entry.projectId !== null) actions.push('open_project');
  return actions;
}

/** The entry's headline in plain words: "Attached from a folder: roof.jpg". */
export function headlineOf(entry: Pick<ActivityEntry, 'kind' | 'subject' | 'fields'>): string {
  const verb = ACTIVITY_KIND_WORDS[entry.kind].verb;
  if ((entry.kind === 'remote_change' || entry.kind === 'edit' || entry.kind === 'conflict') && entry.fields.length > 0) {
    return `${verb}: ${entry.subject} (${entry.fields.join(', ')})`;
  }
  return entry.subject ? `${verb}: ${entry.subject}` : verb;
}

/** Where an entry is, in one sentence: its reason to wait, its progress, its failure. */
export function stateLineOf(entry: Pick<ActivityEntry, 'state' | 'waitReason' | 'progress' | 'detail'>, formatBytes: (bytes: number) => string): string | null {
  if (entry.state === 'waiting') {
    // A wait for the allowance that knows its time says it (the reason's words are the general case).
    if ((entry.waitReason === 'quota' || entry.waitReason === 'paced' || entry.waitReason === 'refused_project') && entry.detail) return entry.detail;
    return entry.waitReason ? WAIT_REASON_WORDS[entry.waitReason] : 'Waiting.';
  }
  if (entry.state === 'running') {
    if (!entry.progress) return 'Under way…';
    const percent = entry.progress.total > 0 ? Math.floor((entry.progress.done / entry.progress.total) * 100) : 0;
    return `${percent}% · ${formatBytes(entry.progress.done)} of ${formatBytes(entry.progress.total)}`;
  }
  if (entry.state === 'failed') return entry.detail ? `Failed: ${entry.detail}` : 'Failed. Retry now, or look at the Sync screen for why.';
  return entry.detail;
}

/** The text an entry is found by (lower case): its headline, its words and its detail. */
export function searchTextOf(entry: Pick<ActivityEntry, 'kind' | 'subject' | 'fields' | 'detail'>): string {
  return [headlineOf(entry), ACTIVITY_KIND_WORDS[entry.kind].filter, entry.detail ?? ''].join(' \n').toLowerCase();
}

/** How long entries are kept in the local store. */
export const ACTIVITY_KEEP_DAYS = 90;
/** The most entries one list answers. */
export const ACTIVITY_PAGE_MAX = 500;

export interface ActivityQuery {
  /** Words that must all appear (shared with the search box: any case). */
  search?: string;
  projectId?: number;
  kinds?: ActivityKind[];
  /** The last entry of the page before: the next page goes on after it. */
  beforeId?: number;
  limit?: number;
}

export interface ActivityPage {
  entries: ActivityEntry[];
  hasMore: boolean;
}

// ---------------------------------------------------------------------------
// Notifications (issue 32): four kinds, each behind its own Settings switch.

export const NOTIFICATION_KINDS = ['conflict', 'held_delete', 'transfer_failed', 'quota_stop'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
export type NotificationSwitches = Readonly<Record<NotificationKind, boolean>>;

/** Each switch's label and its one line of why (Settings > Notifications). */
export const NOTIFICATION_SWITCH_WORDS: Readonly<Record<NotificationKind, { label: string; why: string }>> = {
  conflict: { label: 'A new conflict', why: 'A field was changed here and on the server: nothing of it goes until you choose.' },
  held_delete: { label: 'Held deletes', why: 'A file deleted in a folder stays everywhere else until you confirm or undo it.' },
  transfer_failed: { label: 'A transfer that failed for good', why: 'It will not be tried again by itself: retry it or see why.' },
  quota_stop: { label: 'Sync stopped by quota', why: "Today's file allowance is used up: files wait until 00:00 UTC." },
};

export const DEFAULT_NOTIFICATION_SWITCHES: NotificationSwitches = { conflict: true, held_delete: true, transfer_failed: true, quota_stop: true };

/** What a desktop (Electron) or browser (Notification API) notification shows; clicking it opens the app at `entryId`. */
export interface ActivityNotice {
  kind: NotificationKind;
  entryId: number;
  title: string;
  body: string;
}

/**
 * Whether an entry that was just recorded (or changed state) is worth a notification,
 * and its words. `before` is the entry as it was (null: new): a notification is sent
 * once, when an entry comes to the state that asks for a person, never for progress.
 */
export function noticeFor(entry: ActivityEntry, before: Pick<ActivityEntry, 'state' | 'waitReason'> | null, switches: NotificationSwitches): ActivityNotice | null {
  const became = (state: ActivityState, reason: WaitReason | null = null) =>
    entry.state === state && entry.waitReason === reason && (before === null || before.state !== state || before.waitReason !== reason);
  const notice = (kind: NotificationKind, title: string): ActivityNotice | null =>
    switches[kind] ? { kind, entryId: entry.id, title, body: headlineOf(entry) } : null;
  if (entry.kind === 'conflict' && became('waiting', 'conflict')) return notice('conflict', 'A conflict waits for you');
  if (entry.kind === 'delete_held' && became('waiting', 'held_delete')) return notice('held_delete', 'A delete is held for you');
  if ((entry.kind === 'upload' || entry.kind === 'download') && became('failed')) return notice('transfer_failed', `${entry.kind === 'upload' ? 'An upload' : 'A download'} failed`);
  if (became('waiting', 'quota')) return notice('quota_stop', 'Sync stopped: file allowance used up');
  return null;
}

/** Several held deletes at once (a folder emptied) make one notification, not one each. */
export function mergeNotices(notices: readonly ActivityNotice[]): ActivityNotice[] {
  const byKind = new Map<NotificationKind, ActivityNotice[]>();
  for (const notice of notices) byKind.set(notice.kind, [...(byKind.get(notice.kind) ?? []), notice]);
  return [...byKind.values()].map((group) =>
    group.length === 1 ? group[0]! : { ...group[0]!, title: `${group[0]!.title} (${countOf(group.length, 'entry', 'entries')})`, body: group.map((notice) => notice.body).slice(0, 3).join('\n') },
  );
}
