// The sync screen's data: the agent's status, pending changes (with held deletes)
// and conflicts. With no remote the sync status answers 404, which is the
// local-only state, not an error; the embedded store still lists the deletions made
// in its project folders that wait for the user (held deletes).
import { z } from 'zod';
import { create } from 'zustand';
import type { SyncState } from '../../../shared/bridge.ts';
import type { ConflictChoice, PendingChangeJson, SyncConflictJson, SyncStatusJson } from '../../../shared/sync-api.ts';
import { pendingChangeJsonSchema, syncConflictJsonSchema } from '../../../shared/schemas/sync.ts';
import { privateFileJsonSchema } from '../../../shared/schemas/private-file.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';
import { ApiFailure, apiDone, apiOkUnchecked, apiRequest, describeFailure, messageOf } from '../api/api-client.ts';
import { requireBridge } from '../bridge-client.ts';

interface SyncStoreState {
  orgId: number | null;
  /** Pushed by the core (`sync.state`); drives the sidebar pill and badges. */
  live: SyncState | null;
  isLocalOnly: boolean;
  status: SyncStatusJson | null;
  pending: PendingChangeJson[];
  conflicts: SyncConflictJson[];
  loadState: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  /** Projects with unsynced changes, and with conflicts: the list's badges. */
  unsyncedProjectIds: ReadonlySet<number>;
  conflictProjectIds: ReadonlySet<number>;
  /** The titles of files whose deletion is held, by file id: a held delete is shown by its file's name, not its id. */
  fileTitles: ReadonlyMap<number, string>;
  load(orgId: number): Promise<void>;
  confirmDelete(id: number | string): Promise<void>;
  /** Keeps a file whose deletion is held: it goes back into its project folder. */
  restoreDelete(id: number | string): Promise<void>;
  resolve(id: number | string, choice: ConflictChoice): Promise<void>;
  setPaused(isPaused: boolean): Promise<void>;
  follow(): () => void;
}

const projectIdsOf = (items: readonly { model: string; record_id: number }[]) =>
  new Set(items.filter((item) => item.model === 'project').map((item) => item.record_id));

const TITLES_PER_LOAD = 50;

export const useSyncStore = create<SyncStoreState>((set, get) => {
  const orgIdOrThrow = () => {
    const orgId = get().orgId;
    if (orgId === null) throw new Error('No organisation is loaded.');
    return orgId;
  };

  /**
   * Fetches the titles of held files not known yet; a file the store no longer has
   * keeps its id label. Bounded per load: a mass-delete hold of a whole folder names
   * its first files at once and the rest on the next loads.
   */
  const learnFileTitles = async (orgId: number, pending: readonly PendingChangeJson[]) => {
    const known = get().fileTitles;
    const missing = [...new Set(pending.filter((item) => item.model === 'private_file' && !known.has(item.record_id)).map((item) => item.record_id))].slice(0, TITLES_PER_LOAD);
    if (missing.length === 0) return;
    const found = await Promise.all(
      missing.map(async (fileId) => {
        const answer = await apiRequest<unknown>('GET', apiPaths.privateFile(orgId, fileId)).catch(() => null);
        const file = answer?.status === 200 ? privateFileJsonSchema.safeParse(answer.body) : null;
        return file?.success ? ([fileId, file.data.title] as const) : null;
      }),
    );
    const titles = new Map(get().fileTitles);
    for (const entry of found) if (entry) titles.set(entry[0], entry[1]);
    set({ fileTitles: titles });
  };

  /** Confirm or restore; a hold that is gone (decided in another window, or the file came back to its folder) reloads the list and says so. */
  const decideHeldDelete = async (path: string) => {
    const orgId = orgIdOrThrow();
    try {
      await apiDone('POST', path);
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 404) {
        throw new Error('That deletion was already decided (or its file came back to its folder); the list now shows what still waits.', { cause: error });
      }
      throw error;
    } finally {
      // After a refusal too: the list then shows what still waits.
      if (get().orgId === orgId) await get().load(orgId);
    }
  };

  return {
    orgId: null,
    live: null,
    isLocalOnly: false,
    status: null,
    pending: [],
    conflicts: [],
    loadState: 'idle',
    error: null,
    unsyncedProjectIds: new Set(),
    conflictProjectIds: new Set(),
    fileTitles: new Map(),

    async load(orgId) {
      set({ orgId, loadState: get().status || get().isLocalOnly ? get().loadState : 'loading', error: null });
      try {
        const status = await apiRequest<SyncStatusJson>('GET', syncPaths.status(orgId));
        if (status.status === 404) {
          // Local only: nothing goes anywhere, but deletions made in the project folders wait for the user.
          const held = await apiRequest<PendingChangeJson[]>('GET', syncPaths.pending(orgId));
          const pending = held.status === 200 ? pendingChangeJsonSchema.array().parse(held.body).filter((item) => item.status === 'held') : [];
          set({ isLocalOnly: true, status: null, pending, conflicts: [], loadState: 'ready', unsyncedProjectIds: new Set(), conflictProjectIds: new Set() });
          await learnFileTitles(orgId, pending);
          return;
        }
        if (status.status >= 300) throw new Error(describeFailure(status));
        const [pending, conflicts] = await Promise.all([
          apiOkUnchecked(z.array(pendingChangeJsonSchema), 'GET', syncPaths.pending(orgId)),
          apiOkUnchecked(z.array(syncConflictJsonSchema), 'GET', syncPaths.conflicts(orgId)),
        ]);
        set({
          isLocalOnly: false,
          status: status.body,
          pending,
          conflicts,
          loadState: 'ready',
          unsyncedProjectIds: projectIdsOf(pending),
          conflictProjectIds: projectIdsOf(conflicts),
        });
        await learnFileTitles(orgId, pending);
      } catch (error) {
        set({ loadState: 'error', error: messageOf(error) });
      }
    },

    async confirmDelete(id) {
      await decideHeldDelete(syncPaths.confirmPending(orgIdOrThrow(), id));
    },

    async restoreDelete(id) {
      await decideHeldDelete(syncPaths.restorePending(orgIdOrThrow(), id));
    },

    async resolve(id, choice) {
      const orgId = orgIdOrThrow();
      try {
        await apiDone('POST', syncPaths.resolveConflict(orgId, id), { body: choice });
      } finally {
        // Also after a 409 (the field was edited since): the inbox then shows the value as it is now.
        await get().load(orgId);
      }
    },

    async setPaused(isPaused) {
      const orgId = orgIdOrThrow();
      await apiDone('POST', isPaused ? syncPaths.pause(orgId) : syncPaths.resume(orgId));
      await get().load(orgId);
    },

    follow() {
      return requireBridge().subscribe('sync.state', (live) => {
        const previous = get().live;
        set({ live });
        const orgId = get().orgId;
        const hasChanged =
          !previous || previous.state !== live.state || previous.pending !== live.pending || previous.conflicts !== live.conflicts || previous.heldDeletes !== live.heldDeletes;
        // Local only, only the held deletes can change (a deletion made in a project folder, a confirm, a restore).
        if (orgId !== null && hasChanged && (live.state !== 'local_only' || previous?.heldDeletes !== live.heldDeletes)) void get().load(orgId);
      });
    },
  };
});
