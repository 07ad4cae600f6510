// Uploads of the open project: bytes sent and time left for every file over about
// 1 MB, Cancel while it runs (nothing of it stays attached), and why a refused
// file was refused, in sentences that say what to do.
import './UploadProgressList.css';
import { useEffect, useState } from 'react';
import { formatBytes } from '../../format.ts';
import { useFilesStore } from '../../stores/files-store.ts';
import type { UploadRow } from '../../stores/file-uploads.ts';

/** Under this, an upload is over before a bar means anything: it shows only its outcome. */
const PROGRESS_FROM_BYTES = 1024 * 1024;

function timeLeft(upload: UploadRow, now: number): string {
  const elapsed = (now - upload.startedAt) / 1000;
  if (upload.sentBytes === 0 || elapsed < 0.5) return 'working out the time left';
  const seconds = ((upload.totalBytes - upload.sentBytes) / upload.sentBytes) * elapsed;
  if (seconds < 1) return 'almost done';
  if (seconds < 90) return `about ${Math.ceil(seconds)} s left`;
  return `about ${Math.ceil(seconds / 60)} min left`;
}

export function UploadProgressList({ projectId }: { projectId: number }) {
  const allUploads = useFilesStore((state) => state.uploads);
  const { cancelUpload, dismissUpload } = useFilesStore.getState();
  const uploads = Object.values(allUploads).filter((upload) => upload.projectId === projectId);
  const [now, setNow] = useState(() => Date.now());
  const running = uploads.some((upload) => upload.state === 'uploading');
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [running]);
  if (uploads.length === 0) return null;
  return (
    <ul className="uploads" aria-label="Uploads">
      {uploads.map((upload) => {
        const fraction = upload.totalBytes === 0 ? 1 : upload.sentBytes / upload.totalBytes;
        const big = upload.totalBytes >= PROGRESS_FROM_BYTES;
        return (
          <li key={upload.uploadId} className={`upload upload-${upload.state}`} data-testid="upload-progress" data-state={upload.state}>
            <span className="upload-name">{upload.fileName}</span>
            {upload.state === 'uploading' || upload.state === 'done' ? (
              <progress max={1} value={fraction} aria-label={`Uploading ${upload.fileName}`} />
            ) : null}
            <span className={upload.state === 'failed' ? 'upload-error' : 'muted'} role={upload.state === 'failed' ? 'alert' : undefined}>
              {upload.state === 'failed'
                ? upload.error
                : upload.state === 'done'
                  ? 'Attached'
                  : upload.state === 'cancelled'
                    ? 'Cancelled: nothing was attached'
                    : upload.cancelRequested
                      ? 'Cancelling…'
                      : big
                        ? `${formatBytes(upload.sentBytes)} of ${formatBytes(upload.totalBytes)}, ${timeLeft(upload, now)}`
                        : 'Uploading…'}
            </span>
            {/* Once every byte is sent the file is being attached: too late to cancel (delete it instead). */}
            {upload.state === 'uploading' && !upload.cancelRequested && (upload.sentBytes < upload.totalBytes || upload.totalBytes === 0) && (
              <button type="button" className="link-button" onClick={() => cancelUpload(upload.uploadId)}>
                Cancel
              </button>
            )}
            {upload.state === 'failed' && (
              <button type="button" className="link-button" onClick={() => dismissUpload(upload.uploadId)}>
                Dismiss
              </button>
            )}
          </li>
        );
      })}
    </ul>
  );
}
