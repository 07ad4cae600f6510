// The Files tab: a project's files to find (search, filters, sort), look at
// (the viewer, through viewer-store), change (rename, tags, show customer), select
// several of (tag, download, delete together) and delete with an undo window;
// uploads with progress, time left and cancel (docs/files.md "The Files tab").
import './FilesTab.css';
import { useEffect, useMemo, useRef, useState } from 'react';
import { type PhotoMove, PhotoMoveNotice, ProjectOfFilesContext, usePhotoPlaces } from '../files/FileBadges.tsx';
import { FileViewer } from '../files/FileViewer.tsx';
import { useContentsStore } from '../../stores/contents-store.ts';
import { useDocumentsStore } from '../../stores/documents-store.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { useFilesStore } from '../../stores/files-store.ts';
import { visibleFiles } from '../../stores/file-list-order.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { useViewerStore } from '../../stores/viewer-store.ts';
import { EmptyState } from '../common/EmptyState.tsx';
import { ErrorState } from '../common/ErrorState.tsx';
import { LoadingState } from '../common/LoadingState.tsx';
import { DeleteFilesDialog } from '../files/DeleteFilesDialog.tsx';
import { fileKindOf, type FileKind } from '../files/file-kinds.ts';
import { FileList } from '../files/FileList.tsx';
import { FileSelectionBar } from '../files/FileSelectionBar.tsx';
import { FileToolbar } from '../files/FileToolbar.tsx';
import { UndoDeleteBar } from '../files/UndoDeleteBar.tsx';
import { UploadProgressList } from './UploadProgressList.tsx';

export function FilesTab({ project }: { project: ProjectDetailJson }) {
  const files = useFilesStore((state) => state.files);
  const tags = useFilesStore((state) => state.tags);
  const status = useFilesStore((state) => state.status);
  const error = useFilesStore((state) => state.error);
  const filter = useFilesStore((state) => state.filter);
  const sort = useFilesStore((state) => state.sort);
  const selected = useFilesStore((state) => state.selected);
  const pendingDeletes = useFilesStore((state) => state.pendingDeletes);
  const isSynced = useSessionStore((state) => state.session?.mode === 'synced');
  const { load, upload, openFolder, deleteFiles } = useFilesStore.getState();
  const fileInput = useRef<HTMLInputElement>(null);
  const [confirming, setConfirming] = useState<number[] | null>(null);
  // Which file the viewer shows (viewer-store), for tests and styles: FileViewer renders from the same store.
  const viewing = useViewerStore((state) => state.open?.fileId);

  useEffect(() => {
    void load(project.org_id, project.id);
  }, [load, project.org_id, project.id]);
  // Files on demand: what is here and what is on the remote, again whenever the list changes.
  useEffect(() => {
    void useContentsStore.getState().load(project.org_id, project.id);
  }, [files, project.org_id, project.id]);
  // Which saved documents are made from older inputs: again when the files or the project (its design) change.
  useEffect(() => {
    void useDocumentsStore.getState().loadFreshness(project.org_id, project.id);
  }, [files, project.org_id, project.id, project.modified_date]);
  const places = usePhotoPlaces(project.id, files);
  const [lastMove, setLastMove] = useState<PhotoMove | null>(null);
  const projectOfFiles = useMemo(() => ({ orgId: project.org_id, projectId: project.id, places, onMoved: setLastMove }), [project.org_id, project.id, places]);

  const hidden = useMemo(() => new Set(pendingDeletes.flatMap((item) => item.files.map((file) => file.id))), [pendingDeletes]);
  const shown = useMemo(() => visibleFiles(files, filter, sort, hidden), [files, filter, sort, hidden]);
  const total = files.length - files.filter((file) => hidden.has(file.id)).length;
  const kinds = useMemo(() => [...new Set(files.map(fileKindOf))].sort() as FileKind[], [files]);
  const selectedFiles = shown.filter((file) => selected.includes(file.id));
  // The tag filter offers the tags this project's files carry (of the catalogue's 53 and the org's own), and the one picked.
  const usedTags = useMemo(() => {
    const used = new Set(files.flatMap((file) => file.file_tags_data.map((tag) => tag.id)));
    return tags.filter((tag) => used.has(tag.id) || tag.id === filter.tagId);
  }, [files, tags, filter.tagId]);
  const confirmingFiles = confirming ? files.filter((file) => confirming.includes(file.id)) : [];

  return (
    <ProjectOfFilesContext.Provider value={projectOfFiles}>
      <div className="files-tab" data-viewing={viewing}>
        <div className="files-actions">
          <p className="muted">Drag files onto this window, or into the project folder, to attach them to the project.</p>
          {/* A real button, so Tab reaches it; it opens the hidden file input's picker. */}
          <button type="button" className="button" title="Or drag files onto this window, or into the project folder" onClick={() => fileInput.current?.click()}>
            Choose files…
          </button>
          <input
            ref={fileInput}
            type="file"
            multiple
            hidden
            onChange={(event) => {
              if (event.target.files) void upload(project.id, [...event.target.files]);
              event.target.value = '';
            }}
          />
          <button type="button" className="button" onClick={() => void openFolder(project.id)}>
            Open project folder
          </button>
        </div>
        <UploadProgressList projectId={project.id} />
        <UndoDeleteBar projectId={project.id} />
        {lastMove && <PhotoMoveNotice orgId={project.org_id} move={lastMove} onDone={() => setLastMove(null)} />}
        {status === 'loading' && <LoadingState label="Loading files…" />}
        {status === 'error' && <ErrorState message={error ?? ''} onRetry={() => void load(project.org_id, project.id)} />}
        {status === 'ready' && total === 0 && <EmptyState title="No files yet">Photos, bills and contracts dropped here stay with the project.</EmptyState>}
        {total > 0 && (
          <>
            <FileToolbar tags={usedTags} kinds={kinds} shown={shown.length} total={total} />
            {shown.length === 0 ? (
              <p className="muted files-none-match">No file matches these filters.</p>
            ) : (
              <FileList files={shown} orgId={project.org_id} onDelete={setConfirming} />
            )}
            {/* After the list and floating at the pane's foot: a bar that appeared above the rows would move
                them between the two clicks of a double-click, which then opened the file above (issue 28). */}
            <FileSelectionBar files={selectedFiles} onDelete={setConfirming} />
          </>
        )}
        {confirming && confirmingFiles.length > 0 && (
          <DeleteFilesDialog
            files={confirmingFiles}
            isSynced={isSynced}
            onCancel={() => setConfirming(null)}
            onConfirm={() => {
              deleteFiles(confirming);
              setConfirming(null);
            }}
          />
        )}
        <FileViewer project={project} />
      </div>
    </ProjectOfFilesContext.Provider>
  );
}
