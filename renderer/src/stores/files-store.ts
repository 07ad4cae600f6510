// A project's private files, uploads in flight (with their progress events) and
// the results of downloads and folder opening.
import { z } from 'zod';
import { create } from 'zustand';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { UploadProgress } from '../../../shared/bridge.ts';
import { apiOkUnchecked, messageOf } from '../api/api-client.ts';
import { privateFileJsonSchema, type PrivateFileJson } from '../../../shared/schemas/private-file.ts';
import { requireBridge } from '../bridge-client.ts';
import { useUiStore } from './ui-store.ts';

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

  async load(orgId, projectId) {
    if (get().projectId !== projectId) set({ projectId, files: [], status: 'loading', error: null });
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
