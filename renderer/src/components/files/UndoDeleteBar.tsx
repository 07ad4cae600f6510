// Files deleted in the app wait here for a few seconds before the delete is sent:
// Undo puts them back in the list, and nothing was deleted.
import './UndoDeleteBar.css';
import { useEffect, useState } from 'react';
import { useFilesStore } from '../../stores/files-store.ts';

export function UndoDeleteBar({ projectId }: { projectId: number }) {
  const pending = useFilesStore((state) => state.pendingDeletes);
  const { undoDelete } = useFilesStore.getState();
  const [now, setNow] = useState(() => Date.now());
  const mine = pending.filter((item) => item.projectId === projectId);
  useEffect(() => {
    if (mine.length === 0) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [mine.length]);
  if (mine.length === 0) return null;
  return (
    <ul className="undo-deletes" aria-label="Deleted files">
      {mine.map((item) => (
        <li key={item.key} className="undo-delete" role="status" data-testid="undo-delete">
          <span>
            Deleted {item.files.length === 1 ? item.files[0]!.title : `${item.files.length} files`}.{' '}
            <span className="muted">Undo within {Math.max(0, Math.ceil((item.sendsAt - now) / 1000))} s.</span>
          </span>
          <button type="button" className="button" onClick={() => undoDelete(item.key)}>
            Undo
          </button>
        </li>
      ))}
    </ul>
  );
}
