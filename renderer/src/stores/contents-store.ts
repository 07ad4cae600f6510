// Files on demand (issue 15, docs/sync.md): for the open project, whether its files
// are kept on this computer (and why), its pin, and each file's contents: here, or on
// the remote with what fetching costs. Signed in only: the embedded store answers 404
// (every file is here), and then nothing is shown.
import { create } from 'zustand';
import { syncPaths } from '../../../shared/api-paths.ts';
import { projectContentsJsonSchema, fileContentsJsonSchema, type FileContentsJson, type ProjectContentsJson } from '../../../shared/schemas/contents.ts';
import { ApiFailure, apiDone, apiOk, messageOf } from '../api/api-client.ts';
import { useUiStore } from './ui-store.ts';

interface ContentsState {
  projectId: number | null;
  /** null: not signed in (or not known yet): every file is here. */
  contents: ProjectContentsJson | null;
  /** Files being fetched now. */
  fetching: Record<number, true>;
  pinning: boolean;
  /** The app opened the project: recorded (its files are kept here a while), then loaded. */
  open(orgId: number, projectId: number): Promise<void>;
  load(orgId: number, projectId: number): Promise<void>;
  setPinned(orgId: number, projectId: number, pinned: boolean): Promise<void>;
  fetch(orgId: number, fileId: number, title: string): Promise<void>;
  fileOf(fileId: number): FileContentsJson | undefined;
}

const isNotSignedIn = (error: unknown) => error instanceof ApiFailure && error.status === 404;

/** After a pin the files come down as background work, which no record change announces: looked at again for a short while, while the project stays open. */
const FOLLOW_MS = 2000;
const FOLLOW_ROUNDS = 30;
async function followArrivals(orgId: number, projectId: number): Promise<void> {
  for (let round = 0; round < FOLLOW_ROUNDS; round++) {
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_MS));
    const state = useContentsStore.getState();
    if (state.projectId !== projectId || !state.contents?.pinned || state.contents.files.every((file) => file.here)) return;
    await state.load(orgId, projectId);
  }
}

export const useContentsStore = create<ContentsState>((set, get) => ({
  projectId: null,
  contents: null,
  fetching: {},
  pinning: false,

  async open(orgId, projectId) {
    if (get().projectId !== projectId) set({ projectId, contents: null, fetching: {} });
    try {
      await apiDone('POST', syncPaths.projectOpened(orgId, projectId));
      // A person waits on this project: its record and files are read afresh, as user work (docs/sync.md "Budget").
      await apiDone('POST', syncPaths.refresh(orgId), { body: { project_id: projectId } });
    } catch (error) {
      if (isNotSignedIn(error)) return;
    }
    await get().load(orgId, projectId);
  },

  async load(orgId, projectId) {
    try {
      const contents = await apiOk(projectContentsJsonSchema, 'GET', syncPaths.projectContents(orgId, projectId));
      if (get().projectId === projectId) set({ contents });
    } catch (error) {
      // Not signed in, or the agent is between backends: no marks rather than an error.
      if (get().projectId === projectId && isNotSignedIn(error)) set({ contents: null });
    }
  },

  async setPinned(orgId, projectId, pinned) {
    set({ pinning: true });
    try {
      const contents = await apiOk(projectContentsJsonSchema, 'POST', syncPaths.pinProject(orgId, projectId), { body: { pinned } });
      if (get().projectId === projectId) set({ contents });
      if (pinned) void followArrivals(orgId, projectId);
      useUiStore
        .getState()
        .toast(pinned ? "Pinned: this project's files are kept on this computer and in its folder." : 'Unpinned: files you have not changed may be removed from this computer; the remote keeps them.');
    } catch (error) {
      useUiStore.getState().toast(`Could not ${pinned ? 'pin' : 'unpin'} the project: ${messageOf(error)}`, 'error');
    } finally {
      set({ pinning: false });
    }
  },

  async fetch(orgId, fileId, title) {
    set({ fetching: { ...get().fetching, [fileId]: true } });
    try {
      const file = await apiOk(fileContentsJsonSchema, 'POST', syncPaths.fetchFileContents(orgId, fileId));
      const contents = get().contents;
      if (contents) set({ contents: { ...contents, files: contents.files.map((entry) => (entry.id === fileId ? file : entry)) } });
    } catch (error) {
      useUiStore.getState().toast(`Could not fetch ${title}: ${messageOf(error)}`, 'error');
    } finally {
      const { [fileId]: _done, ...rest } = get().fetching;
      set({ fetching: rest });
    }
  },

  fileOf(fileId) {
    return get().contents?.files.find((file) => file.id === fileId);
  },
}));

/** "free for the next 40 min" while the remote's link lasts, else the quota it costs. */
export function fetchCostText(file: FileContentsJson, now = Date.now()): string {
  if (file.link_expires_at) {
    const minutes = Math.floor((Date.parse(file.link_expires_at) - now) / 60_000);
    if (minutes >= 1) return `free for the next ${minutes} min`;
  }
  return "fetching costs 1 of today's file requests";
}
