// The composer of the running app, for every host. The desktop (Electron) and
// browser mode (`solardesk web`) run `startAppCore`: it locks the data folder, starts the local backend on it (core-runtime.ts: the
// engine on the embedded store with no remote, the sync agent once the user signs
// in to one) and composes the bridge's handlers from their modules by domain
// (session, settings, files, local work, documents, photos). The headless agent (`solardesk
// agent`) runs `startHeadlessAgent`: the same sync agent and project folders
// watcher, joined the same way, with no bridge. It never imports Electron: the
// shell hands in what differs (where settings live, how a folder is opened).
import path from 'node:path';
import type { BridgeEnvelope, BridgeHandlers, SessionInfo } from '../../shared/bridge.ts';
import { dispatchInvoke } from '../bridge-dispatch.ts';
import { BridgeEventHub } from '../bridge-events.ts';
import { type DataFolderLock, lockDataFolder } from '../engine/store/data-folder-lock.ts';
import { type Agent, type AgentOptions, startAgent } from '../sync/agent.ts';
import { type ProjectFolderOptions, projectFolderRecords, watchProjectFolders } from './agent-folders.ts';
import { type AppCoreOptions, createCoreRuntime } from './core-runtime.ts';
import { sessionHandlers } from './session-handlers.ts';
import { settingsHandlers } from './settings-handlers.ts';
import { fileHandlers } from './file-handlers.ts';
import { localWorkHandlers } from './local-work-handlers.ts';
import { documentHandlers } from './document-handlers.ts';
import { activityHandlers } from './activity-handlers.ts';
import { createPhotoHost } from './photo-handlers.ts';
import { ThumbnailService } from './thumbnails.ts';
import { createMediaRoute, type MediaAnswer } from './media.ts';

export { type AppCoreOptions, describeChanges } from './core-runtime.ts';
// What hosts catch when the app cannot start: they reach the engine and sync only through the core.
export { DataFolderInUseError } from '../engine/store/data-folder-lock.ts';
export { AgentSetupError } from '../sync/agent.ts';

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
  const runtime = createCoreRuntime(options, lock, events);
  // Field photos: files.photoInfo, photos.check and the inbox folder, one inbox per backend.
  const photos = createPhotoHost({
    current: runtime.current,
    callApi: runtime.callApi,
    folderRoot: () => options.settings.read().folderRoot,
    onInboxChanged: (state) => events.emit('inbox.changed', state),
    log: options.logFolders,
  });
  await runtime.start(photos);

  // One cache for every workspace: it is keyed by the contents' hash, and the data folder is private.
  const thumbnails = new ThumbnailService({ cacheDir: path.join(options.dataDir, 'thumbnails'), concurrency: 2 });
  const media = createMediaRoute({ backend: runtime.current, callApi: runtime.callApi, thumbnails });

  const handlers: BridgeHandlers = {
    ...sessionHandlers(runtime),
    ...settingsHandlers(runtime),
    ...fileHandlers(runtime),
    ...localWorkHandlers(runtime),
    ...documentHandlers(runtime),
    ...activityHandlers(runtime),
    ...photos.handlers,
  };

  return {
    handlers,
    events,
    invoke: (channel, request) => dispatchInvoke(handlers, channel, request, runtime.logError),
    session: runtime.session,
    media: async (urlPath, ifNoneMatch) => {
      try {
        return await media(urlPath, ifNoneMatch);
      } catch (error) {
        runtime.logError(`answering ${urlPath.split('?')[0]}`, error);
        return { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, body: 'SolarDesk could not answer this.' };
      }
    },
    async close() {
      await runtime.close(() => thumbnails.close());
      lock.release();
    },
  };
}

export interface HeadlessAgentOptions extends Omit<AgentOptions, 'folders'> {
  /** Keep one folder per project under `root` (docs/project-folders.md). */
  projectFolders?: { root: string } & ProjectFolderOptions;
}

/** `solardesk agent`: the sync agent on its replica, with its project folders watcher when given a root. */
export function startHeadlessAgent({ projectFolders, ...options }: HeadlessAgentOptions): Promise<Agent> {
  // The watcher's records go with it: sync re-keys folder rows through them when a record gets its remote id.
  if (!projectFolders) return startAgent({ ...options, folderRecords: projectFolderRecords });
  const { root, ...folderOptions } = projectFolders;
  return startAgent({ ...options, folders: watchProjectFolders(root, folderOptions), folderRecords: projectFolderRecords });
}
