// The activity log's store (issue 32, docs/activity.md): the core's `activity_log`
// table (migration 0027), in the backend's own store, so each workspace has its
// own timeline. Entries are written by the recorder (activity-recorder.ts) from what
// the engine, sync and the watcher announce; nobody else queries the table. Kept
// ACTIVITY_KEEP_DAYS on the injected clock; searched by each entry's words
// (shared/activity.ts searchTextOf), filtered by project and kind, newest first.
import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { Clock } from '../engine/clock.ts';
import {
  ACTIVITY_KEEP_DAYS,
  ACTIVITY_PAGE_MAX,
  type ActivityEntry,
  type ActivityKind,
  type ActivityModel,
  type ActivityPage,
  type ActivityQuery,
  type ActivityState,
  type WaitReason,
  searchTextOf,
} from '../../shared/activity.ts';
import type { ActivityLogTable } from './core-tables.ts';

/** What a recorder says happened; `liveKey` names a thing under way (an upload of one file), whose one entry later calls move. */
export interface ActivityNote {
  kind: ActivityKind;
  state: ActivityState;
  waitReason?: WaitReason | null;
  projectId?: number | null;
  fileId?: number | null;
  model?: ActivityModel | null;
  recordId?: number | null;
  subject: string;
  fields?: readonly string[];
  progress?: { done: number; total: number } | null;
  detail?: string | null;
  holdId?: number | null;
  conflictId?: number | null;
  liveKey?: string | null;
  /** A waiting entry that starts now (an upload's first bytes): its time is now, so it sorts after what came before its start. */
  isStartingNow?: boolean;
  /** The entry this note moves (it was read before): found by its id, whatever a re-key did to its live key meanwhile. */
  entryId?: number;
}

/** An entry as written, and how it was before (null: new), so notifications fire once per state. */
export interface RecordedActivity {
  entry: ActivityEntry;
  before: ActivityEntry | null;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Pruning runs at most this often (of the injected clock), on the next entry recorded. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

type Row = Selectable<ActivityLogTable>;

function entryOf(row: Row): ActivityEntry {
  return {
    id: row.id,
    at: row.at,
    updatedAt: row.updated_at,
    kind: row.kind as ActivityKind,
    state: row.state as ActivityState,
    waitReason: row.wait_reason as WaitReason | null,
    projectId: row.project_id,
    fileId: row.file_id,
    model: row.model as ActivityModel | null,
    recordId: row.record_id,
    subject: row.subject,
    fields: JSON.parse(row.fields) as string[],
    progress: row.progress_done !== null && row.progress_total !== null ? { done: Number(row.progress_done), total: Number(row.progress_total) } : null,
    detail: row.detail,
    holdId: row.hold_id,
    conflictId: row.conflict_id,
  };
}

/** `%` and `_` typed into the search box are themselves, not wildcards. */
const likePattern = (word: string) => `%${word.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

export class ActivityLog {
  private lastPrunedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly orgId: number,
  ) {}

  /** Writes a new entry, or moves the live one `note.liveKey` names; an entry that is done or failed is no longer live. */
  async record(note: ActivityNote): Promise<RecordedActivity> {
    await this.pruneIfDue();
    const now = this.clock.now().toISOString();
    const fields = [...(note.fields ?? [])];
    const isLive = note.state === 'running' || note.state === 'waiting';
    const values = {
      updated_at: now,
      kind: note.kind,
      state: note.state,
      wait_reason: note.state === 'waiting' ? (note.waitReason ?? null) : null,
      project_id: note.projectId ?? null,
      file_id: note.fileId ?? null,
      model: note.model ?? null,
      record_id: note.recordId ?? null,
      subject: note.subject,
      fields: JSON.stringify(fields),
      progress_done: note.progress?.done ?? null,
      progress_total: note.progress?.total ?? null,
      detail: note.detail ?? null,
      hold_id: note.holdId ?? null,
      conflict_id: note.conflictId ?? null,
      live_key: isLive ? (note.liveKey ?? null) : null,
      search_text: searchTextOf({ kind: note.kind, subject: note.subject, fields, detail: note.detail ?? null }),
    };
    const live = note.entryId !== undefined ? await this.row(note.entryId) : note.liveKey ? await this.liveRow(note.liveKey) : undefined;
    if (live) {
      // The record it names may have taken its remote id since it was read (sync's re-key moved the row's ids and
      // live key in its own transaction): those stay as the row has them; a thing that is over is no longer live.
      const { project_id: _project, file_id: _file, record_id: _record, live_key: liveKey, ...moved } = values;
      void [_project, _file, _record];
      await this.db
        .updateTable('activity_log')
        .set({ ...moved, live_key: isLive ? (live.live_key ?? liveKey) : null, ...(note.isStartingNow ? { at: now } : {}) })
        .where('id', '=', live.id)
        .execute();
      const row = await this.db.selectFrom('activity_log').selectAll().where('id', '=', live.id).executeTakeFirstOrThrow();
      return { entry: entryOf(row), before: entryOf(live) };
    }
    const inserted = await this.db
      .insertInto('activity_log')
      .values({ ...values, org_id: this.orgId, at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const row = await this.db.selectFrom('activity_log').selectAll().where('id', '=', inserted.id).executeTakeFirstOrThrow();
    return { entry: entryOf(row), before: null };
  }

  /** The entry of a thing still under way or waiting, if there is one. */
  async live(liveKey: string): Promise<ActivityEntry | null> {
    const row = await this.liveRow(liveKey);
    return row ? entryOf(row) : null;
  }

  /** Every entry still under way or waiting (the recorder settles them when sync's state moves). */
  async liveEntries(): Promise<ActivityEntry[]> {
    const rows = await this.db.selectFrom('activity_log').selectAll().where('org_id', '=', this.orgId).where('live_key', 'is not', null).orderBy('id', 'desc').limit(ACTIVITY_PAGE_MAX).execute();
    return rows.map(entryOf);
  }

  /** The newest entry of `kind` naming this file (a file uploaded from here is not a download when it reaches its folder; a fetch's entry is told the write that followed it). */
  async latestFor(kind: ActivityKind, fileId: number): Promise<ActivityEntry | null> {
    const row = await this.db.selectFrom('activity_log').selectAll().where('org_id', '=', this.orgId).where('kind', '=', kind).where('file_id', '=', fileId).orderBy('id', 'desc').executeTakeFirst();
    return row ? entryOf(row) : null;
  }

  async get(id: number): Promise<ActivityEntry | null> {
    const row = await this.db.selectFrom('activity_log').selectAll().where('org_id', '=', this.orgId).where('id', '=', id).executeTakeFirst();
    return row ? entryOf(row) : null;
  }

  /** Newest first (by when each happened or started): every word of `search` in an entry's words, of `projectId`, of one of `kinds`. */
  async list(query: ActivityQuery = {}): Promise<ActivityPage> {
    const limit = Math.min(query.limit ?? 100, ACTIVITY_PAGE_MAX);
    let select = this.db.selectFrom('activity_log').selectAll().where('org_id', '=', this.orgId);
    if (query.projectId !== undefined) select = select.where('project_id', '=', query.projectId);
    if (query.kinds && query.kinds.length > 0) select = select.where('kind', 'in', query.kinds);
    if (query.beforeId !== undefined) {
      // The next page: what sorts after that entry (by its time, then its number).
      const last = await this.row(query.beforeId);
      if (last) select = select.where((eb) => eb.or([eb('at', '<', last.at), eb.and([eb('at', '=', last.at), eb('id', '<', last.id)])]));
    }
    for (const word of (query.search ?? '').toLowerCase().split(/\s+/).filter(Boolean)) {
      select = select.where(sql<boolean>`search_text like ${likePattern(word)} escape '\\'`);
    }
    const rows = await select.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
    return { entries: rows.slice(0, limit).map(entryOf), hasMore: rows.length > limit };
  }

  /** Removes entries older than ACTIVITY_KEEP_DAYS; answers how many. */
  async prune(): Promise<number> {
    const now = this.clock.now().getTime();
    this.lastPrunedAt = now;
    const cutoff = new Date(now - ACTIVITY_KEEP_DAYS * DAY_MS).toISOString();
    const result = await this.db.deleteFrom('activity_log').where('updated_at', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  private async pruneIfDue(): Promise<void> {
    if (this.clock.now().getTime() - this.lastPrunedAt >= PRUNE_EVERY_MS) await this.prune();
  }

  private row(id: number): Promise<Row | undefined> {
    return this.db.selectFrom('activity_log').selectAll().where('org_id', '=', this.orgId).where('id', '=', id).executeTakeFirst();
  }

  private liveRow(liveKey: string): Promise<Row | undefined> {
    return this.db.selectFrom('activity_log').selectAll().where('org_id', '=', this.orgId).where('live_key', '=', liveKey).orderBy('id', 'desc').executeTakeFirst();
  }
}

/** A record made offline took its remote id (main/sync/record-ids.ts): the entries naming it follow, in sync's transaction. */
export async function rekeyActivity(trx: Transaction<Database>, model: 'project' | 'private_file', from: number, to: number): Promise<void> {
  const column = model === 'project' ? 'project_id' : 'file_id';
  await trx.updateTable('activity_log').set({ [column]: to }).where(column, '=', from).execute();
  await trx.updateTable('activity_log').set({ record_id: to }).where('model', '=', model).where('record_id', '=', from).execute();
  // A live key names the file it follows ("upload:<id>"): the upload under its new id is the same entry.
  if (model === 'private_file') {
    for (const prefix of ['upload', 'download', 'edit:private_file']) {
      await trx.updateTable('activity_log').set({ live_key: `${prefix}:${to}` }).where('live_key', '=', `${prefix}:${from}`).execute();
    }
  }
  if (model === 'project') await trx.updateTable('activity_log').set({ live_key: `edit:project:${to}` }).where('live_key', '=', `edit:project:${from}`).execute();
}
