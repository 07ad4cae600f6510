// Uploads in flight for the Files tab: each file sent part by part through the
// bridge, a few at once, with its progress, its time left and a cancel between
// parts (docs/files.md "The Files tab"). The files store holds the rows; these
// functions are handed its rows to read and replace, so they never import it.
import type { UploadProgress } from '../../../shared/bridge.ts';
import { messageOf } from '../api/api-client.ts';
import { requireBridge } from '../bridge-client.ts';

export type UploadRow = Omit<UploadProgress, 'state'> & {
  state: UploadProgress['state'] | 'cancelled';
  /** Date.now() when the first byte went: for the time left. */
  startedAt: number;
  /** The engine's upload, once started: what a cancel removes. */
  engineUploadId?: string;
  cancelRequested?: boolean;
};

/** The files store's upload rows, read and replaced whole. */
export interface UploadRows {
  get(): Record<string, UploadRow>;
  set(rows: Record<string, UploadRow>): void;
}

/** At most this many files go at once; the rest wait their turn (each shows its progress). */
const PARALLEL_UPLOADS = 3;
/** Finished uploads leave the list a little later, so the user sees them complete. */
const SHOW_FINISHED_MS = 2500;

let uploadCounter = 0;
const newUploadId = () => `u${Date.now().toString(36)}${(uploadCounter++).toString(36)}`;

export function patchUpload(rows: UploadRows, uploadId: string, patch: Partial<UploadRow>): void {
  const current = rows.get()[uploadId];
  if (current) rows.set({ ...rows.get(), [uploadId]: { ...current, ...patch } });
}

export function dropUpload(rows: UploadRows, uploadId: string): void {
  const { [uploadId]: _gone, ...rest } = rows.get();
  rows.set(rest);
}

const dropUploadLater = (rows: UploadRows, uploadId: string) => setTimeout(() => dropUpload(rows, uploadId), SHOW_FINISHED_MS);

class UploadCancelled extends Error {}

/** One file, part by part through the bridge: progress is what reached the engine; a cancel between parts removes the rest. */
async function uploadOne(rows: UploadRows, uploadId: string, projectId: number, file: File): Promise<void> {
  const bridge = requireBridge();
  const cancelled = () => rows.get()[uploadId]?.cancelRequested === true;
  let engineUploadId: string | null = null;
  try {
    if (cancelled()) throw new UploadCancelled();
    const started = await bridge.invoke('files.uploadStart', { projectId, fileName: file.name, size: file.size });
    engineUploadId = started.uploadId;
    patchUpload(rows, uploadId, { engineUploadId, startedAt: Date.now() });
    const partCount = Math.max(1, Math.ceil(file.size / started.partBytes));
    for (let part = 1; part <= partCount; part++) {
      if (cancelled()) throw new UploadCancelled();
      const start = (part - 1) * started.partBytes;
      const bytes = new Uint8Array(await file.slice(start, start + started.partBytes).arrayBuffer());
      await bridge.invoke('files.uploadPart', { uploadId: engineUploadId, fileName: file.name, part, bytes });
      patchUpload(rows, uploadId, { sentBytes: Math.min(start + bytes.length, file.size) });
    }
    if (cancelled()) throw new UploadCancelled();
    await bridge.invoke('files.uploadFinish', { uploadId: engineUploadId, fileName: file.name });
    patchUpload(rows, uploadId, { sentBytes: file.size, state: 'done' });
    dropUploadLater(rows, uploadId);
  } catch (error) {
    if (error instanceof UploadCancelled) {
      if (engineUploadId) await bridge.invoke('files.uploadCancel', { uploadId: engineUploadId }).catch(() => undefined);
      patchUpload(rows, uploadId, { state: 'cancelled' });
      dropUploadLater(rows, uploadId);
      return;
    }
    // The core has already removed what was sent (files.uploadPart/Finish cancel on a refusal).
    patchUpload(rows, uploadId, { state: 'failed', error: messageOf(error) });
  }
}

/** Shows a row for every file at once, then sends them PARALLEL_UPLOADS at a time. */
export async function uploadFiles(rows: UploadRows, projectId: number, files: readonly File[]): Promise<void> {
  const queued = files.map((file) => {
    const uploadId = newUploadId();
    const row: UploadRow = { uploadId, projectId, fileName: file.name, sentBytes: 0, totalBytes: file.size, state: 'uploading', startedAt: Date.now() };
    rows.set({ ...rows.get(), [uploadId]: row });
    return { uploadId, file };
  });
  const next = async (): Promise<void> => {
    const item = queued.shift();
    if (!item) return;
    await uploadOne(rows, item.uploadId, projectId, item.file);
    await next();
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_UPLOADS, queued.length) }, next));
}

/** Keeps the rows in step with the core's progress events; returns the unsubscribe. */
export function followUploadProgress(rows: UploadRows): () => void {
  // files.upload (a whole file in one call) reports its parts as events.
  return requireBridge().subscribe('upload.progress', (progress) => {
    rows.set({ ...rows.get(), [progress.uploadId]: { startedAt: rows.get()[progress.uploadId]?.startedAt ?? Date.now(), ...progress } });
    if (progress.state === 'done') dropUploadLater(rows, progress.uploadId);
  });
}
