// What the push, pull and conflict code share: the local store, the remote, and
// how records are addressed on each side.
import type { Kysely } from 'kysely';
import { type Backoff, backoffDelayMs } from '../../shared/backoff.ts';
import type { Database } from '../engine/store/tables.ts';
import type { EngineContext } from '../engine/context.ts';
import type { Clock } from '../engine/clock.ts';
import type { RemoteClient } from './remote-client.ts';
import type { AllowanceWait, RequestClass } from './quota-pacer.ts';
import { MODEL_PATHS, type SyncedModel } from './sync-models.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import type { UnreadableRecords } from './remote-records.ts';
import type { ProjectFolderRecords } from './folder-records.ts';

/** How a change that failed for a passing reason is retried: firstDelayMs after the first failure, no jitter. */
export type RetrySchedule = Omit<Backoff, 'jitter'>;

export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { firstDelayMs: 5_000, factor: 4, maxDelayMs: 6 * 60 * 60_000 };

export interface SyncContext {
  readonly engine: EngineContext;
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly orgId: number;
  readonly localUserId: number;
  readonly remote: RemoteClient;
  readonly retry: RetrySchedule;
  /** The project folders' records (the watcher's, injected by the core; NO_PROJECT_FOLDERS without folders). */
  readonly folderRecords: ProjectFolderRecords;
  /** How private file creates go up: chunked and resumable above a size, with progress (main/sync/push.ts). */
  readonly uploads?: UploadSettings;
  /** Records per list page when pulling (default: 100 for changes, 1000 for sweeps); tests use small pages to cross page boundaries. */
  readonly pullPageSize?: number;
  /** Whether updates go up with If-Match (main/sync/write-preconditions.ts); detected when absent. */
  readonly preconditions?: RemotePreconditions;
  /** Remote records this cycle skipped because they did not read as their model (main/sync/remote-records.ts). */
  readonly unreadable: UnreadableRecords;
  /** Whether a private file's new contents may go up as `PUT .../contents/` (main/sync/push.ts); detected when absent. */
  readonly contentsReplace?: RemoteContentsReplace;
  /** The class of the pull's requests (default `user`): background requests go only within the budget (quota-pacer.ts). */
  readonly requestClass?: RequestClass;
  /**
   * The pull waits on this before each record's merge: the local API's requests go
   * first (give-way.ts, ForegroundActivity). Absent: it only lets waiting I/O in.
   */
  readonly giveWay?: () => Promise<void>;
  /** A background pull asks this between steps: true when user work waits, so the pull ends and lets it go first. */
  readonly shouldYield?: () => boolean;
  /** A queued change of a record waits for the org's allowance before it can go, and until when (the activity log tells it). */
  readonly onAllowanceWait?: (model: SyncedModel, recordId: number, wait: AllowanceWait) => void;
}

/**
 * `detect`: a private file's new contents go up through the SolarDesk extension
 * `PUT .../private_files/<id>/contents/` until the remote answers it with 404 or
 * 405 for a file it has; then (remembered in sync_state) and with `off` (a test
 * stand-in for the hosted service, which has no such route) they go up as a new
 * file that takes the old one's place.
 */
export interface RemoteContentsReplace {
  mode: 'detect' | 'off';
}

/**
 * `detect`: the first update of a run reads its record first and learns from the
 * answer whether the remote honours If-Match; `off`: treat the remote as one that
 * does not (the hosted service), so every update re-reads its record right before
 * it writes. `honoured` holds what was learnt, for this run only: a remote may be
 * upgraded between runs.
 */
export interface RemotePreconditions {
  mode: 'detect' | 'off';
  honoured?: boolean;
}

export interface UploadSettings {
  /** Files larger than this go up in parts (default 16 MiB). */
  readonly chunkAboveBytes: number;
  /** The size of each part (default 8 MiB). */
  readonly partBytes: number;
  /** Bytes of a file (by local id) acknowledged so far; null once it is done or has stopped. */
  readonly onProgress?: (fileId: number, progress: { sent: number; total: number } | null) => void;
}

export const DEFAULT_UPLOAD_SETTINGS: UploadSettings = { chunkAboveBytes: 16 * 1024 * 1024, partBytes: 8 * 1024 * 1024 };

export function remotePath(sync: SyncContext, model: SyncedModel, id?: number): string {
  return id === undefined ? apiPaths.orgRecords(sync.orgId, MODEL_PATHS[model]) : apiPaths.orgRecord(sync.orgId, MODEL_PATHS[model], id);
}

export function remoteUrl(sync: SyncContext, path: string): string {
  return sync.remote.url(path);
}

/** The wait before the next try of a change that has failed `attempts` times. */
export function retryDelay(schedule: RetrySchedule, attempts: number): number {
  return backoffDelayMs(schedule, attempts);
}
