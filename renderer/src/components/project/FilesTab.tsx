import { Fragment, useEffect, useState } from 'react';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { formatBytes, formatDate } from '../../format.ts';
import { useFilesStore } from '../../stores/files-store.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { fetchCostText, useContentsStore } from '../../stores/contents-store.ts';
import { Badge } from '../common/Badge.tsx';
import { EmptyState } from '../common/EmptyState.tsx';
import { ErrorState } from '../common/ErrorState.tsx';
import { LoadingState } from '../common/LoadingState.tsx';
import { FileVersions } from './FileVersions.tsx';
import { UploadProgressList } from './UploadProgressList.tsx';
import { FileBadges, type PhotoMove, PhotoMoveNotice, usePhotoPlaces } from '../files/FileBadges.tsx';
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
  const places = usePhotoPlaces(project.id, files);
  const [lastMove, setLastMove] = useState<PhotoMove | null>(null);

  const contents = useContentsStore((state) => state.contents);
  const fetching = useContentsStore((state) => state.fetching);

  useEffect(() => {
    void load(project.org_id, project.id);
  }, [load, project.org_id, project.id]);
  // Files on demand: what is here and what is on the remote, again whenever the list changes.
  useEffect(() => {
    void useContentsStore.getState().load(project.org_id, project.id);
  }, [files, project.org_id, project.id]);

  /** Signed in: whether the file's contents are here or on the remote, and what fetching them costs. */
  const contentsOf = (fileId: number) => {
    const file = contents?.project_id === project.id ? contents.files.find((entry) => entry.id === fileId) : undefined;
    if (!file) return null;
    if (file.here) return <span className="contents-mark" data-testid="contents-here">On this computer</span>;
    return (
      <span className="contents-mark is-remote" data-testid="contents-remote" title="Pin the project to keep all its files on this computer and in its folder">
        On the remote · {fetchCostText(file)}
      </span>
    );
  };
  const isOnRemote = (fileId: number) => contents?.project_id === project.id && contents.files.some((entry) => entry.id === fileId && !entry.here);

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
      {lastMove && <PhotoMoveNotice orgId={project.org_id} move={lastMove} onDone={() => setLastMove(null)} />}
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
                        <FileBadges orgId={project.org_id} projectId={project.id} file={file} place={places.get(file.id)} onMoved={setLastMove} />
                      </span>
                    </td>
                    <td>
                      {file.file_tags_data.map((tag) => (
                        <Badge key={tag.id}>{tag.title}</Badge>
                      ))}
                    </td>
                    <td className="numeric">{formatBytes(file.filesize)}</td>
                    <td>{formatDate(file.modified_date)}</td>
                    <td>
                      {syncStateOf(file.id)}
                      {contentsOf(file.id)}
                    </td>
                    <td>
                      {isOnRemote(file.id) && (
                        <button
                          type="button"
                          className="link-button"
                          disabled={fetching[file.id] === true}
                          onClick={() => void useContentsStore.getState().fetch(project.org_id, file.id, file.title)}
                        >
                          {fetching[file.id] ? 'Fetching…' : 'Fetch'}
                        </button>
                      )}
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
