// The per-file marks of a Files tab row (issue 17): its sync state; signed in,
// whether its contents are on this computer or on the remote, with what fetching
// costs (files on demand, issue 15); and for field photos, "Taken 12 km from this
// site" with a one-click move to the one project whose site it was taken at (a
// PATCH of the file's project through the local API, so sync follows; undoable).
// A generated document made from older inputs says so and offers Regenerate (issue
// 29). A new mark is a small component taking the file, added to FileBadges, so
// FileRow stays the same.
import './FileBadges.css';
import { createContext, useContext, useEffect, useState } from 'react';
import { apiPaths } from '../../../../shared/api-paths.ts';
import { formatDistance } from '../../../../shared/geo.ts';
import type { ProjectPhotoPlace } from '../../../../shared/photos.ts';
import type { PrivateFileJson } from '../../../../shared/schemas/private-file.ts';
import { messageOf } from '../../api/api-client.ts';
import { requireBridge } from '../../bridge-client.ts';
import { fetchCostText, useContentsStore } from '../../stores/contents-store.ts';
import { useDocumentsStore } from '../../stores/documents-store.ts';
import { staleDocumentSentence } from '../../../../shared/documents.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { Badge } from '../common/Badge.tsx';

/** What FilesTab gives the marks of its rows: the project, where its photos were taken, and where a photo's move is reported. */
export interface ProjectOfFiles {
  orgId: number;
  projectId: number;
  places: Map<number, ProjectPhotoPlace>;
  onMoved: (move: PhotoMove) => void;
}

export const ProjectOfFilesContext = createContext<ProjectOfFiles | null>(null);

export function FileSyncBadge({ file }: { file: PrivateFileJson }) {
  const isLocalOnly = useSyncStore((state) => state.isLocalOnly);
  const isPending = useSyncStore((state) => state.pending.some((item) => item.model === 'private_file' && item.record_id === file.id));
  // Local only, every file is on this computer alone: a badge on each row would say nothing (issue 28, item 10).
  if (isLocalOnly) return null;
  return isPending ? <Badge tone="warning">Waiting to sync</Badge> : <Badge tone="success">Synced</Badge>;
}

/** Signed in: whether the file's contents are here or on the remote, what fetching them costs, and Fetch. */
function ContentsMark({ file }: { file: PrivateFileJson }) {
  const project = useContext(ProjectOfFilesContext);
  const contents = useContentsStore((state) => state.contents);
  const isFetching = useContentsStore((state) => state.fetching[file.id] === true);
  const entry = project && contents?.project_id === project.projectId ? contents.files.find((item) => item.id === file.id) : undefined;
  if (!project || !entry) return null;
  if (entry.here) return <span className="contents-mark" data-testid="contents-here">On this computer</span>;
  return (
    <span className="contents-mark is-remote" data-testid="contents-remote" title="Pin the project to keep all its files on this computer and in its folder">
      On the remote · {fetchCostText(entry)}{' '}
      <button type="button" className="link-button" disabled={isFetching} onClick={() => void useContentsStore.getState().fetch(project.orgId, file.id, file.title)}>
        {isFetching ? 'Fetching…' : 'Fetch'}
      </button>
    </span>
  );
}

export function FileBadges({ file }: { file: PrivateFileJson }) {
  return (
    <span className="file-badges" data-testid="file-badges">
      <FileSyncBadge file={file} />
      <ContentsMark file={file} />
      <PhotoPlaceBadge file={file} />
      <StaleDocumentMark file={file} />
    </span>
  );
}

/** A saved document the same choices would now make differently (the engine decides: generated_documents), with Regenerate. */
function StaleDocumentMark({ file }: { file: PrivateFileJson }) {
  const project = useContext(ProjectOfFilesContext);
  const state = useDocumentsStore((store) => (store.freshness?.projectId === project?.projectId ? store.freshness?.byFile.get(file.id) : undefined));
  const isRegenerating = useDocumentsStore((store) => store.regenerating.includes(file.id));
  if (!project || !state || state.is_current) return null;
  const sentence = staleDocumentSentence(state.changed);
  return (
    <span className="stale-document" data-testid="stale-document">
      <Badge tone="warning" title={state.problem ?? `${sentence}: Regenerate makes a new file from the current inputs; this one stays.`}>
        {state.problem ? 'Made from older inputs' : sentence}
      </Badge>
      {state.problem ? (
        <span className="muted small">{state.problem}</span>
      ) : (
        <button type="button" className="link-button" disabled={isRegenerating} onClick={() => void useDocumentsStore.getState().regenerate(project.orgId, project.projectId, state)}>
          {isRegenerating ? 'Regenerating…' : 'Regenerate'}
        </button>
      )}
    </span>
  );
}

/** Where the project's photos were taken, by file id; read again whenever the list of files changes. */
export function usePhotoPlaces(projectId: number, files: readonly PrivateFileJson[]): Map<number, ProjectPhotoPlace> {
  const [places, setPlaces] = useState(new Map<number, ProjectPhotoPlace>());
  const key = files.map((file) => `${file.id}:${file.modified_date}`).join(',');
  useEffect(() => {
    let isCurrent = true;
    requireBridge()
      .invoke('photos.check', { projectId })
      .then((list) => isCurrent && setPlaces(new Map(list.map((place) => [place.fileId, place]))))
      .catch(() => isCurrent && setPlaces(new Map()));
    return () => {
      isCurrent = false;
    };
  }, [projectId, key]);
  return places;
}

/** A move just made, offered for undo. */
export interface PhotoMove {
  file: PrivateFileJson;
  fromProjectId: number;
  to: { projectId: number; title: string };
}

async function patchProject(orgId: number, fileId: number, projectId: number): Promise<void> {
  const response = await requireBridge().invoke('api.request', { method: 'PATCH', path: apiPaths.privateFile(orgId, fileId), body: { project: projectId } });
  if (response.status !== 200) {
    const body = response.body as { detail?: string } | null;
    throw new Error(body?.detail ?? `The local API answered ${response.status}.`);
  }
}

/** Field photos: "Taken 12 km from this site", with a one-click move to the one project whose site it was taken at. */
function PhotoPlaceBadge({ file }: { file: PrivateFileJson }) {
  const photos = useContext(ProjectOfFilesContext);
  const [isMoving, setMoving] = useState(false);
  if (!photos) return null;
  const { orgId, projectId, onMoved } = photos;
  const place = photos.places.get(file.id);
  if (!place?.isFar || place.distanceM === null) return null;
  const match = place.match;
  const move = async () => {
    if (!match) return;
    setMoving(true);
    try {
      await patchProject(orgId, file.id, match.projectId);
      onMoved({ file, fromProjectId: projectId, to: { projectId: match.projectId, title: match.title } });
    } catch (error) {
      useUiStore.getState().toast(`Could not move ${file.title} to ${match.title}: ${messageOf(error)} Try again, or move it from its project's folder.`, 'error');
    } finally {
      setMoving(false);
    }
  };
  return (
    <span className="photo-far" data-testid="photo-far">
      <Badge tone="warning" title={`Where the photo was taken (its GPS position) is ${formatDistance(place.distanceM)} from this project's site.`}>
        Taken {formatDistance(place.distanceM)} from this site
      </Badge>
      {match && (
        <button type="button" className="link-button" disabled={isMoving} onClick={() => void move()} title={`Taken ${formatDistance(match.distanceM)} from ${match.title}'s site`}>
          Move to {match.title}
        </button>
      )}
    </span>
  );
}

/** "Moved IMG_0412.jpg to 12 Smith St. Undo": the move puts the file back where it was. */
export function PhotoMoveNotice({ orgId, move, onDone }: { orgId: number; move: PhotoMove; onDone: () => void }) {
  const [isUndoing, setUndoing] = useState(false);
  const undo = async () => {
    setUndoing(true);
    try {
      await patchProject(orgId, move.file.id, move.fromProjectId);
      onDone();
    } catch (error) {
      useUiStore.getState().toast(`Could not move ${move.file.title} back: ${messageOf(error)}`, 'error');
      setUndoing(false);
    }
  };
  return (
    <div className="card card-row photo-move-notice" role="status" data-testid="photo-move-notice">
      <span>
        Moved <strong>{move.file.title}</strong> to {move.to.title}.
      </span>
      <span className="card-actions">
        <button type="button" className="button" disabled={isUndoing} onClick={() => void undo()}>
          Undo
        </button>
        <button type="button" className="link-button" onClick={onDone}>
          Dismiss
        </button>
      </span>
    </div>
  );
}
