// The bridge channels of field photos (issue 17): a photo's EXIF (files.photoInfo),
// photos.check and the inbox. EXIF is read from the local blobs only. One
// inbox runs per backend, on the workspace's project-folders root, and lives as long
// as that backend's watcher (the core starts it after a backend starts and closes it
// before the backend closes: sign-in, sign-out, another org, a new folder root).
import { type ApiResponse, BridgeError, type BridgeHandlers, type PhotoInfo } from '../../shared/bridge.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import type { PrivateFileJson } from '../../shared/schemas/private-file.ts';
import { INBOX_FOLDER, type InboxState } from '../../shared/photos.ts';
import type { LocalBackend } from './local-backend.ts';
import type { RawApiRequest } from './local-api.ts';
import { connectInboxOf, workspaceFolderRoot } from './folder-session.ts';
import { PhotoInbox } from './photo-inbox.ts';
import { checkProjectPhotos, localBlobHead, PhotoExifCache } from './photo-places.ts';
import { readPhotoExifOffThread } from './media-worker.ts';

type PhotoChannels = 'files.photoInfo' | 'photos.check' | 'inbox.list' | 'inbox.attach' | 'inbox.undo';

/** How much of a photo files.photoInfo reads for its EXIF: a JPEG's is in its first segment (at most 64 KiB); HEIC and PNG keep theirs near the start too. */
const EXIF_HEAD_BYTES = 512 * 1024;

export interface PhotoHandlersOptions {
  current: () => Promise<LocalBackend>;
  callApi: (request: RawApiRequest) => Promise<ApiResponse>;
  /** The Settings folder root now (null: none). */
  folderRoot: () => string | null;
  onInboxChanged: (state: InboxState) => void;
  log?: (line: string) => void;
}

export interface PhotoHost {
  handlers: Pick<BridgeHandlers, PhotoChannels>;
  /** A backend started: its inbox starts (when it watches project folders). */
  started(backend: LocalBackend): void;
  /** The backend is about to close: its inbox stops first. */
  closing(): Promise<void>;
}

export function createPhotoHost(options: PhotoHandlersOptions): PhotoHost {
  let inbox: PhotoInbox | null = null;
  let stopHearingProjects: (() => void) | null = null;
  const caches = new WeakMap<LocalBackend, PhotoExifCache>();
  const cacheOf = (backend: LocalBackend) => {
    let cache = caches.get(backend);
    if (!cache) caches.set(backend, (cache = new PhotoExifCache(backend.db)));
    return cache;
  };
  const noInbox = (): InboxState => ({
    folder: null,
    waiting: [],
    log: [],
    lastBatch: null,
    problem: `No folder root is set, so there is no ${INBOX_FOLDER} folder: choose one in Settings.`,
  });
  const activeInbox = async () => {
    await options.current();
    return inbox;
  };

  return {
    handlers: {
      'files.photoInfo': async ({ fileId }): Promise<PhotoInfo> => {
        const backend = await options.current();
        const described = await options.callApi({ method: 'GET', path: apiPaths.privateFile(backend.identity().orgId, fileId) });
        if (described.status !== 200) throw new BridgeError(`Could not find file ${fileId}.`, { status: described.status });
        const hash = (described.body as PrivateFileJson).file_hash;
        const head = hash ? await localBlobHead(backend.fileRoot, hash, EXIF_HEAD_BYTES).catch(() => null) : null;
        if (!head) return { takenAt: null, latitude: null, longitude: null, isHere: false };
        const exif = await readPhotoExifOffThread(head);
        return { takenAt: exif.takenAt, latitude: exif.lat, longitude: exif.lon, isHere: true };
      },
      'photos.check': async ({ projectId }) => {
        const backend = await options.current();
        return checkProjectPhotos(backend.db, backend.fileRoot, cacheOf(backend), backend.identity().orgId, projectId);
      },
      'inbox.list': async () => (await activeInbox())?.refresh() ?? noInbox(),
      'inbox.attach': async ({ name, projectId }) => {
        const active = await activeInbox();
        if (!active) return noInbox();
        return active.attach(name, projectId);
      },
      'inbox.undo': async ({ entryId }) => {
        const active = await activeInbox();
        if (!active) return noInbox();
        return active.undo(entryId);
      },
    },
    started(backend) {
      const folderRoot = options.folderRoot();
      if (!folderRoot || !backend.folders()) return;
      const started = (inbox = new PhotoInbox({
        root: workspaceFolderRoot(backend.mode, folderRoot),
        db: backend.db,
        fileRoot: backend.fileRoot,
        orgId: backend.identity().orgId,
        callApi: options.callApi,
        onChange: options.onInboxChanged,
        log: options.log,
      }));
      // The inbox takes its files from the watcher's intake, and matches the waiting ones again when a project changes (it may have gained a site).
      started.start(connectInboxOf(backend.folders(), started));
      stopHearingProjects = backend.watchRecordChanges((changes) => {
        if (changes.some((change) => change.model === 'project')) started.projectsChanged();
      });
    },
    async closing() {
      const closing = inbox;
      inbox = null;
      stopHearingProjects?.();
      stopHearingProjects = null;
      await closing?.close();
    },
  };
}
