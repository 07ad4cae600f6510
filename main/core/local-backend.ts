// The seam between the core and what serves the local API: the bare engine on the
// embedded store when no remote is set up (embedded-backend.ts), the sync agent of
// main/sync/ once one is (agent-backend.ts). Either serves the local API (the
// agent adds the sync routes of shared/sync-api.ts) and reports its sync state;
// the core, the bridge and the renderer do not care which.
import type { DataFolderLock } from '../engine/store/data-folder-lock.ts';
import type { SessionMode, SessionUser, SyncState, Unsubscribe } from '../../shared/bridge.ts';
import type { ChangeListener } from '../engine/changes/change-feed.ts';
import type { AgentFolders } from '../sync/agent.ts';
import type { ProjectFolderOptions } from './agent-folders.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { Clock } from '../engine/clock.ts';
import type { DeliveryOutcomeNotice } from '../engine/webhooks/delivery-worker.ts';

export interface LocalIdentity {
  user: SessionUser;
  orgId: number;
  orgName: string;
  isAdmin: boolean;
  /** Orgs this machine can switch to. */
  orgs: { id: number; name: string }[];
}

export interface LocalBackend {
  readonly mode: SessionMode;
  /** This backend's store: where its project folders' mapping (watch_projects) lives, so "open folder" and downloads pick the watcher's folder. */
  readonly db: Kysely<Database>;
  /** The engine's clock: what the activity log's entries are dated and pruned by. */
  readonly clock: Clock;
  /** Where this backend's file contents are (blobs/ab/cd/<sha256>): thumbnails and photos' EXIF are made from them, never fetched (thumbnails.ts, photo-places.ts). */
  readonly fileRoot: string;
  /** Where the local API answers (http://127.0.0.1:PORT) and a token that signs the session's user in. */
  api(): { baseUrl: string; token: string };
  /** Gets a fresh token after the local API refused the current one (tokens expire). */
  renewToken(): Promise<void>;
  identity(): LocalIdentity;
  /** Sync status, now and whenever it changes. */
  watchSyncStatus(listener: (state: SyncState) => void): Unsubscribe;
  /** Every committed change of a record, made through the local API, a project folder or a sync, as the engine announces it. */
  watchRecordChanges(listener: ChangeListener): Unsubscribe;
  /** Webhook deliveries this backend's engine finished (only the embedded store delivers: a synced replica never does). */
  watchWebhookDeliveries?(listener: (outcome: DeliveryOutcomeNotice) => void): Unsubscribe;
  /** The project folders this backend watches (main/core/folder-session.ts), or null when no folder root is set. */
  folders(): AgentFolders | null;
  close(): Promise<void>;
}

export interface EmbeddedStartOptions {
  dataDir: string;
  /** The host's lock on the data folder, lent to the engine (the host holds it across backend swaps). */
  dataFolderLock: DataFolderLock;
  /** The org to work on; null or unknown: the first the local user can act for. */
  orgId: number | null;
  /** Whether the engine may deliver webhooks to loopback and private addresses now: asked at each delivery (the Settings switch). */
  allowPrivateWebhookEndpoints: () => boolean;
  /** The largest upload the engine accepts (default: the engine's, 2 GiB). */
  maxUploadBytes?: number;
  /** The Settings folder root: the embedded store's project folders are in its "On this computer" folder (null: none). */
  folderRoot: string | null;
  /** Windows and rules of the project folders (tests shorten the stability window). */
  projectFolders?: ProjectFolderOptions;
  log?: (line: string) => void;
}

export const LOCAL_ONLY_STATE: SyncState = {
  state: 'local_only',
  pending: 0,
  conflicts: 0,
  heldDeletes: 0,
  lastSyncedAt: null,
  nextAttemptAt: null,
  remoteReachable: false,
  detail: 'Local only — no remote configured',
};
