import './WindowFileDrop.css';
import { useEffect, useState } from 'react';
import { useFilesStore } from '../../stores/files-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';

const carriesFiles = (event: DragEvent) => event.dataTransfer?.types.includes('Files') ?? false;

/**
 * Files dragged from the desktop anywhere onto the window attach to the open
 * project. Without this the browser (or Electron) would open the file in place of the app.
 */
export function WindowFileDrop({ projectId, projectTitle }: { projectId: number; projectTitle: string }) {
  const [isDragging, setDragging] = useState(false);
  useEffect(() => {
    let depth = 0;
    const onEnter = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      depth++;
      setDragging(true);
    };
    const onLeave = () => {
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(false);
    };
    const onOver = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
    };
    const onDrop = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      depth = 0;
      setDragging(false);
      const files = [...(event.dataTransfer?.files ?? [])];
      if (files.length === 0) return;
      useUiStore.getState().showTab('files');
      void useFilesStore.getState().upload(projectId, files);
    };
    window.addEventListener('dragenter', onEnter);
    window.addEventListener('dragleave', onLeave);
    window.addEventListener('dragover', onOver);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragenter', onEnter);
      window.removeEventListener('dragleave', onLeave);
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('drop', onDrop);
    };
  }, [projectId]);

  if (!isDragging) return null;
  return (
    <div className="drop-overlay" aria-hidden="true">
      <div>Drop to attach to “{projectTitle}”</div>
    </div>
  );
}
