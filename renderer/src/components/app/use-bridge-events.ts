import { useEffect } from 'react';
import { requireBridge, onConnectionChange } from '../../bridge-client.ts';
import { useActivityStore } from '../../stores/activity-store.ts';
import { useFilesStore } from '../../stores/files-store.ts';
import { useLocalWorkStore } from '../../stores/local-work-store.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { refreshEveryView, refreshViewsOf } from '../../stores/view-refresh.ts';

/** Subscribes the stores to the core's events for as long as the app is mounted. */
export function useBridgeEvents(): void {
  useEffect(() => {
    const unsubscribers = [
      useSessionStore.getState().follow(),
      useSyncStore.getState().follow(),
      useFilesStore.getState().follow(),
      useLocalWorkStore.getState().follow(),
      useActivityStore.getState().follow(),
      onConnectionChange((isConnected, mayHaveMissedEvents) => {
        useUiStore.getState().setConnected(isConnected);
        // Connected again, or for the first time after a view had already read: read again what no event told.
        if (isConnected && mayHaveMissedEvents) refreshEveryView();
      }),
      requireBridge().subscribe('records.changed', refreshViewsOf),
    ];
    return () => unsubscribers.forEach((unsubscribe) => unsubscribe());
  }, []);
}
