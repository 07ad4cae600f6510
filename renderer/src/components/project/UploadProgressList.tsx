import { formatBytes } from '../../format.ts';
import { useFilesStore } from '../../stores/files-store.ts';

export function UploadProgressList({ projectId }: { projectId: number }) {
  const allUploads = useFilesStore((state) => state.uploads);
  const uploads = Object.values(allUploads).filter((upload) => upload.projectId === projectId);
  if (uploads.length === 0) return null;
  return (
    <ul className="uploads" aria-label="Uploads">
      {uploads.map((upload) => {
        const fraction = upload.totalBytes === 0 ? 1 : upload.sentBytes / upload.totalBytes;
        return (
          <li key={upload.uploadId} className={`upload upload-${upload.state}`} data-testid="upload-progress">
            <span className="upload-name">{upload.fileName}</span>
            <progress max={1} value={upload.state === 'failed' ? 0 : fraction} aria-label={`Uploading ${upload.fileName}`} />
            <span className="muted">
              {upload.state === 'failed' ? upload.error : upload.state === 'done' ? 'Attached' : `${formatBytes(upload.sentBytes)} of ${formatBytes(upload.totalBytes)}`}
            </span>
          </li>
        );
      })}
    </ul>
  );
}
