import { useEffect, useState } from 'react';
import { syncPaths } from '../../../../shared/api-paths.ts';
import { folderStatusJsonSchema, type FolderFileStatus } from '../../../../shared/schemas/folder.ts';
import { apiDone, apiOkUnchecked, messageOf } from '../../api/api-client.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { useRecordLabel } from './use-record-label.ts';

/**
 * Files that could not be written into their project folders (issue 32): each with why,
 * in the agent's sentence, and Retry, which tries it now instead of after its wait
 * (POST sync/folder/downloads/<id>/retry/). Shown only when there is one. Reloads when
 * the sync status changes, as the other lists here do.
 */
export function WaitingDownloads({ orgId }: { orgId: number }) {
  const status = useSyncStore((state) => state.status);
  const toast = useUiStore((state) => state.toast);
  const recordLabel = useRecordLabel();
  const [downloads, setDownloads] = useState<FolderFileStatus[]>([]);
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    let cancelled = false;
    apiOkUnchecked(folderStatusJsonSchema, 'GET', syncPaths.folder(orgId))
      .then((answer) => !cancelled && setDownloads(answer.enabled ? answer.files.filter((file) => file.state === 'downloading' && file.file_id !== null) : []))
      .catch(() => !cancelled && setDownloads([]));
    return () => {
      cancelled = true;
    };
  }, [orgId, status, reloads]);

  if (downloads.length === 0) return null;
  return (
    <section className="card" aria-label="Downloads waiting" data-testid="waiting-downloads">
      <h2>Downloads waiting</h2>
      <table className="table compact">
        <thead>
          <tr>
            <th>File</th>
            <th>Why it waits</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {downloads.map((download) => {
            const fileId = download.file_id!;
            const label = recordLabel('private_file', fileId);
            return (
              <tr key={fileId}>
                <td>{label}</td>
                <td>{download.reason}</td>
                <td>
                  <button
                    type="button"
                    className="button"
                    aria-label={`Retry downloading ${label}`}
                    onClick={() =>
                      void apiDone('POST', syncPaths.retryFolderDownload(orgId, fileId))
                        .then(() => toast(`Trying ${label} again now.`))
                        .catch((error) => toast(messageOf(error), 'error'))
                        .finally(() => setReloads((count) => count + 1))
                    }
                  >
                    Retry
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
