// A project's private files, uploads in flight (with their progress events), the
// results of downloads and folder opening, and the earlier versions of the one
// file whose versions are open (docs/files.md "Versions").
import { z } from 'zod';
import { create } from 'zustand';
import { apiPaths } from '../../../shared/api-paths.ts';
import { BridgeError, type UploadProgress } from '../../../shared/bridge.ts';
import { ApiFailure, apiOk, apiOkUnchecked, messageOf } from '../api/api-client.ts';
import { formatDateTime } from '../format.ts';
import {
  privateFileJsonSchema,
  privateFileVersionJsonSchema,
  type PrivateFileJson,
  type PrivateFileVersionJson,
} from '../../../shared/schemas/private-file.ts';
import { requireBridge } from '../bridge-client.ts';
import { useUiStore } from './ui-store.ts';

/** A 404 on a version: it aged out (docs/files.md "Versions") since the list was shown. */
const isGone = (error: unknown) => (error instanceof ApiFailure || error instanceof BridgeError) && error.status === 404;
const versionGoneMessage = (file: PrivateFileJson) =>
  `That version of ${file.title} is no longer kept (only the last 10, and all from the last 30 days, are). The list now shows the ones that are.`;

/** The versions of one file, shown under its row. */
export interface OpenVersions {
  orgId: number;
  fileId: number;
  list: PrivateFileVersionJson[];
  status: 'loading' | 'ready' | 'error';
  error: string | null;
}

interface FilesState {
  projectId: number | null;
  files: PrivateFileJson[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  uploads: Record<string, UploadProgress>;
  load(orgId: number, projectId: number): Promise<void>;
  upload(projectId: number, files: readonly File[]): Promise<void>;
  download(file: PrivateFileJson): Promise<void>;
  openFolder(projectId: number): Promise<void>;
  versions: OpenVersions | null;
  /** Opens the versions of a file (closing any other's), or closes them if they are open. */
  toggleVersions(orgId: number, fileId: number): Promise<void>;
  /** Reads the open versions again (after a change event). */
  loadVersions(): Promise<void>;
  restoreVersion(file: PrivateFileJson, version: PrivateFileVersionJson): Promise<void>;
  downloadVersion(file: PrivateFileJson, version: PrivateFileVersionJson): Promise<void>;
  /** New contents for a file that keeps its id; the current ones become a version. */
  replaceContents(file: PrivateFileJson, contents: File): Promise<void>;
  /** Keeps upload progress in step with the core; returns the unsubscribe. */
  follow(): () => void;
}

let uploadCounter = 0;
const newUploadId = () => `u${Date.now().toString(36)}${(uploadCounter++).toString(36)}`;

export const useFilesStore = create<FilesState>((set, get) => ({
  projectId: null,
  files: [],
  status: 'idle',
  error: null,
  uploads: {},
  versions: null,

  async load(orgId, projectId) {
    if (get().projectId !== projectId) set({ projectId, files: [], status: 'loading', error: null, versions: null });
    try {
      const files = await apiOkUnchecked(z.array(privateFileJsonSchema), 'GET', apiPaths.privateFiles(orgId), {
        query: { project: projectId, limit: 1000, ordering: '-modified_date' },
      });
      if (get().projectId === projectId) set({ files, status: 'ready', error: null });
    } catch (error) {
      if (get().projectId === projectId) set({ status: 'error', error: messageOf(error) });
    }
  },

  async upload(projectId, files) {
    const bridge = requireBridge();
    await Promise.all(
      files.map(async (file) => {
        const uploadId = newUploadId();
        set({ uploads: { ...get().uploads, [uploadId]: { uploadId, projectId, fileName: file.name, sentBytes: 0, totalBytes: file.size, state: 'uploading' } } });
        try {
          const bytes = new Uint8Array(await file.arrayBuffer());
          await bridge.invoke('files.upload', { uploadId, projectId, fileName: file.name, bytes });
        } catch (error) {
          useUiStore.getState().toast(messageOf(error), 'error');
          set({ uploads: { ...get().uploads, [uploadId]: { ...get().uploads[uploadId]!, state: 'failed', error: messageOf(error) } } });
        }
      }),
    );
  },

  async download(file) {
    try {
      const saved = await requireBridge().invoke('files.download', { fileId: file.id });
      useUiStore.getState().toast(`Saved ${file.title} to ${saved.path}`);
    } catch (error) {
      useUiStore.getState().toast(messageOf(error), 'error');
    }
  },

  async openFolder(projectId) {
    try {
      const result = await requireBridge().invoke('folder.open', { projectId });
      if (!result.opened) useUiStore.getState().toast(`The project folder is ${result.path}`);
    } catch (error) {
      useUiStore.getState().toast(messageOf(error), 'error');
    }
  },

  async toggleVersions(orgId, fileId) {
    if (get().versions?.fileId === fileId) {
      set({ versions: null });
      return;
    }
    set({ versions: { orgId, fileId, list: [], status: 'loading', error: null } });
    await get().loadVersions();
  },

  async loadVersions() {
    const open = get().versions;
    if (!open) return;
    const stillOpen = () => get().versions?.fileId === open.fileId;
    try {
      const list = await apiOk(z.array(privateFileVersionJsonSchema), 'GET', apiPaths.privateFileVersions(open.orgId, open.fileId));
      if (stillOpen()) set({ versions: { ...get().versions!, list, status: 'ready', error: null } });
    } catch (error) {
      if (stillOpen()) set({ versions: { ...get().versions!, status: 'error', error: messageOf(error) } });
    }
  },

  async restoreVersion(file, version) {
    const open = get().versions;
    if (open?.fileId !== file.id) return;
    try {
      // The Files list and this list refresh from the change event the restore causes.
      await apiOk(privateFileJsonSchema, 'POST', apiPaths.privateFileVersionRestore(open.orgId, file.id, version.id));
      useUiStore.getState().toast(`Restored ${file.title} as it was before ${formatDateTime(version.replaced_at)}`);
    } catch (error) {
      useUiStore.getState().toast(isGone(error) ? versionGoneMessage(file) : messageOf(error), 'error');
      if (isGone(error)) await get().loadVersions();
    }
  },

  async downloadVersion(file, version) {
    try {
      const saved = await requireBridge().invoke('files.downloadVersion', { fileId: file.id, versionId: version.id });
      useUiStore.getState().toast(`Saved the earlier version of ${file.title} to ${saved.path}`);
    } catch (error) {
      useUiStore.getState().toast(isGone(error) ? versionGoneMessage(file) : messageOf(error), 'error');
      if (isGone(error)) await get().loadVersions();
    }
  },

  async replaceContents(file, contents) {
    try {
      const bytes = new Uint8Array(await contents.arrayBuffer());
      await requireBridge().invoke('files.replaceContents', { fileId: file.id, fileName: contents.name, bytes });
      useUiStore.getState().toast(`${file.title} has new contents; the previous ones are kept as a version`);
    } catch (error) {
      useUiStore.getState().toast(messageOf(error), 'error');
    }
  },

  follow() {
    return requireBridge().subscribe('upload.progress', (progress) => {
      set({ uploads: { ...get().uploads, [progress.uploadId]: progress } });
      // Finished uploads leave the list a little later, so the user sees them complete.
      if (progress.state === 'done') {
        setTimeout(() => {
          const { [progress.uploadId]: _done, ...rest } = get().uploads;
          set({ uploads: rest });
        }, 2500);
      }
    });
  },
}));
