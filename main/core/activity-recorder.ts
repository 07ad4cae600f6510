// Writes the activity log (activity-log.ts) from what the parts announce, never by
// guessing: the engine's change feed (edits made here, changes that arrived from the
// server, with the fields that changed), the project folders watcher's activity
// (attached, renamed, replaced, held deletes, files written into folders), sync's
// upload progress, its state (what waits, and why) and its conflicts, and the
// engine's webhook deliveries on the embedded store. One recorder per backend; its
// work runs one step at a time, in the order things were heard.
import type { Kysely } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { Clock } from '../engine/clock.ts';
import type { RecordChangeEvent } from '../engine/changes/change-feed.ts';
import type { FolderActivity } from '../watch/folder-status.ts';
import { heldDeleteOf, rowsOfRecord } from '../sync/outbox.ts';
import { listOpenConflicts } from '../sync/conflicts.ts';
import { isProvisional, type SyncedModel } from '../sync/sync-models.ts';
import type { SyncState } from '../../shared/bridge.ts';
import type { ActivityEntry, ActivityModel } from '../../shared/activity.ts';
import { fieldLabelOf } from '../../shared/field-labels.ts';
import type { AllowanceWait } from '../sync/quota-pacer.ts';
import type { DeliveryOutcomeNotice } from '../engine/webhooks/delivery-worker.ts';
import type { DownloadEvent } from '../sync/remote-contents.ts';
import { ACTIVITY_EVENT_TYPES } from '../engine/events/events.ts';
import { ActivityLog, type ActivityNote, type RecordedActivity } from './activity-log.ts';
import { backgroundDownloadWait, movedAWholePercent, personsAllowanceWait, refusalOf, refusedProjectWait, waitReasonOf } from './activity-waits.ts';

/** Fields of a record's view that change with every write and say nothing to a person. */
const BOOKKEEPING_FIELDS = new Set(['id', 'url', 'created_date', 'modified_date', 'modified_by', 'created_by', 'version', 'file_url', 'file', 'thumbnail_url']);

const MODEL_WORDS: Readonly<Record<ActivityModel, string>> = {
  project: 'project',
  contact: 'contact',
  event: 'schedule entry',
  webhook: 'webhook',
  private_file: 'file',
};

/** Events the engine records by itself for a project's change: what they say, the log already tells. */
const AUTOMATIC_EVENT_TYPES: ReadonlySet<string> = new Set(ACTIVITY_EVENT_TYPES.filter((type) => type !== 'note'));

/** A fetch's entry once its bytes are all here. */
const FETCHED_DETAIL = 'Fetched from the server.';
export interface ActivityRecorderOptions {
  db: Kysely<Database>;
  clock: Clock;
  orgId: number;
  /** Synced: edits and uploads wait for sync and their entries follow the outbox; embedded: nothing goes anywhere. */
  mode: 'embedded' | 'synced';
  /** Told of every entry written or moved (the bridge's `activity.changed`, notifications). */
  onRecorded: (recorded: RecordedActivity) => void;
  /** Every step heard so far is done (what was recorded meanwhile can be told together: a folder emptied is one notification). */
  onIdle?: () => void;
  onError: (error: unknown) => void;
}

export class ActivityRecorder {
  readonly log: ActivityLog;
  private queue: Promise<void> = Promise.resolve();
  private stepsWaiting = 0;
  private syncState: SyncState | null = null;
  /** The last upload percentage written per file: progress moves the entry a whole percent at a time. */
  private readonly uploadPercent = new Map<number, number>();
  /** The same for downloads. */
  private readonly downloadPercent = new Map<number, number>();
  /** When a change waiting for the allowance may go, by its entry's live key: until then sync's state leaves the entry saying so. */
  private readonly allowanceWaits = new Map<string, number>();
  private isClosed = false;

  constructor(private readonly options: ActivityRecorderOptions) {
    this.log = new ActivityLog(options.db, options.clock, options.orgId);
  }

  /** Runs `step` after every step heard before it; a failing step is reported and the next still runs. */
  private enqueue(step: () => Promise<void>): Promise<void> {
    this.stepsWaiting++;
    this.queue = this.queue.then(async () => {
      try {
        if (!this.isClosed) await step();
      } catch (error) {
        this.options.onError(error);
      } finally {
        this.stepsWaiting--;
        if (this.stepsWaiting === 0 && !this.isClosed) this.options.onIdle?.();
      }
    });
    return this.queue;
  }

  /** Waits for every step heard so far (tests, closing). */
  settled(): Promise<void> {
    return this.queue;
  }

  async close(): Promise<void> {
    await this.queue;
    this.isClosed = true;
  }

  private async note(note: ActivityNote): Promise<ActivityEntry> {
    const recorded = await this.log.record(note);
    this.options.onRecorded(recorded);
    return recorded.entry;
  }

  // ---- the watcher -------------------------------------------------------

  fromFolder(activity: FolderActivity): Promise<void> {
    return this.enqueue(async () => {
      const file = { projectId: activity.projectId, fileId: activity.fileId, model: 'private_file' as const, recordId: activity.fileId };
      switch (activity.kind) {
        case 'attached':
          await this.note({ ...file, kind: 'attached', state: 'done', subject: activity.name, detail: 'Dropped into the project folder and attached to the project.' });
          return;
        case 'replaced':
          await this.note({
            ...file,
            kind: 'replaced',
            state: activity.isConflict ? 'waiting' : 'done',
            waitReason: activity.isConflict ? 'conflict' : null,
            subject: activity.name,
            detail: 'Edited in the project folder: the earlier contents are kept as a version.',
          });
          return;
        case 'renamed':
          await this.note({ ...file, kind: 'renamed', state: 'done', subject: `${activity.from} → ${activity.to}`, detail: activity.isMove ? 'Moved to another project; nothing was uploaded again.' : 'Renamed; nothing was uploaded again.' });
          return;
        case 'delete_held':
          await this.note({
            ...file,
            kind: 'delete_held',
            state: 'waiting',
            waitReason: 'held_delete',
            subject: activity.name,
            holdId: activity.holdId,
            liveKey: `hold:${activity.holdId}`,
            detail: activity.isGuarded ? 'Many files went at once, so every deletion is held (the mass-delete guard).' : 'The file stays in the project until you confirm the delete.',
          });
          return;
        case 'written': {
          // Only what came from the server is a download: a file added here (in the app, uploaded from here) is copied into its folder too.
          if (this.options.mode !== 'synced' || (await this.log.latestFor('upload', activity.fileId))) return;
          // Fetched just for this (its entry told the bytes coming down): the same entry says where they went.
          const fetched = await this.log.latestFor('download', activity.fileId);
          if (fetched?.state === 'done' && fetched.detail === FETCHED_DETAIL) {
            await this.note({ ...this.noteOf(fetched), detail: `${FETCHED_DETAIL} Written into the project folder.` });
            return;
          }
          await this.note({ ...file, kind: 'download', state: 'done', subject: activity.name, detail: 'Written into the project folder.' });
          return;
        }
      }
    });
  }

  // ---- the engine's change feed -----------------------------------------

  fromChanges(changes: readonly RecordChangeEvent[]): Promise<void> {
    return this.enqueue(async () => {
      for (const change of changes) {
        if (change.orgId !== this.options.orgId) continue;
        if (change.model === 'private_file' && change.op === 'delete') await this.endDownloadOfDeleted(change.id);
        if (change.by.kind === 'sync') await this.remoteChange(change);
        else if (this.options.mode === 'synced') await this.localChange(change);
      }
    });
  }

  /**
   * A download still waiting (for the metered switch, the allowance, the connection) or
   * under way for a file now deleted, here or on the server, ends: nothing will fetch it,
   * and an entry left waiting would wait for ever.
   */
  private async endDownloadOfDeleted(fileId: number): Promise<void> {
    this.downloadPercent.delete(fileId);
    const download = await this.log.live(`download:${fileId}`);
    if (!download) return;
    await this.note({ ...this.noteOf(download), state: 'done', waitReason: null, progress: null, detail: 'Not fetched: the file was deleted before its contents arrived.' });
  }

  private async remoteChange(change: RecordChangeEvent): Promise<void> {
    // The replica's first download is not news: what the server already had arrives all at once.
    if (this.options.mode === 'synced' && !this.syncState?.lastSyncedAt) return;
    // A record made here that took its remote id: sync's re-key, not a change from the server.
    if (isProvisional(change.id)) return;
    const fields = (change.changedFields ?? []).filter((field) => !BOOKKEEPING_FIELDS.has(field));
    // Sync's own bookkeeping (an answer that gave a record its remote id and dates) changed nothing a person set.
    if (change.op === 'update' && fields.length === 0) return;
    // A file's arrival is told when its contents are written into the folder (the watcher) or fetched.
    if (change.model === 'private_file' && change.op !== 'delete' && fields.every((field) => field === 'file_hash')) return;
    // The server's own note of a change (a project's "File added: ..."): this log tells that change by itself.
    if (change.model === 'event' && change.op !== 'delete' && (await this.isServerNote(change.id))) return;
    const subject = await this.subjectOf(change.model, change.id);
    await this.note({
      kind: 'remote_change',
      state: 'done',
      projectId: change.projectId,
      fileId: change.model === 'private_file' ? change.id : null,
      model: change.model,
      recordId: change.id,
      subject,
      fields: [...new Set(fields.map((field) => fieldLabelOf(change.model, field)))],
      detail: change.op === 'create' ? `A new ${MODEL_WORDS[change.model]}, made on the server.` : change.op === 'delete' ? `The ${MODEL_WORDS[change.model]} was removed on the server.` : null,
    });
  }

  /** An edit made here: it waits for sync, as one entry per record that gathers its fields until it has gone. */
  private async localChange(change: RecordChangeEvent): Promise<void> {
    const isNewContents = change.model === 'private_file' && (change.op === 'create' || (change.changedFields ?? []).includes('file_hash'));
    if (isNewContents) {
      // A new file, or new contents of one, goes up as an upload: its entry follows sync's progress.
      await this.note({ ...this.uploadBase(change.id, change.projectId, await this.subjectOf('private_file', change.id)), ...this.waiting() });
      return;
    }
    const liveKey = `edit:${change.model}:${change.id}`;
    const labels = (change.changedFields ?? []).filter((field) => !BOOKKEEPING_FIELDS.has(field)).map((field) => fieldLabelOf(change.model, field));
    // A project whose list of files or visits changed: that file's or visit's own entry tells it.
    if (change.op === 'update' && labels.length === 0) return;
    const earlier = await this.log.live(liveKey);
    const subject = await this.subjectOf(change.model, change.id);
    await this.note({
      kind: 'edit',
      ...this.waiting(),
      projectId: change.projectId,
      fileId: change.model === 'private_file' ? change.id : null,
      model: change.model,
      recordId: change.id,
      subject: earlier?.subject && change.op === 'update' ? earlier.subject : subject,
      fields: [...new Set([...(earlier?.fields ?? []), ...labels])],
      liveKey,
      ...(change.op === 'create' ? { detail: `A new ${MODEL_WORDS[change.model]}, made here.` } : change.op === 'delete' ? { detail: `The ${MODEL_WORDS[change.model]} was deleted here.` } : {}),
    });
  }

  /** What an entry waiting for sync says now: held by the connection or the pause, else on its way. */
  private waiting(): Pick<ActivityNote, 'state' | 'waitReason' | 'detail'> {
    const reason = waitReasonOf(this.syncState);
    return reason ? { state: 'waiting', waitReason: reason } : { state: 'running', detail: 'Waiting its turn to reach the server.' };
  }

  private uploadBase(fileId: number, projectId: number | null, subject: string): ActivityNote {
    return { kind: 'upload', state: 'running', projectId, fileId, model: 'private_file', recordId: fileId, subject, liveKey: `upload:${fileId}` };
  }

  // ---- sync ----------------------------------------------------------------

  /** Bytes of an upload acknowledged by the remote; null: it ended (done or stopped: the outbox says which). */
  fromUploadProgress(fileId: number, progress: { sent: number; total: number } | null): Promise<void> {
    return this.enqueue(async () => {
      if (progress === null) {
        this.uploadPercent.delete(fileId);
        await this.settleRecord('upload', 'private_file', fileId);
        return;
      }
      // Under way: no longer waiting for the allowance.
      this.allowanceWaits.delete(`upload:${fileId}`);
      if (!movedAWholePercent(this.uploadPercent, fileId, progress.sent, progress.total)) return;
      const earlier = await this.log.live(`upload:${fileId}`);
      const base = this.uploadBase(fileId, earlier?.projectId ?? (await this.projectOfFile(fileId)), earlier?.subject ?? (await this.subjectOf('private_file', fileId)));
      await this.note({ ...base, state: 'running', progress: { done: progress.sent, total: progress.total }, detail: null, isStartingNow: !earlier?.progress });
    });
  }

  /** Sync's state moved: what waits says why, what went is done, new conflicts are told and settled ones closed. */
  fromSyncState(state: SyncState): Promise<void> {
    return this.enqueue(async () => {
      this.syncState = state;
      if (this.options.mode !== 'synced') {
        await this.settleHeldDeletes();
        return;
      }
      await this.noteConflicts();
      for (const entry of await this.log.liveEntries()) {
        if (entry.kind === 'delete_held') await this.settleHeldDelete(entry);
        else if ((entry.kind === 'edit' || entry.kind === 'upload') && entry.model && entry.recordId !== null) await this.settleRecord(entry.kind, entry.model, entry.recordId, entry);
      }
    });
  }

  private async settleHeldDeletes(): Promise<void> {
    for (const entry of await this.log.liveEntries()) if (entry.kind === 'delete_held') await this.settleHeldDelete(entry);
  }

  private async settleHeldDelete(entry: ActivityEntry): Promise<void> {
    if (entry.fileId === null || (await heldDeleteOf(this.options.db, entry.fileId))) return;
    const fileExists = await this.options.db.selectFrom('private_files').select('id').where('id', '=', entry.fileId).executeTakeFirst();
    await this.note({ ...this.noteOf(entry), state: 'done', detail: fileExists ? 'Undone: the file stays in the project.' : 'Confirmed: the file was deleted.' });
  }

  /** An edit or upload whose record left the outbox has gone; one still queued waits, with why, or failed for good (parked). */
  private async settleRecord(kind: 'edit' | 'upload', model: ActivityModel, recordId: number, known?: ActivityEntry): Promise<void> {
    const liveKey = kind === 'upload' ? `upload:${recordId}` : `edit:${model}:${recordId}`;
    const entry = known ?? (await this.log.live(liveKey));
    if (!entry) return;
    const rows = await rowsOfRecord(this.options.db, model as SyncedModel, recordId);
    const base = this.noteOf(entry);
    if (rows.length === 0) {
      this.allowanceWaits.delete(liveKey);
      const progress = entry.progress ? { done: entry.progress.total, total: entry.progress.total } : null;
      await this.note({ ...base, state: 'done', progress, detail: kind === 'upload' ? 'Uploaded to the server.' : 'Sent to the server.' });
      return;
    }
    const parked = rows.find((row) => row.status === 'parked');
    const conflicted = (await listOpenConflicts(this.options.db)).some((conflict) => conflict.model === model && conflict.recordId === recordId);
    const refusedProject = !parked && !conflicted && kind === 'upload' ? await refusedProjectWait(this.options.db, recordId) : null;
    if (parked) await this.note({ ...base, state: 'failed', progress: null, detail: refusalOf(parked.last_error) });
    else if (conflicted) await this.note({ ...base, state: 'waiting', waitReason: 'conflict', progress: null });
    else if (refusedProject) await this.note({ ...base, state: 'waiting', ...refusedProject, progress: null });
    // Still waiting for the allowance: its entry keeps saying until when.
    else if ((this.allowanceWaits.get(liveKey) ?? 0) > this.options.clock.now().getTime()) return;
    else if (entry.state !== 'running' || !entry.progress) await this.note({ ...base, ...this.waiting(), progress: null });
  }

  /**
   * A person's queued change (an upload, an edit) waits for the organisation's allowance
   * before sync may send it (a person's work waits in line, quota-pacer.ts): its entry
   * says so, with the time it goes; hours away is the allowance used up, and notified.
   */
  fromAllowanceWait(model: SyncedModel, recordId: number, wait: AllowanceWait): Promise<void> {
    return this.enqueue(async () => {
      const uploadKey = model === 'private_file' ? `upload:${recordId}` : null;
      const upload = uploadKey ? await this.log.live(uploadKey) : null;
      const editKey = `edit:${model}:${recordId}`;
      const entry = upload ?? (await this.log.live(editKey));
      if (!entry) return;
      this.allowanceWaits.set(upload ? uploadKey! : editKey, wait.mayGoAt);
      await this.note({ ...this.noteOf(entry), state: 'waiting', ...personsAllowanceWait(wait, this.options.clock.now().getTime()) });
    });
  }

  /** Conflicts not yet in the log get an entry; entries of conflicts no longer open are done. */
  private async noteConflicts(): Promise<void> {
    const open = await listOpenConflicts(this.options.db);
    const openIds = new Set(open.map((conflict) => conflict.id));
    for (const conflict of open) {
      if (await this.log.live(`conflict:${conflict.id}`)) continue;
      const model = conflict.model as ActivityModel;
      await this.note({
        kind: 'conflict',
        state: 'waiting',
        waitReason: 'conflict',
        projectId: model === 'project' ? conflict.recordId : await this.projectOf(model, conflict.recordId),
        fileId: model === 'private_file' ? conflict.recordId : null,
        model,
        recordId: conflict.recordId,
        subject: await this.subjectOf(model, conflict.recordId),
        fields: [fieldLabelOf(model, conflict.field)],
        conflictId: conflict.id,
        liveKey: `conflict:${conflict.id}`,
        detail: 'Changed here and on the server to different values: choose which to keep.',
      });
    }
    for (const entry of await this.log.liveEntries()) {
      if (entry.kind === 'conflict' && entry.conflictId !== null && !openIds.has(entry.conflictId)) {
        await this.note({ ...this.noteOf(entry), state: 'done', detail: 'Resolved.' });
      }
    }
  }

  /**
   * A file's contents coming down (a person's open, a kept project's prefetch, an arrival
   * in a folder): one entry per fetch that moves with its bytes, says why it waits
   * (a metered connection; the allowance, with when it goes), and how it ended.
   */
  fromDownload(fileId: number, event: DownloadEvent): Promise<void> {
    if (event.state === 'running') {
      // Progress moves the entry a whole percent at a time: decided here, so a big file's pieces queue no steps.
      if (!movedAWholePercent(this.downloadPercent, fileId, event.received, event.total)) return this.queue;
    } else this.downloadPercent.delete(fileId);
    return this.enqueue(async () => {
      const liveKey = `download:${fileId}`;
      const earlier = await this.log.live(liveKey);
      const base: ActivityNote = {
        kind: 'download',
        state: 'running',
        projectId: earlier?.projectId ?? (await this.projectOfFile(fileId)),
        fileId,
        model: 'private_file',
        recordId: fileId,
        subject: earlier?.subject ?? (await this.subjectOf('private_file', fileId)),
        progress: earlier?.progress ?? null,
        liveKey,
        ...(earlier ? { entryId: earlier.id } : {}),
      };
      switch (event.state) {
        case 'running':
          await this.note({ ...base, progress: { done: event.received, total: event.total }, detail: null, isStartingNow: !earlier?.progress });
          return;
        case 'waiting': {
          if (event.reason === 'metered') {
            await this.note({ ...base, state: 'waiting', waitReason: 'metered', detail: null });
            return;
          }
          await this.note({ ...base, state: 'waiting', ...backgroundDownloadWait(event.mayGoAt, this.options.clock.now().getTime()) });
          return;
        }
        case 'offline':
          await this.note({ ...base, state: 'waiting', waitReason: 'offline', detail: event.detail });
          return;
        case 'done':
          await this.note({ ...base, state: 'done', progress: base.progress ? { done: base.progress.total, total: base.progress.total } : null, detail: FETCHED_DETAIL });
          return;
        case 'failed':
          await this.note({ ...base, state: 'failed', progress: null, detail: event.detail });
          return;
      }
    });
  }

  // ---- webhooks (our own server: the embedded store) ---------------------

  fromWebhookDelivery(outcome: DeliveryOutcomeNotice): Promise<void> {
    return this.enqueue(async () => {
      if (outcome.orgId !== this.options.orgId) return;
      if (!outcome.successful && !outcome.givingUp) return; // it is tried again: told once it is delivered or given up
      await this.note({
        kind: 'webhook_delivery',
        state: outcome.successful ? 'done' : 'failed',
        model: 'webhook',
        recordId: outcome.webhookId,
        subject: `${outcome.event}, ${await this.subjectOf('webhook', outcome.webhookId)}`,
        detail: outcome.notes,
      });
    });
  }

  // ---- names -----------------------------------------------------------

  /** An entry as a note, to write it again with another state (the same row, by its id). */
  private noteOf(entry: ActivityEntry): ActivityNote {
    return {
      entryId: entry.id,
      kind: entry.kind,
      state: entry.state,
      waitReason: entry.waitReason,
      projectId: entry.projectId,
      fileId: entry.fileId,
      model: entry.model,
      recordId: entry.recordId,
      subject: entry.subject,
      fields: entry.fields,
      progress: entry.progress,
      detail: entry.detail,
      holdId: entry.holdId,
      conflictId: entry.conflictId,
      liveKey:
        entry.kind === 'upload' ? `upload:${entry.fileId}` : entry.kind === 'download' ? `download:${entry.fileId}` : entry.kind === 'edit' ? `edit:${entry.model}:${entry.recordId}` : entry.kind === 'delete_held' ? `hold:${entry.holdId}` : entry.kind === 'conflict' ? `conflict:${entry.conflictId}` : null,
    };
  }

  /** An event the engine writes by itself for a project change (events.ts recordProjectActivity), not one a person booked or wrote. */
  private async isServerNote(eventId: number): Promise<boolean> {
    const row = await this.options.db.selectFrom('events').select('event_type').where('id', '=', eventId).executeTakeFirst();
    return row !== undefined && AUTOMATIC_EVENT_TYPES.has(row.event_type);
  }

  private async projectOfFile(fileId: number): Promise<number | null> {
    const file = await this.options.db.selectFrom('private_files').select('project_id').where('id', '=', fileId).executeTakeFirst();
    return file?.project_id ?? null;
  }

  private async projectOf(model: ActivityModel, id: number): Promise<number | null> {
    if (model === 'private_file') return this.projectOfFile(id);
    if (model === 'event') return (await this.options.db.selectFrom('events').select('project_id').where('id', '=', id).executeTakeFirst())?.project_id ?? null;
    return null;
  }

  /** A record by the name people know it by: a project's title (or address), a file's title, a contact's name. */
  private async subjectOf(model: ActivityModel, id: number): Promise<string> {
    const { db } = this.options;
    switch (model) {
      case 'project': {
        const row = await db.selectFrom('projects').select(['title', 'address']).where('id', '=', id).executeTakeFirst();
        return row?.title || row?.address || `project ${id}`;
      }
      case 'private_file': {
        const row = await db.selectFrom('private_files').select('title').where('id', '=', id).executeTakeFirst();
        return row?.title || `file ${id}`;
      }
      case 'contact': {
        const row = await db.selectFrom('contacts').select(['first_name', 'family_name', 'email']).where('id', '=', id).executeTakeFirst();
        return `${row?.first_name ?? ''} ${row?.family_name ?? ''}`.trim() || row?.email || `contact ${id}`;
      }
      case 'event': {
        const row = await db.selectFrom('events').select('title').where('id', '=', id).executeTakeFirst();
        return row?.title || `schedule entry ${id}`;
      }
      case 'webhook': {
        const row = await db.selectFrom('webhooks').select('endpoint').where('id', '=', id).executeTakeFirst();
        return row ? `webhook to ${row.endpoint}` : `webhook ${id}`;
      }
    }
  }
}
