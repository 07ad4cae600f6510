// Settings > Project folders: where they are, why their names end in a number, and
// choosing another folder root. A new root asks first whether the project folders move
// there with their files (issue 28, item 1): moving shows its progress; leaving them
// starts fresh folders in the new place and says where the old ones stay.
import { useEffect, useRef, useState } from 'react';
import type { FolderMoveProgress, SessionInfo, Settings } from '../../../../shared/bridge.ts';
import { messageOf } from '../../api/api-client.ts';
import { requireBridge } from '../../bridge-client.ts';
import { formatBytes } from '../../format.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { useEscapeKey } from '../common/use-escape-key.ts';

function MoveFoldersDialog({ from, to, onDone, onCancel }: { from: string; to: string; onDone(): void; onCancel(): void }) {
  const changeFolderRoot = useSessionStore((state) => state.changeFolderRoot);
  const toast = useUiStore((state) => state.toast);
  const [progress, setProgress] = useState<FolderMoveProgress | null>(null);
  const [isBusy, setIsBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const move = useRef<HTMLButtonElement>(null);
  useEffect(() => move.current?.focus(), []);
  useEffect(() => requireBridge().subscribe('folders.moveProgress', setProgress), []);
  // While files are moving the question is no longer open: Escape waits for the answer.
  useEscapeKey(onCancel, !isBusy);

  const change = (moveFolders: boolean) => {
    setIsBusy(true);
    setFailure(null);
    void changeFolderRoot(to, moveFolders)
      .then((result) => {
        toast(result.moved ? `Moved the project folders and their files to ${to}.` : `New project folders are in ${to}. The old ones are still in ${from}, no longer kept up to date.`);
        onDone();
      })
      .catch((error) => setFailure(messageOf(error)))
      .finally(() => setIsBusy(false));
  };

  return (
    <div className="dialog-backdrop" onClick={isBusy ? undefined : onCancel}>
      <section className="dialog" role="dialog" aria-modal="true" aria-labelledby="move-folders-title" data-testid="move-folders-dialog" onClick={(event) => event.stopPropagation()}>
        <h2 id="move-folders-title">Move the project folders too?</h2>
        <p>
          The project folders in <span className="mono">{from}</span> can move to <span className="mono">{to}</span> with every file in them. Nothing is
          deleted and nothing is uploaded again.
        </p>
        <p className="muted">If you leave them, they stay where they are but are no longer kept up to date, and new project folders are made in the new place with the projects’ files.</p>
        {isBusy && (
          <p role="status" data-testid="move-folders-progress">
            {progress && progress.totalFiles > 0
              ? `Moving… ${progress.files} of ${progress.totalFiles} files (${formatBytes(progress.bytes)} of ${formatBytes(progress.totalBytes)})`
              : 'Moving…'}
          </p>
        )}
        {failure && (
          <p role="alert" className="field-error">
            {failure}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onCancel} disabled={isBusy}>
            Cancel
          </button>
          <button type="button" className="button" onClick={() => change(false)} disabled={isBusy}>
            Leave them, start new folders
          </button>
          <button ref={move} type="button" className="button button-primary" onClick={() => change(true)} disabled={isBusy}>
            Move the folders
          </button>
        </div>
      </section>
    </div>
  );
}

export function FolderRootSection({ session, settings }: { session: SessionInfo; settings: Settings }) {
  const chooseFolder = useSessionStore((state) => state.chooseFolder);
  const toast = useUiStore((state) => state.toast);
  const [folderRoot, setFolderRoot] = useState(settings.folderRoot);
  const [isAsking, setIsAsking] = useState(false);
  const chosen = folderRoot.trim();

  return (
    <section className="card">
      <h2>Project folders</h2>
      <p className="muted" data-testid="project-folders-root">
        Each project gets a folder in <span className="mono">{session.projectFoldersRoot}</span>: a file dropped into it is attached to the project, and
        downloads are saved into it. {session.mode === 'embedded' ? 'Signed in to a remote, the folders are in the folder root itself' : 'While not signed in, the folders of the store on this computer are in its "On this computer" folder'}, so the two never mix.
      </p>
      <p className="muted small" data-testid="folder-number-note">
        The number at the end of a folder’s name, as in “Glenelg (20)”, is the project’s number: it keeps two projects with the same title apart. You can rename a
        folder; SolarDesk still knows it.
      </p>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (chosen !== settings.folderRoot) setIsAsking(true);
        }}
      >
        <input aria-label="Folder root" className="mono" title={folderRoot} value={folderRoot} onChange={(event) => setFolderRoot(event.target.value)} />
        {session.canChooseFolder && (
          <button
            type="button"
            className="button"
            onClick={() =>
              void chooseFolder(chosen || settings.folderRoot)
                .then((picked) => picked !== null && setFolderRoot(picked))
                .catch((error) => toast(messageOf(error), 'error'))
            }
          >
            Browse…
          </button>
        )}
        <button type="submit" className="button" disabled={chosen === settings.folderRoot}>
          Save
        </button>
      </form>
      {!session.canChooseFolder && <p className="muted small">Type the folder’s full path: a browser page cannot show this computer’s folders (the desktop app has a Browse button).</p>}
      {isAsking && <MoveFoldersDialog from={settings.folderRoot} to={chosen} onDone={() => setIsAsking(false)} onCancel={() => setIsAsking(false)} />}
    </section>
  );
}
