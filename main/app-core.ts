// The main-process core: what the Electron shell and browser mode both run. It
// starts the local backend on the data folder (the engine on the embedded store
// with no remote, the sync agent once the user signs in to one) and implements
// every bridge channel of shared/bridge.ts on top of the local API. It never
// imports Electron: the shell hands in what differs (where settings live, how a
// folder is opened).
import fsp from 'node:fs/promises';
import path from 'node:path';
import {
  BridgeError,
  type BridgeEnvelope,
  type BridgeHandlers,
  type LocalWorkOffer,
  type RecordsChanged,
  type LocalWorkKind,
  type SessionInfo,
  type Settings,
  type SignOutAnswer,
  type SyncState,
  type Unsubscribe,
} from '../shared/bridge.ts';
import { BridgeEventHub, dispatchInvoke } from './bridge-dispatch.ts';
import { currentIdOf } from './sync/replica.ts';
import { startEmbeddedBackend } from './core/embedded-backend.ts';
import { type LocalBackend, LOCAL_ONLY_STATE } from './core/local-backend.ts';
import type { SyncAgentHost } from './core/agent-backend.ts';
import { callLocalApi, callLocalApiForBytes, type RawApiRequest } from './core/local-api.ts';
import { cancelUpload, downloadFile, downloadFileVersion, finishUpload, projectFolder, replaceContents, sendUploadPart, startUpload, uploadFile, type WorkspaceFolders } from './core/file-transfers.ts';
import type { SettingsStore } from './core/host-stores.ts';
import type { ProjectFolderOptions } from './core/agent-folders.ts';
import { workspaceFolderRoot } from './core/folder-session.ts';
import { type DataFolderLock, DataFolderInUseError, lockDataFolder } from './engine/store/data-folder-lock.ts';
import { type RecordChangeEvent, TRACKED_MODEL_PATHS } from './engine/changes/change-feed.ts';
import { countHeldDeletes, countOutbox } from './sync/outbox.ts';
import { syncPaths } from '../shared/api-paths.ts';
import { describeSignInFailure, describeUnsentChanges } from './sync/remote-errors.ts';
import { createPhotoHost } from './core/photo-handlers.ts';
import { listLocalWork, readLocalWorkState, sendLocalWork, targetKey, updateLocalWorkState } from './core/local-work.ts';
import { ThumbnailService } from './core/thumbnails.ts';
import { createMediaRoute, type MediaAnswer } from './core/media.ts';
import { localCopyOf } from './core/file-open.ts';
import { readPhotoExifOffThread } from './core/media-worker.ts';
import { blobPath } from './engine/files/blob-store.ts';
import { apiPaths } from '../shared/api-paths.ts';
import type { PrivateFileJson } from '../shared/schemas/private-file.ts';

/** How much of a photo files.photoInfo reads for its EXIF. */
const EXIF_HEAD_BYTES = 512 * 1024;

export interface AppCoreOptions {
  dataDir: string;
  /** What this process is, for the message a second process on the same data folder prints (default "the SolarDesk app"). */
  hostName?: string;
  settings: SettingsStore;
  /** Opens a folder in the system's file manager; resolves false where there is none (a headless machine). */
  openFolder: (folder: string) => Promise<boolean>;
  /** The system's folder dialog (the desktop's): the folder picked, or null when cancelled. None in browser mode. */
  chooseFolder?: (defaultPath: string | undefined) => Promise<string | null>;
  /** The desktop's "Open" (Electron's shell.openPath): resolves false when the system has no app for it. Absent in browser mode. */
  openFile?: (file: string) => Promise<boolean>;
  /** The desktop's "Show in folder" (shell.showItemInFolder). Absent in browser mode. */
  showItemInFolder?: (file: string) => void;
  /** Let the embedded engine deliver webhooks to loopback and private addresses (tests, self-hosted networks). */
  allowPrivateWebhookEndpoints?: boolean;
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
  /** How often the inbox folder (Unsorted) is looked at, and its stability window (tests shorten both). */
  photoInbox?: { intervalMs?: number; stableMs?: number };
}

export interface AppCore {
  readonly handlers: BridgeHandlers;
  readonly events: BridgeEventHub;
  /** Validates and runs one bridge call: what both transports call. */
  invoke(channel: unknown, request: unknown): Promise<BridgeEnvelope<unknown>>;
  session(): Promise<SessionInfo>;
  /** The /media/ route (shared/media-paths.ts): thumbnails and the viewers' contents, for both hosts. */
  media(urlPath: string, ifNoneMatch?: string): Promise<MediaAnswer>;
  close(): Promise<void>;
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

export async function startAppCore(options: AppCoreOptions): Promise<AppCore> {
  // Held for the app's whole life, across backend swaps (sign-in, sign-out, another
  // org), so no other process can take the folder in between.
  const lock = lockDataFolder(options.dataDir, options.hostName ?? 'the SolarDesk app');
  try {
    return await startLockedAppCore(options, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startLockedAppCore(options: AppCoreOptions, lock: DataFolderLock): Promise<AppCore> {
  const events = new BridgeEventHub();
  const logError = options.logError ?? ((context, error) => console.error(`SolarDesk: ${context}:`, error));
  let syncState: SyncState = LOCAL_ONLY_STATE;
  let watchers: Unsubscribe[] = [];

  const isSignedIn = (settings: Settings) => Boolean(settings.remoteUrl && options.syncAgent?.isSignedIn(options.dataDir));

  /** The agent when signed in to a remote, else the embedded store. `password` comes only with a sign-in. */
  async function startBackend(password?: string): Promise<LocalBackend> {
    const settings = options.settings.read();
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
        folderRoot: settings.folderRoot,
        projectFolders: options.projectFolders,
        lockHolder: `the sync agent of ${options.hostName ?? 'the SolarDesk app'}`,
        downloadHosts: () => options.settings.read().downloadHosts,
      });
    } else {
      // While signed in, settings.orgId is the remote's org: the local workspace keeps its own.
      const isLocalWorkspace = isSignedIn(settings) && !wantsRemote;
      backend = await startEmbeddedBackend({
        dataDir: options.dataDir,
        dataFolderLock: lock,
        orgId: isLocalWorkspace ? localWork.localOrgId : settings.orgId,
        allowPrivateWebhookEndpoints: options.allowPrivateWebhookEndpoints ?? false,
        maxUploadBytes: options.maxUploadBytes,
        folderRoot: settings.folderRoot,
        projectFolders: options.projectFolders,
        log: options.logFolders,
      });
      const localOrgId = backend.identity().orgId;
      if (localWork.localOrgId !== localOrgId) updateLocalWorkState(options.dataDir, (state) => void (state.localOrgId = localOrgId));
    }
    let userName = backend.identity().user.displayName;
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
      backend.watchRecordChanges((changes) => events.emit('records.changed', describeChanges(changes))),
    ];
    photos.started(backend);
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
  let lastUnsent = { pending: 0, heldDeletes: 0 };
  const unsentOf = async (active: LocalBackend) => {
    const heldDeletes = await countHeldDeletes(active.db);
    return { pending: (await countOutbox(active.db)) - heldDeletes, heldDeletes };
  };

  // Field photos: photos.check and the inbox folder, one inbox per backend (main/core/photo-handlers.ts).
  const photos = createPhotoHost({
    current: () => current,
    callApi: (request) => callLocalApi(() => current, request),
    folderRoot: () => options.settings.read().folderRoot,
    onInboxChanged: (state) => events.emit('inbox.changed', state),
    inbox: options.photoInbox,
    log: options.logFolders,
  });
  let current = startBackendOrFallBack();
  await current;
  const backend = () => current;

  /** Swaps the backend (another org, a sign-in or sign-out); calls made meanwhile wait for the new one. */
  let restarting: Promise<void> = Promise.resolve();
  function restartBackend(password?: string): Promise<void> {
    const restart = restarting.then(async () => {
      const old = await current.catch(() => null);
      for (const unsubscribe of watchers) unsubscribe();
      // What has not gone up yet, so signing out from the local workspace can still say it.
      if (old?.mode === 'synced') lastUnsent = await unsentOf(old).catch(() => lastUnsent);
      syncState = LOCAL_ONLY_STATE;
      await photos.closing();
      await old?.close();
      current = startBackend(password);
      await current;
      events.emit('session.changed', await session());
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

  /** The saved sign-in and its org's name (known from the last time its agent ran), or null. */
  function signedInTo(settings: Settings): SessionInfo['signedIn'] {
    if (!isSignedIn(settings) || !settings.remoteUrl) return null;
    const known = readLocalWorkState(options.dataDir).signedIn;
    return { remoteUrl: settings.remoteUrl, orgName: known?.remoteUrl === settings.remoteUrl ? known.orgName : settings.remoteUrl };
  }

  /**
   * Runs `use` on the embedded store: the active backend in the local workspace (or
   * when not signed in), else a short-lived one beside the agent (its own SQLite file;
   * the data folder's lock is the core's), closed afterwards.
   */
  async function withLocalStore<T>(use: (store: LocalBackend) => Promise<T>): Promise<T> {
    const active = await current;
    if (active.mode === 'embedded') return use(active);
    const store = await startEmbeddedBackend({
      dataDir: options.dataDir,
      dataFolderLock: lock,
      orgId: readLocalWorkState(options.dataDir).localOrgId,
      allowPrivateWebhookEndpoints: options.allowPrivateWebhookEndpoints ?? false,
      folderRoot: null,
    });
    try {
      return await use(store);
    } finally {
      await store.close();
    }
  }

  /** What exists only on this computer and has not gone to the signed-in org. */
  async function localWorkOffer(): Promise<LocalWorkOffer> {
    const signedIn = signedInTo(options.settings.read());
    const state = readLocalWorkState(options.dataDir);
    if (!signedIn || !state.signedIn || state.signedIn.remoteUrl !== signedIn.remoteUrl) {
      return { isOpen: false, isKept: false, orgName: null, remoteUrl: null, items: [] };
    }
    const target = state.targets[targetKey(state.signedIn.remoteUrl, state.signedIn.orgId)];
    const items = (await withLocalStore((store) => listLocalWork(store.db, store.identity().orgId))).filter((item) => !target?.sent[item.key]);
    const isKept = target?.kept ?? false;
    return { isOpen: items.length > 0 && !isKept, isKept, orgName: state.signedIn.orgName, remoteUrl: state.signedIn.remoteUrl, items };
  }

  const callApi = (request: RawApiRequest) => callLocalApi(backend, request);
  const orgId = async () => (await current).identity().orgId;
  /**
   * The active workspace's project folders: its store's mapping, under the root its
   * watcher watches (the folder root when synced, its "On this computer" folder on the
   * embedded store).
   */
  const workspaceFolders = async (): Promise<WorkspaceFolders> => {
    const backend = await current;
    return { db: backend.db, root: workspaceFolderRoot(backend.mode, options.settings.read().folderRoot) };
  };

  // One cache for every workspace: it is keyed by the contents' hash, and the data folder is private.
  const thumbnails = new ThumbnailService({ cacheDir: path.join(options.dataDir, 'thumbnails'), concurrency: 2 });
  const media = createMediaRoute({ backend, callApi, thumbnails });
  const notOnDesktop = (what: string) =>
    new BridgeError(`${what} works in the desktop app only. Here, Download saves the file into its project folder, with an extension your system opens.`, { code: 'not_available' });

  const handlers: BridgeHandlers = {
    'session.get': () => session(),

    // What a write changed reaches `records.changed` from the engine (startBackend), not from here.
    'api.request': (request) => callApi(request),

    'files.upload': async (request) => uploadFile(callApi, await orgId(), request, (progress) => events.emit('upload.progress', progress)),
    'files.uploadStart': async (request) => startUpload(callApi, await orgId(), request),
    'files.uploadPart': async (request) => sendUploadPart(callApi, await orgId(), request),
    'files.uploadFinish': async (request) => finishUpload(callApi, await orgId(), request),
    'files.uploadCancel': async ({ uploadId }) => cancelUpload(callApi, await orgId(), uploadId),

    'files.download': async ({ fileId }) => downloadFile(callApi, await orgId(), await workspaceFolders(), fileId),

    'files.downloadVersion': async ({ fileId, versionId }) =>
      downloadFileVersion(callApi, (path) => callLocalApiForBytes(backend, path), await orgId(), await workspaceFolders(), fileId, versionId),

    'files.replaceContents': async (request) => replaceContents(callApi, await orgId(), request),

    'files.open': async ({ fileId }) => {
      if (!options.openFile) throw notOnDesktop('Open');
      const file = await localCopyOf(callApi, await orgId(), await workspaceFolders(), fileId);
      return { path: file, opened: await options.openFile(file) };
    },

    'files.showInFolder': async ({ fileId }) => {
      if (!options.showItemInFolder) throw notOnDesktop('Show in folder');
      const file = await localCopyOf(callApi, await orgId(), await workspaceFolders(), fileId);
      options.showItemInFolder(file);
      return { path: file };
    },

    'files.photoInfo': async ({ fileId }) => {
      const active = await current;
      const described = await callApi({ method: 'GET', path: apiPaths.privateFile(active.identity().orgId, fileId) });
      if (described.status !== 200) throw new BridgeError(`Could not find file ${fileId}.`, { status: described.status });
      const hash = (described.body as PrivateFileJson).file_hash;
      const nothing = { takenAt: null, latitude: null, longitude: null };
      if (!hash) return { ...nothing, isHere: false };
      let bytes: Uint8Array;
      try {
        // A JPEG's EXIF is in its first segment (at most 64 KiB); HEIC and PNG keep theirs near the start too.
        const handle = await fsp.open(blobPath(active.fileRoot, hash), 'r');
        try {
          const head = Buffer.alloc(EXIF_HEAD_BYTES);
          const { bytesRead } = await handle.read(head, 0, head.length, 0);
          bytes = head.subarray(0, bytesRead);
        } finally {
          await handle.close();
        }
      } catch {
        return { ...nothing, isHere: false };
      }
      const exif = await readPhotoExifOffThread(bytes);
      return { takenAt: exif.takenAt, latitude: exif.lat, longitude: exif.lon, isHere: true };
    },

    'folder.open': async ({ projectId }) => {
      const folders = await workspaceFolders();
      const folder = projectId === undefined ? folders.root : await projectFolder(callApi, await orgId(), folders, projectId);
      await fsp.mkdir(folder, { recursive: true });
      return { path: folder, opened: await options.openFolder(folder) };
    },

    'settings.get': async () => options.settings.read(),

    'settings.chooseFolder': async (request) => {
      if (!options.chooseFolder) return { available: false, path: null };
      const defaultPath = request?.defaultPath && path.isAbsolute(request.defaultPath) ? request.defaultPath : undefined;
      return { available: true, path: await options.chooseFolder(defaultPath) };
    },

    'settings.set': async (patch) => {
      if (patch.folderRoot !== undefined && !path.isAbsolute(patch.folderRoot)) {
        throw new BridgeError('The folder root must be an absolute path.', { code: 'invalid_request' });
      }
      const before = options.settings.read();
      const after: Settings = { ...before, ...patch };
      // A sign-in belongs to the remote it was made with.
      if (after.remoteUrl !== before.remoteUrl) options.syncAgent?.forgetSignIn(options.dataDir);
      options.settings.write(after);
      // Either backend watches the folder root (main/core/folder-session.ts): a new root means a new watcher, started with the backend.
      if (after.orgId !== before.orgId || after.remoteUrl !== before.remoteUrl || after.folderRoot !== before.folderRoot) await restartBackend();
      return after;
    },

    'auth.signIn': async ({ remoteUrl, username, password, orgId: wantedOrg }) => {
      if (!options.syncAgent) throw new BridgeError('This SolarDesk was started without the sync agent, so it cannot sign in to a remote.');
      const before = options.settings.read();
      const wasSignedIn = isSignedIn(before);
      const url = remoteUrl.replace(/\/+$/, '');
      options.settings.write({ ...before, remoteUrl: url, username, orgId: wantedOrg ?? null });
      try {
        await restartBackend(password);
      } catch (error) {
        // Back to what ran before, and say why the sign-in failed: the user's to fix, not the app's fault.
        options.settings.write(before);
        if (!wasSignedIn) options.syncAgent.forgetSignIn(options.dataDir);
        await restartBackend();
        throw new BridgeError(describeSignInFailure(url, (error as Error).message), { code: 'sign_in_failed' });
      }
      const active = await current;
      const identity = active.identity();
      updateLocalWorkState(options.dataDir, (state) => {
        state.workspace = 'remote';
        state.signedIn = { remoteUrl: url, orgId: identity.orgId, orgName: identity.orgName };
      });
      // The org's name is known now: tell the views again (the restart told them before it was saved).
      const info = await session();
      events.emit('session.changed', info);
      return info;
    },

    'auth.signOut': async (request): Promise<SignOutAnswer> => {
      const settings = options.settings.read();
      if (!request?.confirm && isSignedIn(settings) && settings.remoteUrl) {
        const active = await current;
        const unsent = active.mode === 'synced' ? await unsentOf(active) : lastUnsent;
        if (unsent.pending > 0 || unsent.heldDeletes > 0) {
          return { outcome: 'needs_confirmation', ...unsent, remoteUrl: settings.remoteUrl, question: describeUnsentChanges(settings.remoteUrl, unsent) };
        }
      }
      // The URL and username stay, so signing in again only needs the password; the replica stays too.
      options.syncAgent?.forgetSignIn(options.dataDir);
      updateLocalWorkState(options.dataDir, (state) => void (state.workspace = 'remote'));
      lastUnsent = { pending: 0, heldDeletes: 0 };
      await restartBackend();
      return { outcome: 'signed_out', session: await session() };
    },

    'workspace.switch': async ({ workspace }) => {
      if (!isSignedIn(options.settings.read())) {
        throw new BridgeError('There is only the workspace on this computer until you sign in to a remote (Sync → Sign in).', { code: 'not_signed_in' });
      }
      if (readLocalWorkState(options.dataDir).workspace !== workspace) {
        updateLocalWorkState(options.dataDir, (state) => void (state.workspace = workspace));
        await restartBackend();
      }
      return session();
    },

    'localWork.list': () => localWorkOffer(),

    'localWork.send': async ({ keys }) => {
      const active = await current;
      const state = readLocalWorkState(options.dataDir);
      if (active.mode !== 'synced' || !state.signedIn) {
        throw new BridgeError('Open your office’s workspace first: work goes up through its sync agent (the workspace switcher in the sidebar).', { code: 'not_signed_in' });
      }
      const signedIn = state.signedIn;
      const target = targetKey(signedIn.remoteUrl, signedIn.orgId);
      const agentApi = (request: Parameters<typeof callApi>[0]) => callLocalApi(async () => active, request);
      // Sync waits while the records are made: a record the agent pushed meanwhile would
      // be re-keyed under a reference made to its provisional id (a file's project).
      const agentOrg = active.identity().orgId;
      const status = await agentApi({ method: 'GET', path: syncPaths.status(agentOrg) });
      const wasPaused = (status.body as { state?: string } | null)?.state === 'paused';
      if (!wasPaused) await agentApi({ method: 'POST', path: syncPaths.pause(agentOrg) });
      const result = await withLocalStore(async (store) => {
        const all = await listLocalWork(store.db, store.identity().orgId);
        const sent = state.targets[target]?.sent ?? {};
        const wanted = all.filter((item) => keys.includes(item.key) && !sent[item.key]);
        // What was sent earlier was recorded by the agent's provisional id; sync has most likely given it the remote's id since.
        const sentIds = new Map<string, number>();
        for (const [key, entry] of Object.entries(sent)) sentIds.set(key, await currentIdOf(active.db, key.split(':')[0] as LocalWorkKind, entry.remoteId));
        return sendLocalWork(
          {
            source: { callApi: (request) => callLocalApi(async () => store, request), orgId: store.identity().orgId },
            target: { callApi: agentApi, orgId: active.identity().orgId, orgName: signedIn.orgName },
          },
          wanted,
          all,
          (key) => sentIds.get(key) ?? null,
          (item, remoteId) =>
            updateLocalWorkState(options.dataDir, (next) => {
              const entry = (next.targets[target] ??= { kept: false, sent: {} });
              entry.sent[item.key] = { remoteId, at: new Date().toISOString() };
            }),
          (progress) => events.emit('localWork.progress', progress),
        );
      }).finally(async () => {
        if (!wasPaused) await agentApi({ method: 'POST', path: syncPaths.resume(agentOrg) });
      });
      return { ...result, offer: await localWorkOffer() };
    },

    ...photos.handlers,

    'localWork.keep': async () => {
      const state = readLocalWorkState(options.dataDir);
      if (!state.signedIn || !isSignedIn(options.settings.read())) return localWorkOffer();
      const target = targetKey(state.signedIn.remoteUrl, state.signedIn.orgId);
      updateLocalWorkState(options.dataDir, (next) => void ((next.targets[target] ??= { kept: false, sent: {} }).kept = true));
      return localWorkOffer();
    },
  };

  return {
    handlers,
    events,
    invoke: (channel, request) => dispatchInvoke(handlers, channel, request, logError),
    session,
    media: async (urlPath, ifNoneMatch) => {
      try {
        return await media(urlPath, ifNoneMatch);
      } catch (error) {
        logError(`answering ${urlPath.split('?')[0]}`, error);
        return { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, body: 'SolarDesk could not answer this.' };
      }
    },
    async close() {
      await restarting.catch(() => {});
      for (const unsubscribe of watchers) unsubscribe();
      await photos.closing();
      await thumbnails.close();
      await (await current.catch(() => null))?.close();
      lock.release();
    },
  };
}
