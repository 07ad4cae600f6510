// The Activity screen's and a project's Activity tab's data (issue 32): a page of the
// activity log from the core (`activity.list`), kept live by `activity.changed`
// (progress, waits, done), and each entry's actions. The actions reuse what exists:
// the Sync screen's held-delete restore and conflict inbox, the Versions list's
// restore, files.showInFolder and folder.open; Retry now is the core's activity.retry.
import { z } from 'zod';
import { create } from 'zustand';
import type { ActivityAction, ActivityEntry, ActivityKind, ActivityNotice, ActivityQuery } from '../../../shared/activity.ts';
import { BridgeError } from '../../../shared/bridge.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';
import { privateFileVersionJsonSchema } from '../../../shared/schemas/private-file.ts';
import { ApiFailure, apiDone, apiOk, messageOf } from '../api/api-client.ts';
import { isDesktop, requireBridge } from '../bridge-client.ts';
import { formatDateTime } from '../format.ts';
import { useProjectStore } from './project-store.ts';
import { useUiStore } from './ui-store.ts';

/** What one list shows: the Activity screen (every project) or one project's tab. */
export interface ActivityFilter {
  search: string;
  kinds: ActivityKind[];
  projectId: number | null;
}

interface ActivityStoreState {
  orgId: number | null;
  filter: ActivityFilter;
  entries: ActivityEntry[];
  hasMore: boolean;
  loadState: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  /** Entries whose action is running, so its button waits. */
  busyIds: ReadonlySet<number>;
  load(orgId: number, filter: ActivityFilter): Promise<void>;
  loadMore(): Promise<void>;
  act(entry: ActivityEntry, action: ActivityAction): Promise<void>;
  follow(): () => void;
}

const PAGE = 100;

const queryOf = (filter: ActivityFilter, beforeId?: number): ActivityQuery => ({
  ...(filter.search.trim() ? { search: filter.search.trim() } : {}),
  ...(filter.kinds.length ? { kinds: filter.kinds } : {}),
  ...(filter.projectId !== null ? { projectId: filter.projectId } : {}),
  ...(beforeId !== undefined ? { beforeId } : {}),
  limit: PAGE,
});

/** Whether an entry belongs in the list the filter shows (a live entry that arrives is put in only then). */
function matches(entry: ActivityEntry, filter: ActivityFilter): boolean {
  if (filter.projectId !== null && entry.projectId !== filter.projectId) return false;
  if (filter.kinds.length && !filter.kinds.includes(entry.kind)) return false;
  const words = filter.search.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = [entry.subject, ...entry.fields, entry.detail ?? ''].join(' ').toLowerCase();
  return words.every((word) => text.includes(word));
}

/** Newest first, as the core sorts them: by when each happened or started, then by number. */
const newestFirst = (a: ActivityEntry, b: ActivityEntry) => (a.at === b.at ? b.id - a.id : a.at < b.at ? 1 : -1);

let loadGeneration = 0;
/**
 * Entries heard (`activity.changed`) since the load under way began, in the order heard;
 * null when no load is under way. The page that load brings may have been read before
 * they were written: they go on top of it when it lands, so an entry recorded while
 * the Activity screen opens is never lost from it (a CI run of issue 33 saw one missing for five minutes).
 */
let heardDuringLoad: ActivityEntry[] | null = null;

/** `entries` with one live entry put in: in its place if listed, else added where the filter shows it. */
function withLiveEntry(entries: ActivityEntry[], entry: ActivityEntry, filter: ActivityFilter): ActivityEntry[] {
  const index = entries.findIndex((known) => known.id === entry.id);
  if (index >= 0) return entries.map((known, at) => (at === index ? entry : known)).sort(newestFirst);
  if (!matches(entry, filter)) return entries;
  return [entry, ...entries].sort(newestFirst);
}

/** Browser mode: a notification outside the page, through the Notification API; clicking it opens the app at the entry. */
function showBrowserNotice(notice: ActivityNotice): void {
  if (isDesktop || typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  const shown = new Notification(notice.title, { body: notice.body, tag: `solardesk-activity-${notice.kind}` });
  shown.onclick = () => {
    window.focus();
    useUiStore.getState().showActivityEntry(notice.entryId);
    shown.close();
  };
}

export const useActivityStore = create<ActivityStoreState>((set, get) => {
  const orgIdOrThrow = () => {
    const orgId = get().orgId;
    if (orgId === null) throw new Error('No organisation is loaded.');
    return orgId;
  };

  /** Undo the delete: the Sync screen's restore of that hold; one already decided says so. */
  const undoDelete = async (entry: ActivityEntry) => {
    try {
      await apiDone('POST', syncPaths.restorePending(orgIdOrThrow(), entry.holdId!));
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 404) throw new Error('That delete was already decided (or its file came back to its folder).', { cause: error });
      throw error;
    }
    useUiStore.getState().toast(`${entry.subject} stays in the project.`);
  };

  /** Restore the earlier version: the newest version kept (the contents the edit replaced) becomes the file's contents again. */
  const restoreVersion = async (entry: ActivityEntry) => {
    const orgId = orgIdOrThrow();
    const versions = await apiOk(z.array(privateFileVersionJsonSchema), 'GET', apiPaths.privateFileVersions(orgId, entry.fileId!));
    const earlier = versions[0];
    if (!earlier) throw new Error(`${entry.subject} has no earlier version kept on this computer.`);
    if (!window.confirm(`Restore ${entry.subject} as it was before ${formatDateTime(earlier.replaced_at)}? Its current contents are kept as a version, so you can go back.`)) return;
    await apiDone('POST', apiPaths.privateFileVersionRestore(orgId, entry.fileId!, earlier.id));
    useUiStore.getState().toast(`Restored ${entry.subject} as it was before ${formatDateTime(earlier.replaced_at)}.`);
  };

  /** Show in folder: the desktop's file manager at the file; browser mode opens its project's folder where the host can. */
  const showInFolder = async (entry: ActivityEntry) => {
    try {
      await requireBridge().invoke('files.showInFolder', { fileId: entry.fileId! });
    } catch (error) {
      if (!(error instanceof BridgeError && error.code === 'not_available') || entry.projectId === null) throw error;
      const opened = await requireBridge().invoke('folder.open', { projectId: entry.projectId });
      useUiStore.getState().toast(opened.opened ? `Opened ${opened.path}.` : `The file is in ${opened.path}.`);
    }
  };

  const openProject = async (entry: ActivityEntry) => {
    useUiStore.getState().show('projects');
    await useProjectStore.getState().open(orgIdOrThrow(), entry.projectId!);
  };

  return {
    orgId: null,
    filter: { search: '', kinds: [], projectId: null },
    entries: [],
    hasMore: false,
    loadState: 'idle',
    error: null,
    busyIds: new Set(),

    async load(orgId, filter) {
      const generation = ++loadGeneration;
      heardDuringLoad = [];
      set({ orgId, filter, loadState: get().entries.length && get().orgId === orgId ? get().loadState : 'loading', error: null });
      try {
        const page = await requireBridge().invoke('activity.list', queryOf(filter));
        if (generation !== loadGeneration) return; // a newer search or filter won
        const entries = (heardDuringLoad ?? []).reduce((listed, entry) => withLiveEntry(listed, entry, filter), page.entries);
        set({ entries, hasMore: page.hasMore, loadState: 'ready' });
      } catch (error) {
        if (generation === loadGeneration) set({ loadState: 'error', error: messageOf(error) });
      } finally {
        if (generation === loadGeneration) heardDuringLoad = null;
      }
    },

    async loadMore() {
      const last = get().entries.at(-1);
      if (!last || !get().hasMore) return;
      const generation = loadGeneration;
      const page = await requireBridge().invoke('activity.list', queryOf(get().filter, last.id));
      if (generation !== loadGeneration) return;
      const known = new Set(get().entries.map((entry) => entry.id));
      set({ entries: [...get().entries, ...page.entries.filter((entry) => !known.has(entry.id))], hasMore: page.hasMore });
    },

    async act(entry, action) {
      set({ busyIds: new Set([...get().busyIds, entry.id]) });
      try {
        if (action === 'undo_delete') await undoDelete(entry);
        else if (action === 'restore_version') await restoreVersion(entry);
        else if (action === 'retry') useUiStore.getState().toast((await requireBridge().invoke('activity.retry', { entryId: entry.id })).message);
        else if (action === 'resolve_conflict') useUiStore.getState().showConflict(entry.conflictId!);
        else if (action === 'show_in_folder') await showInFolder(entry);
        else await openProject(entry);
      } catch (error) {
        useUiStore.getState().toast(messageOf(error), 'error');
      } finally {
        const busy = new Set(get().busyIds);
        busy.delete(entry.id);
        set({ busyIds: busy });
      }
    },

    follow() {
      const bridge = requireBridge();
      const unsubscribers = [
        bridge.subscribe('activity.changed', (entry) => {
          heardDuringLoad?.push(entry);
          const { entries, filter, loadState } = get();
          const next = loadState === 'ready' ? withLiveEntry(entries, entry, filter) : entries;
          if (next !== entries) set({ entries: next });
        }),
        bridge.subscribe('activity.notice', showBrowserNotice),
        bridge.subscribe('activity.open', ({ entryId }) => useUiStore.getState().showActivityEntry(entryId)),
      ];
      return () => unsubscribers.forEach((unsubscribe) => unsubscribe());
    },
  };
});
