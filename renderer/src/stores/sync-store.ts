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
import { apiPaths, parseOrgReference, syncPaths } from '../../../shared/api-paths.ts';
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
  /** Titles of the records pending changes and conflicts name, by `<model>:<id>`: shown by name, not id. */
  recordTitles: ReadonlyMap<string, string>;
  /** The project of each file a pending change names (null: of no project), learnt with its title: held deletes are grouped by folder. */
  fileProjects: ReadonlyMap<number, number | null>;
  load(orgId: number): Promise<void>;
  /** Decides several held deletes, one after another, then loads once; answers how many were decided. */
  decideHeldDeletes(ids: readonly number[], decision: 'restore' | 'confirm'): Promise<number>;
  confirmDelete(id: number | string): Promise<void>;
  /** Keeps a file whose deletion is held: it goes back into its project folder. */
  restoreDelete(id: number | string): Promise<void>;
  resolve(id: number | string, choice: ConflictChoice): Promise<void>;
  /** Sends a parked change again (the remote refused it, or its answers never showed it applied). */
  retryParked(id: number | string): Promise<void>;
  setPaused(isPaused: boolean): Promise<void>;
  follow(): () => void;
}

const projectIdsOf = (items: readonly { model: string; record_id: number }[]) =>
  new Set(items.filter((item) => item.model === 'project').map((item) => item.record_id));

const TITLES_PER_LOAD = 50;

const textOf = (body: unknown, field: string): string => {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' ? value.trim() : '';
};

/** Where each kind of record is read, and the name people know it by. */
const TITLE_READERS = {
  project: { path: apiPaths.project, title: (body: unknown) => textOf(body, 'title') || textOf(body, 'address') },
  contact: { path: apiPaths.contact, title: (body: unknown) => `${textOf(body, 'first_name')} ${textOf(body, 'family_name')}`.trim() || textOf(body, 'email') },
  private_file: { path: apiPaths.privateFile, title: (body: unknown) => (privateFileJsonSchema.safeParse(body).success ? textOf(body, 'title') : '') },
  webhook: { path: apiPaths.webhook, title: (body: unknown) => (textOf(body, 'endpoint') ? `Webhook to ${textOf(body, 'endpoint')}` : '') },
} as const;

export const useSyncStore = create<SyncStoreState>((set, get) => {
  const orgIdOrThrow = () => {
    const orgId = get().orgId;
    if (orgId === null) throw new Error('No organisation is loaded.');
    return orgId;
  };

  /**
   * Fetches the titles of the records pending changes and conflicts name (a project,
   * contact, file or webhook is shown by its title, not its id); a record the store
   * no longer has keeps its kind-and-id label. Bounded per load: a mass-delete hold of
   * a whole folder names its first files at once and the rest on the next loads.
   */
  const learnTitles = async (orgId: number, records: readonly { model: string; record_id: number }[]) => {
    const known = get().recordTitles;
    const wanted = records.filter((item) => item.model in TITLE_READERS && !known.has(`${item.model}:${item.record_id}`));
    const missing = [...new Map(wanted.map((item) => [`${item.model}:${item.record_id}`, item])).values()].slice(0, TITLES_PER_LOAD);
    if (missing.length === 0) return;
    const learntProjects = new Map<number, number | null>();
    const found = await Promise.all(
      missing.map(async (item) => {
        const reader = TITLE_READERS[item.model as keyof typeof TITLE_READERS];
        const answer = await apiRequest<unknown>('GET', reader.path(orgId, item.record_id)).catch(() => null);
        const title = answer?.status === 200 ? reader.title(answer.body) : null;
        if (answer?.status === 200 && item.model === 'private_file') {
          const project = textOf(answer.body, 'project');
          learntProjects.set(item.record_id, project ? (parseOrgReference(project, 'projects')?.id ?? null) : null);
        }
        return title ? ([`${item.model}:${item.record_id}`, title] as const) : null;
      }),
    );
    const titles = new Map(get().recordTitles);
    for (const entry of found) if (entry) titles.set(entry[0], entry[1]);
    const fileProjects = new Map(get().fileProjects);
    for (const [fileId, projectId] of learntProjects) fileProjects.set(fileId, projectId);
    set({ recordTitles: titles, fileProjects });
    // The files' projects are named too: their folders head the held deletes.
    const projects = [...new Set([...learntProjects.values()].filter((id): id is number => id !== null))].map((id) => ({ model: 'project', record_id: id }));
    if (projects.length > 0) await learnTitles(orgId, projects);
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
    recordTitles: new Map(),
    fileProjects: new Map(),

    async load(orgId) {
      set({ orgId, loadState: get().status || get().isLocalOnly ? get().loadState : 'loading', error: null });
      try {
        const status = await apiRequest<SyncStatusJson>('GET', syncPaths.status(orgId));
        if (status.status === 404) {
          // Local only: nothing goes anywhere, but deletions made in the project folders wait for the user.
          const held = await apiRequest<PendingChangeJson[]>('GET', syncPaths.pending(orgId));
          const pending = held.status === 200 ? pendingChangeJsonSchema.array().parse(held.body).filter((item) => item.status === 'held') : [];
          set({ isLocalOnly: true, status: null, pending, conflicts: [], loadState: 'ready', unsyncedProjectIds: new Set(), conflictProjectIds: new Set() });
          await learnTitles(orgId, pending);
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
        await learnTitles(orgId, [...pending, ...conflicts]);
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

    async decideHeldDeletes(ids, decision) {
      const orgId = orgIdOrThrow();
      let decided = 0;
      try {
        for (const id of ids) {
          const path = decision === 'restore' ? syncPaths.restorePending(orgId, id) : syncPaths.confirmPending(orgId, id);
          // One already decided elsewhere (or whose file came back) is skipped, not a failure of the rest.
          const answer = await apiRequest<unknown>('POST', path);
          if (answer.status === 404) continue;
          if (answer.status >= 300) throw new Error(`${describeFailure(answer)} ${decided} of ${ids.length} were done before this; the list shows what still waits.`);
          decided += 1;
        }
      } finally {
        if (get().orgId === orgId) await get().load(orgId);
      }
      return decided;
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

    async retryParked(id) {
      const orgId = orgIdOrThrow();
      try {
        await apiDone('POST', syncPaths.retryPending(orgId, id));
      } finally {
        // Also when it went already: the list then shows what still waits.
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
