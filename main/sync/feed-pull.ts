// Change detection through a SolarDesk remote's change feed (issue 15, docs/sync.md
// "Change feed"). At start one GET of `changes/` tells whether the remote has the
// feed: 404 or 405 (the hosted service) means no, and the agent keeps to polling.
// With the feed, the agent keeps one hint stream open (reconnecting with a backoff)
// and, on each hint (and on each connect, for what it missed), reads the change
// list from the cursor kept in sync_state and applies exactly those records: a
// detail GET and a merge for a created or changed record (events too, so one
// changed elsewhere arrives without its project being read again), a removal for a deleted
// one (unless it carries local changes still waiting, as in a sweep). A record with
// local changes queued is left to the next cycle, which pulls before it pushes. A
// 410 (the cursor is older than the remote's log) asks the next pull to sweep every
// list. A file's change is read with one list of its project's files per page of
// changes. Then it tells the sync engine (SyncEngine.requestPull('hint')), whose
// pull moves its probes' marks past what was read. Every request but the
// stream goes through the remote client, and so through the quota pacer.
import { createParser } from 'eventsource-parser';
import type { SyncContext } from './sync-context.ts';
import type { EventStream } from './remote-client.ts';
import { REMOTE_LIMITS } from './remote-limits.ts';
import { remotePath } from './sync-context.ts';
import { feedCursor, setFeedCursor } from './sync-state.ts';
import { getRemoteJson, mergeRemote, removeReplicaRecord, requestSweep } from './pull.ts';
import { readRemote } from './remote-records.ts';
import { syncModel } from './models/index.ts';
import { refreshProjectFiles } from './pull-plan.ts';
import { hasQueuedChanges } from './outbox.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { type Backoff, backoffDelayMs } from '../../shared/backoff.ts';
import { CURSOR_EXPIRED_STATUS, type ChangeEntry, changeHintSchema, changeListSchema } from '../../shared/schemas/change-feed.ts';

const PAGE = 100;
/** A stream that sent nothing (not even a heartbeat) for this long is taken for dead and reopened. */
const SILENT_STREAM_MS = 45_000;
export const STREAM_RECONNECT: Backoff = { firstDelayMs: 1_000, factor: 2, maxDelayMs: 60_000, jitter: 0.2 };

export type FeedState = 'detecting' | 'listening' | 'reconnecting' | 'absent' | 'stopped';

/** What feed-pull asks of the sync engine (SyncEngine.requestPull). */
export interface PullRequester {
  requestPull(reason: 'hint' | 'user', scope?: { projectIds?: number[] }): void;
}

export interface FeedPullOptions {
  log?: (line: string) => void;
  reconnect?: Backoff;
  /** After each batch of changes applied (tests and benchmarks). */
  onApplied?: (changes: readonly ChangeEntry[]) => void;
}

class FeedAbsent extends Error {}

export class FeedPull {
  private feedState: FeedState = 'detecting';
  private readonly abort = new AbortController();
  private loop: Promise<void> | null = null;
  private catchingUp: Promise<void> | null = null;
  private catchUpAgain = false;

  constructor(
    private readonly sync: SyncContext,
    private readonly puller: PullRequester,
    private readonly options: FeedPullOptions = {},
  ) {}

  get state(): FeedState {
    return this.feedState;
  }

  /** Starts listening in the background; never throws (a remote without the feed is polled as before). */
  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.feedState = 'stopped';
    this.abort.abort();
    await this.loop;
    await this.catchingUp;
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        if ((await feedCursor(this.sync.db)) === undefined) await this.startCursor(false);
        const heard = await this.listen();
        if (heard) failures = 0;
      } catch (error) {
        if (error instanceof FeedAbsent) {
          this.feedState = 'absent';
          this.options.log?.('sync: the remote has no change feed; changes are found by polling');
          return;
        }
        if (this.stopped) return;
        if (failures === 0) this.options.log?.(`sync: the change feed's stream dropped (${(error as Error).message}); reconnecting`);
      }
      if (this.stopped) return;
      this.feedState = 'reconnecting';
      failures++;
      await sleep(backoffDelayMs(this.options.reconnect ?? STREAM_RECONNECT, failures), this.abort.signal);
    }
  }

  /**
   * The remote's newest cursor, kept as the place to read on from. What changed
   * before it is a full pull's to bring: the agent's first cycle, or (`pullNow`,
   * after a 410) one asked for here.
   */
  private async startCursor(pullNow: boolean): Promise<void> {
    const outcome = await this.sync.remote.request({ method: 'GET', path: apiPaths.changes(this.sync.orgId), action: 'default' });
    if (outcome.kind === 'rejected' && (outcome.status === 404 || outcome.status === 405)) throw new FeedAbsent();
    if (outcome.kind !== 'ok') throw new Error(`the change feed did not answer: ${outcome.message}`);
    const list = changeListSchema.safeParse(outcome.body);
    if (!list.success) throw new FeedAbsent(); // something else answers there
    await setFeedCursor(this.sync.db, list.data.next_cursor);
    if (pullNow) this.puller.requestPull('hint');
  }

  /** One connection of the hint stream; true when the remote answered it (then the backoff starts over). */
  private async listen(): Promise<boolean> {
    const stream = await this.sync.remote.openEventStream(apiPaths.changeStream(this.sync.orgId), this.abort.signal);
    try {
      return await this.read(stream);
    } finally {
      await stream.close();
    }
  }

  private async read(response: EventStream): Promise<boolean> {
    if (response.status === 404 || response.status === 405) throw new FeedAbsent();
    if (response.status !== 200 || !response.body) throw new Error(`HTTP ${response.status}`);
    this.feedState = 'listening';
    // Characters since the last whole event or comment (a heartbeat): an event, or a line, that never ends is cut off
    // at REMOTE_LIMITS.feedEventChars, and the stream reopened, rather than kept growing (and the watchdog fed by it).
    let unfinished = 0;
    const parser = createParser({
      onEvent: (event) => {
        unfinished = 0;
        if ((event.event === 'hint' || event.event === 'ready') && changeHintSchema.safeParse(safeJson(event.data)).success) this.catchUp();
      },
      onComment: () => {
        unfinished = 0;
      },
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let watchdog: NodeJS.Timeout | undefined;
    const feedWatchdog = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => void reader.cancel(new Error('the stream went silent')), SILENT_STREAM_MS);
      watchdog.unref();
    };
    feedWatchdog();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const text = decoder.decode(value, { stream: true });
        unfinished += text.length;
        if (unfinished > REMOTE_LIMITS.feedEventChars) {
          // Counted before the parser holds it; the parser's buffer goes with this connection.
          throw new Error(`a change-feed event over ${REMOTE_LIMITS.feedEventChars / (1024 * 1024)} MB was cut off`);
        }
        feedWatchdog();
        parser.feed(text);
      }
    } finally {
      clearTimeout(watchdog);
    }
    return true;
  }

  /** Reads and applies the changes after the kept cursor; one at a time, again when asked meanwhile. */
  private catchUp(): void {
    if (this.catchingUp) {
      this.catchUpAgain = true;
      return;
    }
    this.catchingUp = (async () => {
      do {
        this.catchUpAgain = false;
        try {
          await this.readChanges();
        } catch (error) {
          // Offline, busy or signed out: the sync engine says so; the next hint or connect tries again.
          this.options.log?.(`sync: reading the change feed failed (${(error as Error).message})`);
        }
      } while (this.catchUpAgain && !this.stopped);
    })().finally(() => {
      this.catchingUp = null;
    });
  }

  private async readChanges(): Promise<void> {
    let applied = 0;
    for (let pages = 0; pages < 1000 && !this.stopped; pages++) {
      const cursor = await feedCursor(this.sync.db);
      if (cursor === undefined) return;
      const outcome = await this.sync.remote.request({ method: 'GET', path: apiPaths.changes(this.sync.orgId), query: { after: cursor, limit: PAGE }, action: 'default' });
      if (outcome.kind === 'rejected' && outcome.status === CURSOR_EXPIRED_STATUS) {
        // Too long away: the log no longer reaches back. Start again from the newest cursor, and sweep everything.
        this.options.log?.('sync: the change feed no longer reaches back to this computer\'s place; reading everything again');
        await requestSweep(this.sync);
        await this.startCursor(true);
        return;
      }
      if (outcome.kind !== 'ok') throw new Error(outcome.message);
      const list = changeListSchema.parse(outcome.body);
      const filesOfProjects = new Set<number>();
      for (const change of list.changes) {
        await this.apply(change, filesOfProjects);
        applied++;
      }
      // A project's new or changed files are read with one list of that project's files, not a detail GET
      // each (thirty photos dropped at once cost one request of the org's 1,000 a day); before the cursor moves.
      for (const projectId of filesOfProjects) await refreshProjectFiles(this.sync, projectId);
      await setFeedCursor(this.sync.db, list.next_cursor);
      if (list.changes.length > 0) this.options.onApplied?.(list.changes);
      if (!list.has_more) break;
    }
    // The probes' marks move past what was read here, so the next timed poll does not walk it again.
    if (applied > 0) this.puller.requestPull('hint');
  }

  private async apply(change: ChangeEntry, filesOfProjects: Set<number>): Promise<void> {
    if (change.op === 'delete') {
      await removeReplicaRecord(this.sync, change.model, change.id);
      return;
    }
    // Local changes waiting: the cycle merges it, pulling before it pushes.
    if (await hasQueuedChanges(this.sync.db, change.model, change.id)) return;
    // The replica has this version already (most often this computer's own push): nothing to read.
    const known = await this.sync.db.selectFrom('sync_records').select('remote_modified').where('model', '=', change.model).where('record_id', '=', change.id).executeTakeFirst();
    if (known && known.remote_modified === change.modified_date) return;
    const model = syncModel(change.model);
    // A file of a project is read with that project's other changed files (one list request).
    if (model.projectPart?.feed === 'files' && change.project_id !== null) {
      filesOfProjects.add(change.project_id);
      return;
    }
    // An event of a project this replica does not hold yet comes with that project's detail (its events_data).
    if (model.projectPart?.feed === 'detail' && change.project_id !== null && !(await this.hasProject(change.project_id))) return;
    const json = await getRemoteJson(this.sync, remotePath(this.sync, change.model, change.id), {}, model.quota.detail);
    if (json === null) {
      // 403 or 404: gone, or no longer shown to this user.
      await removeReplicaRecord(this.sync, change.model, change.id);
      return;
    }
    const record = readRemote(this.sync.unreadable, change.model, json);
    // An event moved to a project this replica lacks: as above, that project's detail brings it.
    if (record && model.projectPart?.feed === 'detail' && !(await this.hasProjectOf(model.view(record)[model.projectPart.field]))) return;
    if (record) await mergeRemote(this.sync, change.model, record);
  }

  private async hasProject(projectId: number): Promise<boolean> {
    return (await this.sync.db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst()) !== undefined;
  }

  /** Whether the replica holds the project a record names (one that names none needs none). */
  private async hasProjectOf(projectId: unknown): Promise<boolean> {
    return typeof projectId !== 'number' || this.hasProject(projectId);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
