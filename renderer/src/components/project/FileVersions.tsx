// The earlier versions of one private file, kept on this computer (docs/files.md
// "Versions"): when, how big, who replaced them, with Download and Restore, and a
// way to give the file new contents by hand. Shown under the file's row.
import './FileVersions.css';
import type { PrivateFileJson, PrivateFileVersionJson } from '../../../../shared/schemas/private-file.ts';
import { formatBytes, formatDateTime } from '../../format.ts';
import { type OpenVersions, useFilesStore } from '../../stores/files-store.ts';
import { ErrorState } from '../common/ErrorState.tsx';
import { LoadingState } from '../common/LoadingState.tsx';

export function FileVersions({ file, versions }: { file: PrivateFileJson; versions: OpenVersions }) {
  const { restoreVersion, downloadVersion, replaceContents, loadVersions } = useFilesStore.getState();

  const confirmRestore = (version: PrivateFileVersionJson) => {
    const when = formatDateTime(version.replaced_at);
    const question = `Restore ${file.title} as it was before ${when}? Its current contents are kept as a version, so you can go back.`;
    if (window.confirm(question)) void restoreVersion(file, version);
  };

  return (
    <div className="file-versions" data-testid="file-versions" aria-label={`Versions of ${file.title}`}>
      <div className="file-versions-head">
        <p className="muted small">Earlier contents are kept on this computer: the last 10, and all from the last 30 days.</p>
        <label className="button">
          Upload new contents…
          <input
            type="file"
            hidden
            onChange={(event) => {
              const chosen = event.target.files?.[0];
              if (chosen) void replaceContents(file, chosen);
              event.target.value = '';
            }}
          />
        </label>
      </div>
      {versions.status === 'loading' && <LoadingState label="Loading versions…" />}
      {versions.status === 'error' && <ErrorState message={versions.error ?? ''} onRetry={() => void loadVersions()} />}
      {versions.status === 'ready' && versions.list.length === 0 && <p className="muted small">No earlier versions yet. Editing the file in its project folder keeps one here each time.</p>}
      {versions.list.length > 0 && (
        <ul className="file-versions-list" data-testid="versions-list">
          {versions.list.map((version) => (
            <li key={version.id} className="file-version" data-testid="version-row">
              <div className="file-version-facts">
                <span className="file-version-date">{formatDateTime(version.replaced_at)}</span>
                <span className="muted small">
                  {version.file_name} · {formatBytes(version.filesize)} · {version.replaced_by_name ?? 'Sync'}
                </span>
              </div>
              <div className="file-versions-actions">
                <button type="button" className="link-button" onClick={() => void downloadVersion(file, version)}>
                  Download
                </button>
                <button type="button" className="link-button" onClick={() => confirmRestore(version)}>
                  Restore
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
