// A project's private files and the Files tab's state: the chosen sort and filter
// (applied by file-list-order.ts), selection, what the user does to the files
// (rename, tags, show customer, deletes with an undo window), the rows of uploads
// in flight (sent by file-uploads.ts), downloads and folder opening, and the
// earlier versions of the one file whose versions are open (docs/files.md "The
// Files tab").
import { z } from 'zod';
import { create } from 'zustand';
import { apiPaths } from '../../../shared/api-paths.ts';
import { BridgeError } from '../../../shared/bridge.ts';
import { ApiFailure, apiDone, apiOk, apiOkUnchecked, messageOf } from '../api/api-client.ts';
import { formatDateTime } from '../format.ts';
import {
  fileTagJsonSchema,
  privateFileJsonSchema,
  privateFileVersionJsonSchema,
  type FileTagJson,
  type PrivateFileJson,
  type PrivateFileVersionJson,
} from '../../../shared/schemas/private-file.ts';
import { NO_FILTER, type FileFilter, type FileSort } from './file-list-order.ts';
import { dropUpload, followUploadProgress, patchUpload, uploadFiles, type UploadRow, type UploadRows } from './file-uploads.ts';
import { requireBridge } from '../bridge-client.ts';
import { currentWorkspaceKey } from './session-store.ts';
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

/** Files deleted in the app, hidden from the list; the delete is sent when the undo window ends. */
export interface PendingDelete {
  key: number;
  /** The workspace it was asked in (currentWorkspaceKey): it is sent only there. */
  workspace: string;
  orgId: number;
  projectId: number | null;
  files: PrivateFileJson[];
  /** Date.now() when the delete is sent. */
  sendsAt: number;
}

/** How long a delete made in the app can be undone before it is sent (docs/files.md "Deleting"). */
export const DELETE_UNDO_MS = 10_000;

interface FilesState {
  projectId: number | null;
  orgId: number | null;
  files: PrivateFileJson[];
  /** The org's file tags (what files can be tagged with). */
  tags: FileTagJson[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  uploads: Record<string, UploadRow>;
  sort: FileSort;
  filter: FileFilter;
  /** Selected file ids (checkboxes, click, shift/ctrl click, Ctrl+A). */
  selected: number[];
  /** The row the keyboard is on. */
  active: number | null;
  /** The anchor of a shift-click range. */
  anchor: number | null;
  pendingDeletes: PendingDelete[];
  load(orgId: number, projectId: number): Promise<void>;
  upload(projectId: number, files: readonly File[]): Promise<void>;
  /** Stops an upload between parts and removes what was sent: nothing is attached. */
  cancelUpload(uploadId: string): void;
  dismissUpload(uploadId: string): void;
  setSort(sort: Partial<FileSort>): void;
  setFilter(filter: Partial<FileFilter>): void;
  /** Click on a row: alone; with ctrl/cmd: toggled; with shift: the range from the anchor, in the list's order. */
  selectRow(fileId: number, how: 'only' | 'toggle' | 'range', visibleIds: readonly number[]): void;
  setSelected(ids: readonly number[]): void;
  setActive(fileId: number | null): void;
  rename(file: PrivateFileJson, title: string): Promise<boolean>;
  setShowCustomer(file: PrivateFileJson, show: boolean): Promise<void>;
  /** Puts the tag on every file named, or takes it off every one when all have it. */
  toggleTag(fileIds: readonly number[], tag: FileTagJson): Promise<void>;
  createTag(title: string): Promise<FileTagJson | null>;
  /** Hides the files now and deletes them when the undo window ends. */
  deleteFiles(fileIds: readonly number[]): void;
  undoDelete(key: number): void;
  /** Sends a pending delete now (the undo bar's "Delete now"). */
  sendDelete(key: number): Promise<void>;
  downloadMany(fileIds: readonly number[]): Promise<void>;
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

const pendingTimers = new Map<number, ReturnType<typeof setTimeout>>();
let pendingKey = 1;
export const useFilesStore = create<FilesState>((set, get) => ({
  projectId: null,
  orgId: null,
  files: [],
  tags: [],
  status: 'idle',
  error: null,
  uploads: {},
  versions: null,
  sort: { key: 'date', descending: true },
  filter: NO_FILTER,
  selected: [],
  active: null,
  anchor: null,
  pendingDeletes: [],

  async load(orgId, projectId) {
    if (get().projectId !== projectId) {
      set({ projectId, orgId, files: [], status: 'loading', error: null, versions: null, selected: [], active: null, anchor: null, filter: NO_FILTER });
    }
    const editsSeenAtStart = edits.seen;
    try {
      const [files, tags] = await Promise.all([
        apiOkUnchecked(z.array(privateFileJsonSchema), 'GET', apiPaths.privateFiles(orgId), {
          query: { project: projectId, limit: 1000, ordering: '-modified_date' },
        }),
        // Tags are for tagging: a list that cannot load leaves the files usable.
        // The shared catalogue (53 tags) and the org's own: one page holds them all.
        apiOkUnchecked(z.array(fileTagJsonSchema), 'GET', apiPaths.fileTags(orgId), { query: { limit: 1000 } }).catch(() => get().tags),
      ]);
      if (edits.inFlight > 0 || edits.seen !== editsSeenAtStart) {
        // Older than an edit of these files: loaded again once the edits are done.
        edits.reloadWhenDone = true;
        if (edits.inFlight === 0) {
          edits.reloadWhenDone = false;
          return get().load(orgId, projectId);
        }
        return;
      }
      if (get().projectId === projectId) {
        const ids = new Set(files.map((file) => file.id));
        set({ files, tags, status: 'ready', error: null, selected: get().selected.filter((id) => ids.has(id)) });
      }
    } catch (error) {
      if (get().projectId === projectId) set({ status: 'error', error: messageOf(error) });
    }
  },

  async upload(projectId, files) {
    await uploadFiles(uploadRows, projectId, files);
  },

  cancelUpload(uploadId) {
    patchUpload(uploadRows, uploadId, { cancelRequested: true });
  },

  dismissUpload(uploadId) {
    dropUpload(uploadRows, uploadId);
  },

  setSort(sort) {
    set({ sort: { ...get().sort, ...sort } });
  },

  setFilter(filter) {
    set({ filter: { ...get().filter, ...filter } });
  },

  selectRow(fileId, how, visibleIds) {
    const { selected, anchor } = get();
    if (how === 'toggle') {
      set({ selected: selected.includes(fileId) ? selected.filter((id) => id !== fileId) : [...selected, fileId], anchor: fileId, active: fileId });
    } else if (how === 'range' && anchor !== null && visibleIds.includes(anchor)) {
      const [from, to] = [visibleIds.indexOf(anchor), visibleIds.indexOf(fileId)].sort((a, b) => a - b);
      set({ selected: visibleIds.slice(from, to! + 1), active: fileId });
    } else {
      set({ selected: [fileId], anchor: fileId, active: fileId });
    }
  },

  setSelected(ids) {
    set({ selected: [...ids] });
  },

  setActive(fileId) {
    set({ active: fileId });
  },

  async rename(file, title) {
    const trimmed = title.trim();
    if (trimmed === file.title) return true;
    if (trimmed === '') {
      useUiStore.getState().toast('A file needs a title: type one, or press Escape to keep the old one.', 'error');
      return false;
    }
    return patchFile(file, { title: trimmed }, `Renamed to ${trimmed}`, { title: trimmed });
  },

  async setShowCustomer(file, show) {
    await patchFile(file, { show_customer: show }, show ? `${file.title} is shown to the customer` : `${file.title} is hidden from the customer`, { show_customer: show });
  },

  async toggleTag(fileIds, tag) {
    const files = get().files.filter((file) => fileIds.includes(file.id));
    const allHave = files.every((file) => file.file_tags_data.some((existing) => existing.id === tag.id));
    // Only the files whose tags change: all of them lose it, or those without it gain it.
    const changing = files.filter((file) => file.file_tags_data.some((existing) => existing.id === tag.id) === allHave);
    const tagsOf = (file: PrivateFileJson) => {
      const others = file.file_tags_data.filter((existing) => existing.id !== tag.id);
      return allHave ? others : [...others, tag];
    };
    // Every checkbox shows the change at once; each file goes back if its PATCH is refused.
    const next = new Map(changing.map((file) => [file.id, { ...file, file_tags_data: tagsOf(file) }]));
    edits.seen++;
    set({ files: get().files.map((file) => next.get(file.id) ?? file) });
    const results = await Promise.all(
      changing.map((file) => patchFile(file, { file_tags: tagsOf(file).map((existing) => existing.url) }, null, { file_tags_data: tagsOf(file) })),
    );
    const changed = results.filter(Boolean).length;
    if (changed === 0) return;
    const what = changed === 1 ? changing[results.indexOf(true)]!.title : `${changed} files`;
    useUiStore.getState().toast(allHave ? `Took the tag ${tag.title} off ${what}` : `Tagged ${what} ${tag.title}`);
  },

  async createTag(title) {
    const orgId = get().orgId;
    if (orgId === null || title.trim() === '') return null;
    try {
      const tag = await apiOk(fileTagJsonSchema, 'POST', apiPaths.fileTags(orgId), { body: { title: title.trim() } });
      set({ tags: [...get().tags, tag] });
      return tag;
    } catch (error) {
      useUiStore.getState().toast(`Could not make the tag ${title.trim()}: ${messageOf(error)}`, 'error');
      return null;
    }
  },

  deleteFiles(fileIds) {
    const orgId = get().orgId;
    const files = get().files.filter((file) => fileIds.includes(file.id));
    if (orgId === null || files.length === 0) return;
    const key = pendingKey++;
    pendingTimers.set(key, setTimeout(() => void get().sendDelete(key), DELETE_UNDO_MS));
    set({
      pendingDeletes: [...get().pendingDeletes, { key, workspace: currentWorkspaceKey(), orgId, projectId: get().projectId, files, sendsAt: Date.now() + DELETE_UNDO_MS }],
      selected: get().selected.filter((id) => !fileIds.includes(id)),
    });
  },

  undoDelete(key) {
    clearTimeout(pendingTimers.get(key));
    pendingTimers.delete(key);
    set({ pendingDeletes: get().pendingDeletes.filter((pending) => pending.key !== key) });
  },

  async sendDelete(key) {
    clearTimeout(pendingTimers.get(key));
    pendingTimers.delete(key);
    const pending = get().pendingDeletes.find((item) => item.key === key);
    if (!pending) return;
    if (pending.workspace !== currentWorkspaceKey()) {
      // Another workspace is open now, where the same ids are other files: nothing is deleted (the safe side).
      set({ pendingDeletes: get().pendingDeletes.filter((item) => item.key !== key) });
      useUiStore.getState().toast(`Not deleted: the workspace changed before the delete was sent, so ${pending.files.map((file) => file.title).join(', ')} stayed. Delete again there if you still want to.`, 'error');
      return;
    }
    const failed: string[] = [];
    for (const file of pending.files) {
      try {
        await apiDone('DELETE', apiPaths.privateFile(pending.orgId, file.id));
      } catch (error) {
        // Already gone is what the user wanted.
        if (!(error instanceof ApiFailure && error.status === 404)) failed.push(`${file.title}: ${messageOf(error)}`);
      }
    }
    const deletedIds = new Set(pending.files.map((file) => file.id));
    set({
      pendingDeletes: get().pendingDeletes.filter((item) => item.key !== key),
      files: failed.length === 0 ? get().files.filter((file) => !deletedIds.has(file.id)) : get().files,
    });
    if (failed.length > 0) useUiStore.getState().toast(`Not deleted (the file stays in the list): ${failed.join('; ')}`, 'error');
  },

  async downloadMany(fileIds) {
    const files = get().files.filter((file) => fileIds.includes(file.id));
    if (files.length === 1) return get().download(files[0]!);
    const saved: string[] = [];
    for (const file of files) {
      try {
        saved.push((await requireBridge().invoke('files.download', { fileId: file.id })).path);
      } catch (error) {
        useUiStore.getState().toast(`Could not download ${file.title}: ${messageOf(error)}`, 'error');
      }
    }
    if (saved.length > 0) useUiStore.getState().toast(`Saved ${saved.length} files to the project folder`);
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
    return followUploadProgress(uploadRows);
  },
}));

const uploadRows: UploadRows = {
  get: () => useFilesStore.getState().uploads,
  set: (uploads) => useFilesStore.setState({ uploads }),
};

/**
 * Edits of the list's files under way, and a count of their starts and ends: a load that
 * began before an edit, or answers while one is under way, holds the files as they were
 * and would undo on screen what the edit shows (a tag just taken off coming back until
 * the next load). Its answer is dropped, and the list is loaded again once the edits are done.
 */
const edits = { inFlight: 0, seen: 0, reloadWhenDone: false };

/**
 * PATCH one file. The list shows `shown` at once (a checkbox ticks when clicked)
 * and the answer when it comes; a refusal puts the file back as it was and says why.
 */
async function patchFile(file: PrivateFileJson, patch: Record<string, unknown>, done: string | null, shown: Partial<PrivateFileJson>): Promise<boolean> {
  const orgId = useFilesStore.getState().orgId;
  if (orgId === null) return false;
  const replace = (next: PrivateFileJson) => useFilesStore.setState({ files: useFilesStore.getState().files.map((existing) => (existing.id === next.id ? next : existing)) });
  edits.inFlight++;
  edits.seen++;
  replace({ ...file, ...shown });
  try {
    const updated = await apiOk(privateFileJsonSchema, 'PATCH', apiPaths.privateFile(orgId, file.id), { body: patch });
    useFilesStore.setState({ files: useFilesStore.getState().files.map((existing) => (existing.id === updated.id ? updated : existing)) });
    if (done) useUiStore.getState().toast(done);
    return true;
  } catch (error) {
    replace(file);
    useUiStore.getState().toast(`Could not change ${file.title}: ${messageOf(error)}`, 'error');
    return false;
  } finally {
    edits.inFlight--;
    edits.seen++;
    const { orgId: openOrg, projectId } = useFilesStore.getState();
    if (edits.inFlight === 0 && edits.reloadWhenDone && openOrg !== null && projectId !== null) {
      edits.reloadWhenDone = false;
      void useFilesStore.getState().load(openOrg, projectId);
    }
  }
}
