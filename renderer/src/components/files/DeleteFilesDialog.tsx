// "Delete these files?": what will go, and that it can be undone for a while.
import './DeleteFilesDialog.css';
import { useEffect, useRef } from 'react';
import type { PrivateFileJson } from '../../../../shared/schemas/private-file.ts';
import { DELETE_UNDO_MS } from '../../stores/files-store.ts';
import { useEscapeKey } from '../common/use-escape-key.ts';

export function DeleteFilesDialog({ files, isSynced, onConfirm, onCancel }: { files: PrivateFileJson[]; isSynced: boolean; onConfirm(): void; onCancel(): void }) {
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), []);
  useEscapeKey(onCancel);
  const what = files.length === 1 ? files[0]!.title : `${files.length} files`;
  const listed = files.slice(0, 5);
  return (
    <div className="dialog-backdrop" onClick={onCancel}>
      <section
        className="dialog"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="delete-files-title"
        data-testid="delete-files-dialog"
        onClick={(event) => event.stopPropagation()}
      >
        <h2 id="delete-files-title">Delete {what}?</h2>
        {files.length > 1 && (
          <ul className="delete-files-list">
            {listed.map((file) => (
              <li key={file.id}>{file.title}</li>
            ))}
            {files.length > listed.length && <li className="muted">and {files.length - listed.length} more</li>}
          </ul>
        )}
        <p>
          {files.length === 1 ? 'It leaves' : 'They leave'} the project now. You can undo this for {DELETE_UNDO_MS / 1000} seconds; then{' '}
          {files.length === 1 ? 'it is' : 'they are'} deleted{isSynced ? ' here and on the remote' : ''}, earlier versions too.
        </p>
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button ref={confirm} type="button" className="button button-danger" onClick={onConfirm}>
            Delete
          </button>
        </div>
      </section>
    </div>
  );
}
