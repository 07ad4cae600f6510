// The bridge channels of the activity log (docs/activity.md): its pages, and Retry
// now. Undo a delete, Restore the earlier version, Resolve the conflict, Show in
// folder and Open the project reuse channels and routes that exist (the Sync
// screen's held-delete and conflict routes, the Versions list's restore,
// files.showInFolder, folder.open); the renderer calls them from the entry.
import { BridgeError, type BridgeHandlers } from '../../shared/bridge.ts';
import { syncPaths } from '../../shared/api-paths.ts';
import type { ActivityEntry } from '../../shared/activity.ts';
import { rowsOfRecord } from '../sync/outbox.ts';
import type { SyncedModel } from '../sync/sync-models.ts';
import type { CoreRuntime } from './core-runtime.ts';

type ActivityChannels = 'activity.list' | 'activity.retry';

/**
 * Retry now, for one entry: the one place that decides what retrying means. A change
 * the remote refused (parked) is sent again; a file's failed download into its project
 * folder is fetched again (downloads resume from the bytes kept); one that waits for a
 * metered connection or the allowance is fetched as a person's open; a paused sync is
 * resumed; anything else asks sync to go at once, reading its project afresh.
 */
export async function retryActivityEntry(runtime: CoreRuntime, entry: ActivityEntry): Promise<string> {
  const active = await runtime.current();
  if (active.mode !== 'synced') return 'Nothing to retry: this workspace is on this computer only.';
  const orgId = await runtime.orgId();
  const call = async (path: string, body?: unknown) => {
    const answer = await runtime.callApi({ method: 'POST', path, body });
    if (answer.status >= 300) throw new BridgeError('Sync did not take the retry. Look at the Sync screen for what it says.');
  };
  if (entry.model && entry.recordId !== null) {
    const parked = (await rowsOfRecord(active.db, entry.model as SyncedModel, entry.recordId)).find((row) => row.status === 'parked');
    if (parked) {
      await call(syncPaths.retryPending(orgId, parked.id));
      return 'Sent again: it goes with the next push.';
    }
  }
  if (entry.kind === 'download' && entry.recordId !== null && (entry.waitReason === 'metered' || entry.waitReason === 'quota' || entry.waitReason === 'paced')) {
    // Background contents wait for an unmetered connection or the allowance; a person asking is a person's open: it
    // goes now (one file request). Not waited for: its own entry shows the bytes coming, and how it ended.
    const fileId = entry.recordId;
    void runtime
      .callApi({ method: 'POST', path: syncPaths.fetchFileContents(orgId, fileId) })
      .then((fetched) => (fetched.status < 300 ? runtime.callApi({ method: 'POST', path: syncPaths.retryFolderDownload(orgId, fileId) }) : undefined))
      .catch(() => undefined);
    return 'Downloading it now, as a file you opened.';
  }
  if (entry.model === 'private_file' && entry.recordId !== null) {
    // A download into a project folder that failed is fetched again at once (the Sync screen's Retry); 404: none failed.
    const download = await runtime.callApi({ method: 'POST', path: syncPaths.retryFolderDownload(orgId, entry.recordId) });
    if (download.status < 300) return 'Downloading it again now.';
  }
  if (entry.waitReason === 'paused') {
    await call(syncPaths.resume(orgId));
    return 'Sync resumed.';
  }
  await call(syncPaths.refresh(orgId), entry.projectId !== null ? { project_id: entry.projectId, force: true } : {});
  return 'Sync is trying now.';
}

export function activityHandlers(runtime: CoreRuntime): Pick<BridgeHandlers, ActivityChannels> {
  return {
    'activity.list': async (query) => (await runtime.activity()).log.list(query ?? {}),

    'activity.retry': async ({ entryId }) => {
      const entry = await (await runtime.activity()).log.get(entryId);
      if (!entry) throw new BridgeError('That entry is no longer in the activity log (entries are kept 90 days).', { code: 'invalid_request' });
      return { message: await retryActivityEntry(runtime, entry) };
    },
  };
}
