// The running backend behind the bridge's handlers: which one is active (the
// embedded store, or the sync agent once signed in), how it is swapped (sign-in,
// sign-out, another org, a new folder root) and the session it serves. The
// handler modules (session-handlers.ts, settings-handlers.ts, file-handlers.ts,
// local-work-handlers.ts, photo-handlers.ts) work through it; app-core.ts
// composes them. It never imports Electron: the host hands in what differs.
import type { RecordsChanged, SessionInfo, Settings, SyncState, Unsubscribe, ApiResponse } from '../../shared/bridge.ts';
import type { BridgeEventHub } from '../bridge-events.ts';
import { type DataFolderLock, DataFolderInUseError } from '../engine/store/data-folder-lock.ts';
import { type RecordChangeEvent, TRACKED_MODEL_PATHS } from '../engine/changes/change-feed.ts';
import { countHeldDeletes, countOutbox } from '../sync/outbox.ts';
import type { DownloadEvent } from '../sync/remote-contents.ts';
import type { AllowanceWait } from '../sync/quota-pacer.ts';
import type { SyncedModel } from '../sync/sync-models.ts';
import { startEmbeddedBackend } from './embedded-backend.ts';
import { type LocalBackend, LOCAL_ONLY_STATE } from './local-backend.ts';
import type { SyncAgentHost } from './agent-backend.ts';
import { callLocalApi, type RawApiRequest } from './local-api.ts';
import type { WorkspaceFolders } from './file-transfers.ts';
import type { SettingsStore } from './host-stores.ts';
import type { ProjectFolderOptions } from './agent-folders.ts';
import { workspaceFolderRoot } from './folder-session.ts';
import { readLocalWorkState, updateLocalWorkState } from './local-work.ts';
import { ActivityRecorder } from './activity-recorder.ts';
import type { RecordedActivity } from './activity-log.ts';
import { type ActivityNotice, mergeNotices, noticeFor } from '../../shared/activity.ts';

export interface AppCoreOptions {
  dataDir: string;
  /** What this process is, for the message a second process on the same data folder prints (default "the SolarDesk app"). */
  hostName?: string;
  settings: SettingsStore;
  /** Opens a folder in the system's file manager; resolves false where there is none (a headless machine). */
  openFolder: (folder: string) => Promise<boolean>;
  /** The system's folder dialog (the desktop's): the folder picked, or null when cancelled. None in browser mode. */
  chooseFolder?: (defaultPath: string | undefined) => Promise<string | null>;
  /** The system's save dialog (the desktop's), offering `fileName`: the full path picked, or null when cancelled. None in browser mode. */
  chooseSaveFile?: (fileName: string) => Promise<string | null>;
  /** The desktop's "Open" (Electron's shell.openPath): resolves false when the system has no app for it. Absent in browser mode. */
  openFile?: (file: string) => Promise<boolean>;
  /** The desktop's "Show in folder" (shell.showItemInFolder). Absent in browser mode. */
  showItemInFolder?: (file: string) => void;
  /** The embedded store's largest accepted upload (default 2 GiB; `solardesk web --max-upload-size`, tests). */
  maxUploadBytes?: number;
  /** The sync agent (main/core/agent-backend.ts); without it (some tests) there is no signing in to a remote. */
  syncAgent?: SyncAgentHost;
  /** Where failures inside handlers are reported (they reach the renderer only as one line). */
  logError?: (context: string, error: unknown) => void;
  /** Windows and rules of the project folders in either mode (tests shorten the stability window). */
  projectFolders?: ProjectFolderOptions;
  /** The project folders' lines worth telling a person (what was attached, held, refused). */
  logFolders?: (line: string) => void;
  /** The desktop's notifications outside the window (Electron's Notification, main/desktop/); browser mode shows `activity.notice` in the page. */
  notify?: (notice: ActivityNotice) => void;
}

/** What lives as long as one backend (the photo inbox): started after it starts, closed before it closes. */
export interface BackendCompanion {
  started(backend: LocalBackend): void;
  closing(): Promise<void>;
}

/** Changes not yet on the remote: pending outbox entries and deletes held for the user. */
export interface UnsentChanges {
  pending: number;
  heldDeletes: number;
}

export interface CoreRuntime {
  readonly options: AppCoreOptions;
  readonly events: BridgeEventHub;
  readonly logError: (context: string, error: unknown) => void;
  /** The active backend (waits while one is being swapped in). */
  current(): Promise<LocalBackend>;
  /** The local API as the session's user. */
  callApi(request: RawApiRequest): Promise<ApiResponse>;
  orgId(): Promise<number>;
  /** The active workspace's project folders: its store's mapping, under the root its watcher watches. */
  workspaceFolders(): Promise<WorkspaceFolders>;
  session(): Promise<SessionInfo>;
  isSignedIn(settings: Settings): boolean;
  /** The saved sign-in and its org's name (known from the last time its agent ran), or null. */
  signedInTo(settings: Settings): SessionInfo['signedIn'];
  /**
   * Swaps the backend (another org, a sign-in or sign-out); calls made meanwhile wait for the new one.
   * `whileStopped` runs between the old backend's close and the new one's start (no watcher watches
   * any folder then); when it fails, the backend still starts (on the settings as they are) and its
   * error is thrown.
   */
  restartBackend(password?: string, whileStopped?: () => Promise<void>): Promise<void>;
  /** Runs `use` on the embedded store: the active backend, or a short-lived one beside the agent. */
  withLocalStore<T>(use: (store: LocalBackend) => Promise<T>): Promise<T>;
  /** What the active agent has not sent, or what the last one had not when it closed. */
  unsentChanges(): Promise<UnsentChanges>;
  forgetUnsentChanges(): void;
  /** The active backend's activity log and what records into it (docs/activity.md). */
  activity(): Promise<ActivityRecorder>;
  /** Starts the first backend; `companion` lives alongside each backend. */
  start(companion: BackendCompanion): Promise<void>;
  /** Waits for a swap in flight, closes the companion, then `beforeBackendCloses`, then the backend. */
  close(beforeBackendCloses?: () => Promise<void>): Promise<void>;
}

/**
 * The changes of one committed write or pulled record, as `records.changed` tells
 * the views: the kinds of record by their API path segment, and the projects they
 * belong to. None are listed when one of them belongs to no known project, or when
 * a project was created or deleted: then any may show it, and the project list
 * itself changed (refreshing the rows it has would miss a new one).
 */
export function describeChanges(changes: readonly RecordChangeEvent[]): RecordsChanged {
  const kinds = [...new Set(changes.map((change) => TRACKED_MODEL_PATHS[change.model]))];
  const isEveryProjectKnown = changes.every((change) => change.projectId !== null);
  const isProjectListChanged = changes.some((change) => change.model === 'project' && change.op !== 'update');
  const projectIds = isEveryProjectKnown && !isProjectListChanged ? [...new Set(changes.map((change) => change.projectId!))] : [];
  return { kinds, projectIds, source: changes.some((change) => change.by.kind === 'sync') ? 'sync' : 'local' };
}

/** The backend's record changes as `records.changed` tells them (pulled ones gathered); unsubscribing tells what is left. */
function watchGathered(backend: LocalBackend, tell: (changed: RecordsChanged) => void): Unsubscribe {
  const gatherer = gatherPulledChanges(tell);
  const unsubscribe = backend.watchRecordChanges((changes) => gatherer.heard(changes));
  return () => {
    unsubscribe();
    gatherer.flush();
  };
}

/**
 * How long what a pull changes is gathered into one `records.changed`. Each record a
 * pull merges is a change of its own, and each made the open list read its row
 * again: hundreds of reads a second during a first sync, each one holding the pull
 * back (it gives way to the screen's requests, main/sync/give-way.ts). Gathered, the
 * list reads the rows of a tenth of a second at once. A change made here (the user's
 * own edit, a dropped file) is told at once, after what was gathered before it.
 */
export const PULLED_CHANGES_GATHER_MS = 100;

/** `heard`: each write's changes; `flush`: tells what is gathered now (the backend is going). */
export function gatherPulledChanges(tell: (changed: RecordsChanged) => void, gatherMs = PULLED_CHANGES_GATHER_MS): { heard(changes: readonly RecordChangeEvent[]): void; flush(): void } {
  let gathered: RecordChangeEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (gathered.length === 0) return;
    const changes = gathered;
    gathered = [];
    tell(describeChanges(changes));
  };
  return {
    heard(changes) {
      if (changes.length === 0) return;
      if (!changes.every((change) => change.by.kind === 'sync')) {
        flush();
        tell(describeChanges(changes));
        return;
      }
      gathered.push(...changes);
      timer ??= setTimeout(flush, gatherMs);
    },
    flush,
  };
}

export function createCoreRuntime(options: AppCoreOptions, lock: DataFolderLock, events: BridgeEventHub): CoreRuntime {
  const logError = options.logError ?? ((context, error) => console.error(`SolarDesk: ${context}:`, error));
  let syncState: SyncState = LOCAL_ONLY_STATE;
  let watchers: Unsubscribe[] = [];
  let companion: BackendCompanion = { started: () => {}, closing: async () => {} };
  let current: Promise<LocalBackend> = Promise.reject(new Error('The core has not started its backend yet.'));
  current.catch(() => {});

  // The activity log's recorder lives as long as its backend. What the watcher and sync tell
  // while the backend starts (before the recorder exists) waits here and is told once it does.
  let recorder: ActivityRecorder | null = null;
  let heardEarly: ((active: ActivityRecorder) => void)[] = [];
  const toRecorder = (use: (active: ActivityRecorder) => void) => (recorder ? use(recorder) : heardEarly.push(use));
  const activityHooks = {
    onActivity: (activity: Parameters<ActivityRecorder['fromFolder']>[0]) => toRecorder((active) => void active.fromFolder(activity)),
    onUploadProgress: (fileId: number, progress: { sent: number; total: number } | null) => toRecorder((active) => void active.fromUploadProgress(fileId, progress)),
    onDownload: (fileId: number, event: DownloadEvent) => toRecorder((active) => void active.fromDownload(fileId, event)),
    onAllowanceWait: (model: SyncedModel, recordId: number, wait: AllowanceWait) => toRecorder((active) => void active.fromAllowanceWait(model, recordId, wait)),
  };
  let noticesWaiting: ActivityNotice[] = [];
  const recorded = ({ entry, before }: RecordedActivity) => {
    events.emit('activity.changed', entry);
    const notice = noticeFor(entry, before, options.settings.read().notifications);
    if (notice) noticesWaiting.push(notice);
  };
  // Told once the recorder has caught up, together: twenty deletes held at once are one notification.
  const tellNotices = () => {
    const notices = mergeNotices(noticesWaiting);
    noticesWaiting = [];
    for (const notice of notices) {
      events.emit('activity.notice', notice);
      options.notify?.(notice);
    }
  };
  function startRecorder(backend: LocalBackend): void {
    const started = new ActivityRecorder({
      db: backend.db,
      clock: backend.clock,
      orgId: backend.identity().orgId,
      mode: backend.mode,
      onRecorded: recorded,
      onIdle: tellNotices,
      onError: (error) => logError('recording activity', error),
    });
    recorder = started;
    const early = heardEarly;
    heardEarly = [];
    for (const use of early) use(started);
  }
  async function stopRecorder(): Promise<void> {
    const stopping = recorder;
    recorder = null;
    heardEarly = [];
    await stopping?.close();
  }

  const isSignedIn = (settings: Settings) => Boolean(settings.remoteUrl && options.syncAgent?.isSignedIn(options.dataDir));

  /** The agent when signed in to a remote, else the embedded store. `password` comes only with a sign-in. */
  async function startBackend(password?: string): Promise<LocalBackend> {
    const settings = options.settings.read();
    // No project folder is made before the user has said where they go (the first start asks).
    const folderRoot = settings.folderRootChosen ? settings.folderRoot : null;
    const localWork = readLocalWorkState(options.dataDir);
    // Signed in, the user may still open the local workspace ("On this computer"); a new sign-in opens the org's.
    const wantsRemote = password !== undefined || localWork.workspace === 'remote';
    let backend: LocalBackend;
    if (options.syncAgent && settings.remoteUrl && (password || isSignedIn(settings)) && wantsRemote) {
      backend = await options.syncAgent.start({
        dataDir: options.dataDir,
        remoteUrl: settings.remoteUrl,
        username: settings.username,
        password,
        orgId: settings.orgId,
        folderRoot,
        projectFolders: { ...options.projectFolders, onActivity: activityHooks.onActivity },
        lockHolder: `the sync agent of ${options.hostName ?? 'the SolarDesk app'}`,
        downloadHosts: () => options.settings.read().downloadHosts,
        // Asked at each piece of a transfer: a cap changed in Settings holds without a restart.
        transferCaps: () => options.settings.read().transferCaps,
        onUploadProgress: activityHooks.onUploadProgress,
        onAllowanceWait: activityHooks.onAllowanceWait,
        onDownload: activityHooks.onDownload,
      });
    } else {
      // While signed in, settings.orgId is the remote's org: the local workspace keeps its own.
      const isLocalWorkspace = isSignedIn(settings) && !wantsRemote;
      backend = await startEmbeddedBackend({
        dataDir: options.dataDir,
        dataFolderLock: lock,
        orgId: isLocalWorkspace ? localWork.localOrgId : settings.orgId,
        allowPrivateWebhookEndpoints: () => options.settings.read().localWebhooks,
        maxUploadBytes: options.maxUploadBytes,
        folderRoot,
        projectFolders: { ...options.projectFolders, onActivity: activityHooks.onActivity },
        log: options.logFolders,
      });
      const localOrgId = backend.identity().orgId;
      if (localWork.localOrgId !== localOrgId) updateLocalWorkState(options.dataDir, (state) => void (state.localOrgId = localOrgId));
    }
    let userName = backend.identity().user.displayName;
    startRecorder(backend);
    watchers = [
      backend.watchSyncStatus((state) => {
        const wasSignInNeeded = syncState.state === 'needs_sign_in';
        syncState = state;
        events.emit('sync.state', state);
        // The user's name arrives with the first pull after a sign-in (until then, the email).
        const isRenamed = backend.identity().user.displayName !== userName;
        userName = backend.identity().user.displayName;
        // Later, not now: the first report comes while the backend is still starting.
        if (isRenamed || wasSignInNeeded !== (state.state === 'needs_sign_in')) setTimeout(() => void session().then((info) => events.emit('session.changed', info), () => {}));
      }),
      watchGathered(backend, (changed) => events.emit('records.changed', changed)),
      backend.watchRecordChanges((changes) => void recorder?.fromChanges(changes)),
      backend.watchSyncStatus((state) => void recorder?.fromSyncState(state)),
      backend.watchWebhookDeliveries?.((outcome) => void recorder?.fromWebhookDelivery(outcome)) ?? (() => {}),
    ];
    companion.started(backend);
    return backend;
  }

  /** A saved sign-in that no longer starts (the replica belongs elsewhere, a damaged file) must not keep the app from opening. */
  async function startBackendOrFallBack(): Promise<LocalBackend> {
    try {
      return await startBackend();
    } catch (error) {
      // A replica in use by another process is no reason to forget the sign-in.
      if (!isSignedIn(options.settings.read()) || error instanceof DataFolderInUseError) throw error;
      logError('starting the sync agent', error);
      options.syncAgent?.forgetSignIn(options.dataDir);
      return startBackend();
    }
  }

  /** The agent's changes not yet on the remote, as last seen when its backend closed. */
  let lastUnsent: UnsentChanges = { pending: 0, heldDeletes: 0 };
  const unsentOf = async (active: LocalBackend): Promise<UnsentChanges> => {
    const heldDeletes = await countHeldDeletes(active.db);
    return { pending: (await countOutbox(active.db)) - heldDeletes, heldDeletes };
  };

  let restarting: Promise<void> = Promise.resolve();
  function restartBackend(password?: string, whileStopped?: () => Promise<void>): Promise<void> {
    const restart = restarting.then(async () => {
      const old = await current.catch(() => null);
      for (const unsubscribe of watchers) unsubscribe();
      // What has not gone up yet, so signing out from the local workspace can still say it.
      if (old?.mode === 'synced') lastUnsent = await unsentOf(old).catch(() => lastUnsent);
      syncState = LOCAL_ONLY_STATE;
      await companion.closing();
      await old?.close();
      await stopRecorder();
      let failed: { error: unknown } | null = null;
      try {
        await whileStopped?.();
      } catch (error) {
        failed = { error };
      }
      current = startBackend(password);
      await current;
      events.emit('session.changed', await session());
      if (failed) throw failed.error;
    });
    restarting = restart.catch(() => {});
    return restart;
  }

  async function session(): Promise<SessionInfo> {
    const active = await current;
    const settings = options.settings.read();
    return {
      mode: active.mode,
      ...active.identity(),
      remoteUrl: active.mode === 'synced' ? settings.remoteUrl : null,
      folderRoot: settings.folderRoot,
      projectFoldersRoot: workspaceFolderRoot(active.mode, settings.folderRoot),
      isSyncAvailable: options.syncAgent !== undefined,
      needsSignIn: syncState.state === 'needs_sign_in',
      workspace: isSignedIn(settings) && active.mode === 'embedded' ? 'local' : 'remote',
      signedIn: signedInTo(settings),
      canChooseFolder: options.chooseFolder !== undefined,
    };
  }

  function signedInTo(settings: Settings): SessionInfo['signedIn'] {
    if (!isSignedIn(settings) || !settings.remoteUrl) return null;
    const known = readLocalWorkState(options.dataDir).signedIn;
    return { remoteUrl: settings.remoteUrl, orgName: known?.remoteUrl === settings.remoteUrl ? known.orgName : settings.remoteUrl };
  }

  /**
   * The active backend in the local workspace (or when not signed in), else a
   * short-lived embedded store beside the agent (its own SQLite file; the data
   * folder's lock is the core's), closed afterwards.
   */
  async function withLocalStore<T>(use: (store: LocalBackend) => Promise<T>): Promise<T> {
    const active = await current;
    if (active.mode === 'embedded') return use(active);
    const store = await startEmbeddedBackend({
      dataDir: options.dataDir,
      dataFolderLock: lock,
      orgId: readLocalWorkState(options.dataDir).localOrgId,
      allowPrivateWebhookEndpoints: () => options.settings.read().localWebhooks,
      folderRoot: null,
    });
    try {
      return await use(store);
    } finally {
      await store.close();
    }
  }

  const backend = () => current;
  return {
    options,
    events,
    logError,
    current: backend,
    callApi: (request) => callLocalApi(backend, request),
    orgId: async () => (await current).identity().orgId,
    // The folder root when synced, its "On this computer" folder on the embedded store.
    workspaceFolders: async () => {
      const active = await current;
      return { db: active.db, root: workspaceFolderRoot(active.mode, options.settings.read().folderRoot) };
    },
    session,
    isSignedIn,
    signedInTo,
    restartBackend,
    withLocalStore,
    async activity() {
      await current;
      if (!recorder) throw new Error('The activity log is not open: the backend is changing. Try again in a moment.');
      return recorder;
    },
    async unsentChanges() {
      const active = await current;
      return active.mode === 'synced' ? unsentOf(active) : lastUnsent;
    },
    forgetUnsentChanges: () => void (lastUnsent = { pending: 0, heldDeletes: 0 }),
    async start(lifetimeCompanion) {
      companion = lifetimeCompanion;
      current = startBackendOrFallBack();
      await current;
    },
    async close(beforeBackendCloses) {
      await restarting.catch(() => {});
      for (const unsubscribe of watchers) unsubscribe();
      await companion.closing();
      await beforeBackendCloses?.();
      await (await current.catch(() => null))?.close();
      await stopRecorder();
    },
  };
}
