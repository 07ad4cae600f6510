import { Fragment, useEffect } from 'react';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { formatBytes, formatDate } from '../../format.ts';
import { useFilesStore } from '../../stores/files-store.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { Badge } from '../common/Badge.tsx';
import { EmptyState } from '../common/EmptyState.tsx';
import { ErrorState } from '../common/ErrorState.tsx';
import { LoadingState } from '../common/LoadingState.tsx';
import { FileVersions } from './FileVersions.tsx';
import { UploadProgressList } from './UploadProgressList.tsx';
import { FileThumbnail } from '../files/FileThumbnail.tsx';
import { FileViewer } from '../files/FileViewer.tsx';
import { useViewerStore } from '../../stores/viewer-store.ts';

export function FilesTab({ project }: { project: ProjectDetailJson }) {
  const files = useFilesStore((state) => state.files);
  const status = useFilesStore((state) => state.status);
  const error = useFilesStore((state) => state.error);
  const versions = useFilesStore((state) => state.versions);
  const { load, upload, download, openFolder, toggleVersions } = useFilesStore.getState();
  const isLocalOnly = useSyncStore((state) => state.isLocalOnly);
  const pending = useSyncStore((state) => state.pending);
  const pendingUploads = pending.filter((item) => item.model === 'private_file');

  useEffect(() => {
    void load(project.org_id, project.id);
  }, [load, project.org_id, project.id]);

  const syncStateOf = (fileId: number) => {
    if (isLocalOnly) return <Badge title="No remote configured: this machine holds the only copy">Local</Badge>;
    return pendingUploads.some((item) => item.record_id === fileId) ? <Badge tone="warning">Waiting to sync</Badge> : <Badge tone="success">Synced</Badge>;
  };

  return (
    <div className="files-tab">
      <div className="files-actions">
        <p className="muted">Drag files onto this window, or into the project folder, to attach them to the project.</p>
        <label className="button">
          Choose files…
          <input type="file" multiple hidden onChange={(event) => event.target.files && void upload(project.id, [...event.target.files])} />
        </label>
        <button type="button" className="button" onClick={() => void openFolder(project.id)}>
          Open project folder
        </button>
      </div>
      <UploadProgressList projectId={project.id} />
      {status === 'loading' && <LoadingState label="Loading files…" />}
      {status === 'error' && <ErrorState message={error ?? ''} onRetry={() => void load(project.org_id, project.id)} />}
      {status === 'ready' && files.length === 0 && <EmptyState title="No files yet">Photos, bills and contracts dropped here stay with the project.</EmptyState>}
      {files.length > 0 && (
        <table className="table files-table" data-testid="files-table">
          <thead>
            <tr>
              <th>Title</th>
              <th>Tags</th>
              <th className="numeric">Size</th>
              <th>Changed</th>
              <th>Sync</th>
              <th aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {files.map((file) => {
              const versionsOpen = versions?.fileId === file.id;
              return (
                <Fragment key={file.id}>
                  <tr data-testid="file-row" className={versionsOpen ? 'is-expanded' : undefined}>
                    <td>
                      <span className="file-title-cell">
                        <FileThumbnail file={file} />
                        <button type="button" className="link-button" data-testid="file-open-viewer" onClick={() => useViewerStore.getState().show(file.id, files.map((shown) => shown.id))}>
                          {file.title}
                        </button>
                      </span>
                    </td>
                    <td>
                      {file.file_tags_data.map((tag) => (
                        <Badge key={tag.id}>{tag.title}</Badge>
                      ))}
                    </td>
                    <td className="numeric">{formatBytes(file.filesize)}</td>
                    <td>{formatDate(file.modified_date)}</td>
                    <td>{syncStateOf(file.id)}</td>
                    <td>
                      <button type="button" className="link-button" onClick={() => void download(file)}>
                        Download
                      </button>
                      <button type="button" className="link-button" aria-expanded={versionsOpen} onClick={() => void toggleVersions(project.org_id, file.id)}>
                        Versions
                      </button>
                    </td>
                  </tr>
                  {versionsOpen && versions && (
                    <tr className="file-versions-row">
                      <td colSpan={6}>
                        <FileVersions file={file} versions={versions} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      )}
      <FileViewer project={project} />
    </div>
  );
}
