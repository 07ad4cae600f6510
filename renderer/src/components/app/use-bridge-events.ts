import { useEffect } from 'react';
import { requireBridge, onConnectionChange } from '../../bridge-client.ts';
import { useActivityStore } from '../../stores/activity-store.ts';
import { useFilesStore } from '../../stores/files-store.ts';
import { useLocalWorkStore } from '../../stores/local-work-store.ts';
import { useProjectStore } from '../../stores/project-store.ts';
import { useProjectsStore } from '../../stores/projects-store.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { useWebhooksStore } from '../../stores/webhooks-store.ts';

const LIST_KINDS = new Set(['projects', 'contacts', 'sync', 'unknown']);
/** What an open project shows: itself, its contacts, its activity and its files. */
const PROJECT_KINDS = new Set([...LIST_KINDS, 'events', 'private_files']);

/** Subscribes the stores to the core's events for as long as the app is mounted. */
export function useBridgeEvents(): void {
  useEffect(() => {
    const unsubscribers = [
      useSessionStore.getState().follow(),
      useSyncStore.getState().follow(),
      useFilesStore.getState().follow(),
      useLocalWorkStore.getState().follow(),
      useActivityStore.getState().follow(),
      onConnectionChange((isConnected) => useUiStore.getState().setConnected(isConnected)),
      requireBridge().subscribe('records.changed', (change) => {
        const projects = useProjectsStore.getState();
        if (change.kinds.some((kind) => LIST_KINDS.has(kind))) {
          if (change.projectIds.length > 0) void projects.refreshRows(change.projectIds);
          else void projects.reload();
        }
        const open = useProjectStore.getState();
        const touchesOpenProject =
          open.projectId !== null &&
          change.kinds.some((kind) => PROJECT_KINDS.has(kind)) &&
          (change.projectIds.length === 0 || change.projectIds.includes(open.projectId));
        if (touchesOpenProject && Object.keys(open.pending).length === 0 && open.saveState !== 'saving') void open.reload();
        const files = useFilesStore.getState();
        if (touchesOpenProject && change.kinds.includes('private_files') && open.orgId !== null && files.projectId !== null) {
          void files.load(open.orgId, files.projectId);
          // A file's versions change with its contents (an edit in its folder, a restore, sync).
          if (files.versions !== null) void files.loadVersions();
        }
        const webhooks = useWebhooksStore.getState();
        if (change.kinds.includes('webhooks') && webhooks.orgId !== null) void webhooks.load(webhooks.orgId);
      }),
    ];
    return () => unsubscribers.forEach((unsubscribe) => unsubscribe());
  }, []);
}
